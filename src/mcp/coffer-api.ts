import { Agent, request } from 'undici';

/** The header naming the tool, which the server writes to the audit log (src/http/mcp-audit.ts). */
const TOOL_HEADER = 'x-coffer-mcp-tool';

export interface ApiCall {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** A path under /v1 without its suffix, parameters already in it. */
  path: string;
  query?: Record<string, unknown>;
  /** A JSON body. */
  body?: unknown;
  /** Sent as Idempotency-Key (API.md §8). */
  idempotencyKey?: string | undefined;
}

export interface ApiAnswer {
  status: number;
  /** The body as text (JSON, or the transcript's plain text). */
  text: string;
}

export interface CofferApiOptions {
  url: string;
  environmentKey: string;
  accessSecret: string;
  ca: string | null;
}

/** Coffer's v1 API as `coffer mcp` calls it: JSON, Basic credentials, the tool named in a header. */
export class CofferApi {
  private readonly dispatcher: Agent;
  private readonly authorization: string;

  constructor(private readonly options: CofferApiOptions) {
    this.dispatcher = new Agent({ connect: options.ca === null ? {} : { ca: options.ca }, keepAliveTimeout: 10_000 });
    this.authorization = `Basic ${Buffer.from(`${options.environmentKey}:${options.accessSecret}`).toString('base64')}`;
  }

  async call(tool: string, call: ApiCall): Promise<ApiAnswer> {
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(call.query ?? {})) if (value !== undefined && value !== null) search.append(name, String(value));
    const query = search.toString();
    const url = `${this.options.url}${call.path}.json${query === '' ? '' : `?${query}`}`;
    const headers: Record<string, string> = { authorization: this.authorization, accept: 'application/json', [TOOL_HEADER]: tool };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
    const response = await request(url, { method: call.method, headers, body: call.body === undefined ? undefined : JSON.stringify(call.body), dispatcher: this.dispatcher });
    return { status: response.statusCode, text: await response.body.text() };
  }

  close(): Promise<void> {
    return this.dispatcher.close();
  }
}
