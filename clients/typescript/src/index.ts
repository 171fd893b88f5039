import type { components, operations, paths } from './schema.js';

/*
 * A thin typed client of Coffer's v1 API. Paths, parameters, request bodies and answers are the
 * types openapi-typescript generated from the OpenAPI document (schema.d.ts); this file only
 * sends them with fetch. JSON throughout: every /v1 path gets its `.json` suffix.
 */

export type { components, operations, paths };
export type Schemas = components['schemas'];

type Method = 'get' | 'post' | 'put' | 'delete';

/** The paths that have an operation for `M`. */
export type PathsWith<M extends Method> = {
  [P in keyof paths]: paths[P] extends Record<M, infer Op> ? ([Op] extends [never] ? never : Op extends undefined ? never : P) : never;
}[keyof paths];

type OperationOf<P extends keyof paths, M extends Method> = Exclude<paths[P][M], undefined>;

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;
type Responses<Op> = Op extends { responses: infer R } ? R : never;
type SuccessStatus = 200 | 201 | 202 | 204;

/** The JSON body of an operation's success answers. */
export type SuccessBody<Op> = { [S in keyof Responses<Op>]: S extends SuccessStatus ? JsonOf<Responses<Op>[S]> : never }[keyof Responses<Op>];
/** The JSON body of its other answers (errors; a declined transaction is 422 with the transaction). */
export type ErrorBody<Op> = { [S in keyof Responses<Op>]: S extends SuccessStatus ? never : JsonOf<Responses<Op>[S]> }[keyof Responses<Op>];

type ParametersOf<Op> = Op extends { parameters: infer P } ? P : never;
type PathParams<Op> = ParametersOf<Op> extends { path: infer T } ? T : never;
type QueryParams<Op> = ParametersOf<Op> extends { query?: infer T } ? T : never;
type RequestJson<Op> = Op extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;

/** What a call takes: path parameters when the path has some, a query and a JSON body when the operation has them. */
export type CallOptions<Op> = ([PathParams<Op>] extends [never] ? { path?: never } : { path: PathParams<Op> }) &
  ([QueryParams<Op>] extends [never | undefined] ? { query?: never } : { query?: QueryParams<Op> }) &
  ([RequestJson<Op>] extends [never] ? { body?: never } : { body?: RequestJson<Op> }) & {
    /** Sent as the Idempotency-Key header (POST and PUT). */
    idempotencyKey?: string;
    headers?: Record<string, string>;
  };

export type Result<Op> =
  | { ok: true; status: number; data: SuccessBody<Op>; response: Response }
  | { ok: false; status: number; error: ErrorBody<Op> | undefined; response: Response };

export interface ClientOptions {
  /** Where Coffer listens, e.g. https://coffer.example.com:8443 */
  baseUrl: string;
  /** The environment key (Basic user). */
  environmentKey: string;
  /** The access secret (Basic password). */
  accessSecret: string;
  /** A fetch to use instead of the global one (e.g. one that trusts a private CA). */
  fetch?: typeof fetch;
}

function expandPath(template: string, params: Record<string, string | number> | undefined): string {
  return template.replace(/\{([A-Za-z]+)\}/g, (_match, name: string) => {
    const value = params?.[name];
    if (value === undefined) throw new TypeError(`missing path parameter ${name} of ${template}`);
    return encodeURIComponent(String(value));
  });
}

function withSuffix(path: string): string {
  return path.startsWith('/v1/') && !path.endsWith('.json') ? `${path}.json` : path;
}

function queryString(query: Record<string, unknown> | undefined): string {
  if (query === undefined) return '';
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined && value !== null) search.append(name, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

export interface CofferClient {
  request<M extends Method, P extends PathsWith<M>>(method: M, path: P, options?: CallOptions<OperationOf<P, M>>): Promise<Result<OperationOf<P, M>>>;
  get<P extends PathsWith<'get'>>(path: P, options?: CallOptions<OperationOf<P, 'get'>>): Promise<Result<OperationOf<P, 'get'>>>;
  post<P extends PathsWith<'post'>>(path: P, options?: CallOptions<OperationOf<P, 'post'>>): Promise<Result<OperationOf<P, 'post'>>>;
  put<P extends PathsWith<'put'>>(path: P, options?: CallOptions<OperationOf<P, 'put'>>): Promise<Result<OperationOf<P, 'put'>>>;
  delete<P extends PathsWith<'delete'>>(path: P, options?: CallOptions<OperationOf<P, 'delete'>>): Promise<Result<OperationOf<P, 'delete'>>>;
}

export function createCofferClient(options: ClientOptions): CofferClient {
  const send = options.fetch ?? fetch;
  const authorization = `Basic ${btoa(`${options.environmentKey}:${options.accessSecret}`)}`;
  const base = options.baseUrl.replace(/\/+$/, '');

  async function request(method: Method, path: string, call: { path?: object; query?: object; body?: unknown; idempotencyKey?: string; headers?: Record<string, string> } = {}) {
    const url = `${base}${withSuffix(expandPath(path, call.path as Record<string, string>))}${queryString(call.query as Record<string, unknown>)}`;
    const headers: Record<string, string> = { accept: 'application/json', authorization, ...call.headers };
    if (call.body !== undefined) headers['content-type'] = 'application/json';
    if (call.idempotencyKey !== undefined) headers['idempotency-key'] = call.idempotencyKey;
    const response = await send(url, { method: method.toUpperCase(), headers, body: call.body === undefined ? undefined : JSON.stringify(call.body) });
    const text = await response.text();
    const json = text !== '' && (response.headers.get('content-type') ?? '').startsWith('application/json') ? JSON.parse(text) : undefined;
    return response.ok ? { ok: true, status: response.status, data: json, response } : { ok: false, status: response.status, error: json, response };
  }

  const client = {
    request,
    get: (path: string, call?: object) => request('get', path, call),
    post: (path: string, call?: object) => request('post', path, call),
    put: (path: string, call?: object) => request('put', path, call),
    delete: (path: string, call?: object) => request('delete', path, call),
  };
  return client as unknown as CofferClient;
}
