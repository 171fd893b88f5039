import type { ApiClient, ApiResponse } from './client.js';
import type { TestServer } from './server.js';
import type { PortalRole } from '../../src/domain/portal-roles.js';

/**
 * A browser-like portal client over HTTP: keeps the portal cookies, finds the CSRF token of the
 * last page, posts forms. The leak guard of ApiClient scans every page it reads.
 */
export class PortalClient {
  private readonly cookies = new Map<string, string>();
  /** The `_csrf` value of the last page read. */
  csrf: string | null = null;
  /** The `_once` value of the last page's secret form. */
  once: string | null = null;

  /** `headers` go with every request (e.g. X-Forwarded-For, to come from another address behind a trusted proxy). */
  constructor(
    private readonly client: ApiClient,
    private readonly extraHeaders: Record<string, string> = {},
  ) {}

  async get(path: string): Promise<ApiResponse> {
    return this.remember(await this.client.request('GET', path, { auth: null, headers: this.headers() }));
  }

  /** Posts a form; `_csrf` is the last page's token unless the fields set it (or null leaves it out). */
  async post(path: string, fields: Record<string, string | null>): Promise<ApiResponse> {
    const form = new URLSearchParams();
    const all: Record<string, string | null> = { _csrf: this.csrf, _once: this.once, ...fields };
    for (const [name, value] of Object.entries(all)) if (value !== null) form.set(name, value);
    return this.remember(
      await this.client.request('POST', path, { auth: null, contentType: 'application/x-www-form-urlencoded', body: form.toString(), headers: this.headers() }),
    );
  }

  /**
   * Posts a `multipart/form-data` form as a browser does: the text fields first (`_csrf` the last
   * page's unless set, null leaves it out), then the file part.
   */
  async postFile(path: string, fields: Record<string, string | null>, file: { field: string; name: string; content: Buffer | string } | null): Promise<ApiResponse> {
    const boundary = `----CofferTestBoundary${Math.random().toString(36).slice(2)}`;
    const parts: Buffer[] = [];
    const all: Record<string, string | null> = { _csrf: this.csrf, ...fields };
    for (const [name, value] of Object.entries(all)) {
      if (value !== null) parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
    }
    if (file !== null) {
      parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.field}"; filename="${file.name}"\r\nContent-Type: application/octet-stream\r\n\r\n`));
      parts.push(Buffer.isBuffer(file.content) ? file.content : Buffer.from(file.content));
      parts.push(Buffer.from('\r\n'));
    }
    parts.push(Buffer.from(`--${boundary}--\r\n`));
    return this.remember(
      await this.client.request('POST', path, { auth: null, contentType: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(parts), headers: this.headers() }),
    );
  }

  async signIn(email: string, password: string): Promise<ApiResponse> {
    await this.get('/portal/sign-in');
    return this.post('/portal/sign-in', { email, password });
  }

  /** Opens an invitation link (as shown on the team page) and submits its form. */
  async acceptInvitation(link: string, fields: Record<string, string>): Promise<ApiResponse> {
    const path = new URL(link).pathname;
    await this.get(path);
    return this.post(path, fields);
  }

  cookie(name: string): string | undefined {
    return this.cookies.get(name);
  }

  private headers(): Record<string, string> {
    const jar = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return jar === '' ? { ...this.extraHeaders } : { ...this.extraHeaders, cookie: jar };
  }

  private remember(response: ApiResponse): ApiResponse {
    const setCookie = response.headers['set-cookie'];
    if (setCookie !== undefined) {
      for (const line of setCookie.split(/, (?=[A-Za-z_]+=)/)) {
        const [pair = ''] = line.split(';');
        const at = pair.indexOf('=');
        const name = pair.slice(0, at);
        const value = pair.slice(at + 1);
        if (/Max-Age=0/.test(line)) this.cookies.delete(name);
        else this.cookies.set(name, value);
      }
    }
    const token = /name="_csrf" value="([^"]*)"/.exec(response.text);
    if (token !== null) this.csrf = token[1] as string;
    const once = /name="_once" value="([^"]*)"/.exec(response.text);
    this.once = once === null ? null : (once[1] as string);
    return response;
  }
}

/** A portal member of `server`'s first organization with `role`, made and signed in over HTTP. */
export async function signedInMember(server: Pick<TestServer, 'client' | 'core' | 'init'>, email: string, role: PortalRole, password: string): Promise<PortalClient> {
  await server.core.portalUsers.create(server.init.organization_token, { email, role, password });
  const member = new PortalClient(server.client);
  await member.signIn(email, password);
  return member;
}

/** The value of a read-only field by its id in a page. */
export function fieldValue(page: string, id: string): string | null {
  const match = new RegExp(`id="${id}"[^>]*value="([^"]*)"`).exec(page);
  return match === null ? null : (match[1] as string);
}
