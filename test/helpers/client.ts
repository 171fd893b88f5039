import { Agent, request } from 'undici';
import { XMLParser } from 'fast-xml-parser';
import { checkAgainstContract } from './contract-check.js';
import { CardDataLeakError, findCardData, maskCardData, maskFinding } from './leak-scan.js';

export interface ApiResponse {
  status: number;
  headers: Record<string, string>;
  text: string;
  /** The body parsed as JSON. */
  json(): any;
  /** The body parsed as XML, attributes kept under `@_name`, text under `#text`. */
  xml(): any;
}

export interface RequestOptions {
  body?: string | Buffer;
  contentType?: string;
  accept?: string;
  /** Basic credentials; null sends no Authorization header; omitted uses the client's default. */
  auth?: { user: string; password: string } | null;
  headers?: Record<string, string>;
}

const xmlParser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false, trimValues: true });

export function parseXml(text: string): any {
  return xmlParser.parse(text);
}

/** A small HTTPS client that trusts one CA and speaks to one Coffer. */
export class ApiClient {
  private readonly dispatcher: Agent;

  constructor(
    readonly baseUrl: string,
    ca: string | null,
    private readonly defaultAuth: { user: string; password: string } | null,
  ) {
    this.dispatcher = new Agent({ connect: ca === null ? {} : { ca }, keepAliveTimeout: 1000 });
  }

  withAuth(auth: { user: string; password: string } | null): ApiClient {
    const client = new ApiClient(this.baseUrl, null, auth);
    (client as unknown as { dispatcher: Agent }).dispatcher = this.dispatcher;
    return client;
  }

  async request(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = { ...options.headers };
    const auth = options.auth === undefined ? this.defaultAuth : options.auth;
    if (auth !== null) headers.authorization = `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`;
    if (options.contentType !== undefined) headers['content-type'] = options.contentType;
    if (options.accept !== undefined) headers.accept = options.accept;
    const response = await request(`${this.baseUrl}${path}`, {
      method: method as 'GET',
      headers,
      body: options.body,
      dispatcher: this.dispatcher,
    });
    const text = await response.body.text();
    const flat: Record<string, string> = {};
    for (const [name, value] of Object.entries(response.headers)) flat[name] = Array.isArray(value) ? value.join(', ') : String(value);
    // Leak guard: no response of any e2e test may carry card data in clear.
    const leaked = findCardData(`${Object.entries(flat).map(([name, value]) => `${name}: ${value}`).join('\n')}\n\n${text}`);
    if (leaked.length > 0) {
      throw new CardDataLeakError(
        `card data in clear in the response to ${method} ${maskCardData(path)} (status ${response.statusCode}): ${leaked.map(maskFinding).join(', ')}`,
      );
    }
    // Contract check: every JSON answer matches the OpenAPI document's schema for its operation and status.
    checkAgainstContract(method, path, response.statusCode, flat['content-type'], text);
    return { status: response.statusCode, headers: flat, text, json: () => JSON.parse(text), xml: () => parseXml(text) };
  }

  get(path: string, options?: RequestOptions) {
    return this.request('GET', path, options);
  }

  /** POST/PUT a JSON document. */
  sendJson(method: string, path: string, document: unknown, options: RequestOptions = {}) {
    return this.request(method, path, { contentType: 'application/json', body: JSON.stringify(document), ...options });
  }

  /** POST/PUT an XML document (text/xml, as the Ruby clients send). */
  sendXml(method: string, path: string, xml: string, options: RequestOptions = {}) {
    return this.request(method, path, { contentType: 'text/xml', body: xml, ...options });
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}
