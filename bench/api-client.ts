import { Agent, request } from 'undici';

/** An environment key and access secret: HTTP Basic credentials of the v1 API. */
export interface ApiCredentials {
  environment_key: string;
  access_secret: string;
}

/** One answer: status, the body as text, and the body parsed as JSON when it was JSON. */
export interface ApiReply {
  status: number;
  text: string;
  json: any; // eslint-disable-line @typescript-eslint/no-explicit-any -- response bodies are read field by field
}

export interface SendOptions {
  json?: unknown;
  xml?: string;
  headers?: Record<string, string>;
  /** Abort after this long (a hung request is a finding, not a wait). */
  timeoutMs?: number;
}

/** The Basic Authorization header value for `credentials`. */
export function basicAuth(credentials: ApiCredentials): string {
  return `Basic ${Buffer.from(`${credentials.environment_key}:${credentials.access_secret}`).toString('base64')}`;
}

/**
 * A small client of the v1 API for setting up fixtures and for the drills' own load: keep-alive
 * connections through one undici Agent, bodies in JSON or XML.
 */
export class ApiClient {
  private readonly agent: Agent;
  private readonly authorization: string;

  constructor(
    readonly baseUrl: string,
    credentials: ApiCredentials,
    connections = 16,
  ) {
    this.agent = new Agent({ connections, keepAliveTimeout: 5000 });
    this.authorization = basicAuth(credentials);
  }

  async send(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, options: SendOptions = {}): Promise<ApiReply> {
    const headers: Record<string, string> = { authorization: this.authorization, ...options.headers };
    let body: string | undefined;
    if (options.json !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(options.json);
    } else if (options.xml !== undefined) {
      headers['content-type'] = 'application/xml';
      body = options.xml;
    }
    const response = await request(`${this.baseUrl}${path}`, {
      method,
      headers,
      body,
      dispatcher: this.agent,
      signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
    });
    const text = await response.body.text();
    let json: unknown = null;
    if (String(response.headers['content-type'] ?? '').includes('json')) {
      try {
        json = JSON.parse(text);
      } catch {
        json = null;
      }
    }
    return { status: response.statusCode, text, json };
  }

  /** Sends and insists on `status`; the error names the route and status, never the body (it may echo input). */
  async expect(status: number, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, options: SendOptions = {}): Promise<ApiReply> {
    const reply = await this.send(method, path, options);
    if (reply.status !== status) {
      const key = reply.json?.errors?.[0]?.key ?? 'no error key';
      throw new Error(`${method} ${path.replace(/\/[A-Za-z0-9]{20,}/g, '/<token>')}: expected ${status}, got ${reply.status} (${key})`);
    }
    return reply;
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}
