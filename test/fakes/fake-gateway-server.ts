import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/**
 * The transport of every fake gateway in Coffer's tests: a real HTTP server on 127.0.0.1 (port 0),
 * every request recorded, a switch into the transport failures an adapter must survive, and
 * optional Idempotency-Key replay. A gateway's fake only adds its routes (its protocol), e.g.:
 *
 *   const fake = await FakeGatewayServer.start([
 *     { method: 'POST', path: '/v71/payments', handle: (request) => ({ json: { pspReference: 'X', resultCode: 'Authorised' } }) },
 *     { method: 'POST', path: /^\/v71\/payments\/([^/]+)\/captures$/, handle: (request, [psp]) => ({ status: 201, json: { … } }) },
 *   ], { idempotencyHeader: 'idempotency-key' });
 *   env COFFER_GATEWAY_ENDPOINTS = fake.endpoints('adyen')
 */

/** How the server answers from now on: normally (routes), 500, a non-protocol body, never, or by resetting the connection. */
export type FakeMode = 'normal' | 'error500' | 'garbage' | 'hang' | 'reset';

export interface FakeRequest {
  method: string;
  /** The path without the query string. */
  path: string;
  query: URLSearchParams;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Record<string, string>;
  rawBody: string;
}

export interface FakeAnswer {
  /** 200 unless given. */
  status?: number;
  /** Sent as application/json. */
  json?: unknown;
  /** Sent as is (with `contentType`, default text/plain) when `json` is absent. */
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
}

export interface FakeRoute {
  /** An HTTP method, or '*' for any. */
  method: string;
  /** An exact path, or a pattern whose capture groups are handed to `handle`. */
  path: string | RegExp;
  handle(request: FakeRequest, params: string[]): FakeAnswer | Promise<FakeAnswer>;
}

export interface FakeServerOptions {
  /** Replays the first answer to a repeated value of this (lower-case) header, as gateways with idempotency keys do. */
  idempotencyHeader?: string;
  /** The answer when no route matches (default: 404 JSON). */
  notFound?: (request: FakeRequest) => FakeAnswer;
  /** The body `garbage` mode sends with status 200. */
  garbageBody?: string;
}

/** The JSON body of a recorded request (throws in the test if it is not JSON). */
export function jsonOf(request: FakeRequest): Record<string, unknown> {
  return JSON.parse(request.rawBody) as Record<string, unknown>;
}

export class FakeGatewayServer {
  readonly requests: FakeRequest[] = [];
  private mode: FakeMode = 'normal';
  private garbageBody: string;
  private readonly replies = new Map<string, { status: number; headers: Record<string, string>; body: string }>();
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
    private readonly routes: FakeRoute[],
    private readonly options: FakeServerOptions,
  ) {
    this.garbageBody = options.garbageBody ?? '<html><body><h1>502 Bad Gateway</h1></body></html>';
  }

  static async start(routes: FakeRoute[], options: FakeServerOptions = {}): Promise<FakeGatewayServer> {
    const server = http.createServer();
    // No server-side timeouts: `hang` must hang until the client gives up or the test closes the server.
    server.requestTimeout = 0;
    server.headersTimeout = 0;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const fake = new FakeGatewayServer(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`, routes, options);
    server.on('connection', (socket: Socket) => {
      fake.sockets.add(socket);
      socket.on('close', () => fake.sockets.delete(socket));
    });
    server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => void fake.handle(request, response));
    return fake;
  }

  /** The value of COFFER_GATEWAY_ENDPOINTS sending `gatewayType` here. */
  endpoints(gatewayType: string): string {
    return JSON.stringify({ [gatewayType]: this.url });
  }

  /** From now on answer normally, 500, garbage (`body` with status 200), never, or reset the connection. */
  setMode(mode: FakeMode, options: { body?: string } = {}): void {
    this.mode = mode;
    if (options.body !== undefined) this.garbageBody = options.body;
  }

  lastRequest(): FakeRequest {
    const last = this.requests.at(-1);
    if (last === undefined) throw new Error('the fake gateway received no request');
    return last;
  }

  /** Requests whose (lower-case) header `name` had `value`. */
  requestsWith(name: string, value: string): FakeRequest[] {
    return this.requests.filter((request) => request.headers[name] === value);
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const target = new URL(req.url ?? '/', 'http://fake');
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) headers[name] = Array.isArray(value) ? value.join(', ') : String(value);
    const request: FakeRequest = { method: req.method ?? 'GET', path: target.pathname, query: target.searchParams, headers, rawBody: Buffer.concat(chunks).toString('utf8') };
    this.requests.push(request);

    if (this.mode === 'hang') return; // never answered; close() destroys the socket
    if (this.mode === 'reset') {
      req.socket.resetAndDestroy();
      return;
    }
    if (this.mode === 'error500') return this.write(res, 500, { 'content-type': 'application/json' }, JSON.stringify({ status: 500, message: 'Internal server error' }));
    if (this.mode === 'garbage') return this.write(res, 200, { 'content-type': 'text/html' }, this.garbageBody);

    const key = this.options.idempotencyHeader === undefined ? undefined : headers[this.options.idempotencyHeader];
    const saved = key === undefined ? undefined : this.replies.get(`${request.path}\u0000${key}`);
    if (saved !== undefined) return this.write(res, saved.status, { ...saved.headers, 'idempotent-replayed': 'true' }, saved.body);

    const answer = await this.route(request);
    const body = answer.json !== undefined ? JSON.stringify(answer.json) : (answer.body ?? '');
    const replyHeaders = { 'content-type': answer.json !== undefined ? 'application/json' : (answer.contentType ?? 'text/plain'), ...answer.headers };
    const status = answer.status ?? 200;
    if (key !== undefined && status < 500) this.replies.set(`${request.path}\u0000${key}`, { status, headers: replyHeaders, body });
    this.write(res, status, replyHeaders, body);
  }

  private async route(request: FakeRequest): Promise<FakeAnswer> {
    for (const route of this.routes) {
      if (route.method !== '*' && route.method !== request.method) continue;
      if (typeof route.path === 'string') {
        if (route.path === request.path) return route.handle(request, []);
        continue;
      }
      const match = route.path.exec(request.path);
      if (match !== null) return route.handle(request, match.slice(1).map((part) => decodeURIComponent(part ?? '')));
    }
    return this.options.notFound?.(request) ?? { status: 404, json: { status: 404, message: `No route for ${request.method} ${request.path}` } };
  }

  private write(res: http.ServerResponse, status: number, headers: Record<string, string>, body: string): void {
    res.writeHead(status, { ...headers, 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }
}
