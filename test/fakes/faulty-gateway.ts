import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { randomBytes } from 'node:crypto';

/**
 * How the fake answers the next requests:
 * - `ok`: 200 with a minimal succeeded PaymentIntent;
 * - `hang`: reads the request and never answers;
 * - `reset`: reads the request, then destroys the socket (connection lost after sending);
 * - `status500`: 500 with a Stripe `api_error` object;
 * - `garbage`: 200 with a body that is not JSON;
 * - `decline`: 402 with a Stripe `card_error` object.
 */
export type FaultMode = 'ok' | 'hang' | 'reset' | 'status500' | 'garbage' | 'decline';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  mode: FaultMode;
}

/**
 * A minimal, misbehaving stand-in for Stripe's API on 127.0.0.1 (reached through
 * `COFFER_GATEWAY_ENDPOINTS={"stripe":"<url>"}`). Switch `mode` between calls; it counts accepted
 * TCP connections and requests, and `close()` destroys every open socket (hung ones included).
 */
export class FaultyGateway {
  /** The behaviour for requests arriving from now on. */
  mode: FaultMode = 'ok';
  /** TCP connections accepted (server `connection` events) since start or `resetCounters()`. */
  connections = 0;
  /** Every request received (body read in full), oldest first, since start or `resetCounters()`. */
  readonly received: ReceivedRequest[] = [];

  private readonly sockets = new Set<Socket>();
  private readonly hung = new Set<http.ServerResponse>();
  private readonly waiters: Array<{ count: number; resolve: () => void }> = [];

  private constructor(
    private readonly server: http.Server,
    readonly url: string,
  ) {}

  static async start(mode: FaultMode = 'ok'): Promise<FaultyGateway> {
    const server = http.createServer();
    // No server-side timeouts: `hang` must hang until the client gives up or we close.
    server.requestTimeout = 0;
    server.headersTimeout = 0;
    server.keepAliveTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    const gateway = new FaultyGateway(server, `http://127.0.0.1:${port}`);
    gateway.mode = mode;
    server.on('connection', (socket) => gateway.onConnection(socket));
    server.on('request', (request, response) => gateway.onRequest(request, response));
    return gateway;
  }

  /** Requests received so far. */
  get requests(): number {
    return this.received.length;
  }

  /** Requests being held open by `hang`. */
  get hanging(): number {
    return this.hung.size;
  }

  /** The value for `COFFER_GATEWAY_ENDPOINTS`. */
  endpoints(): string {
    return JSON.stringify({ stripe: this.url });
  }

  resetCounters(): void {
    this.connections = 0;
    this.received.length = 0;
  }

  /** Resolves once `count` requests have been received in total (since the last reset). */
  waitForRequests(count: number, timeoutMs = 5000): Promise<void> {
    if (this.received.length >= count) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`faulty gateway: ${this.received.length} of ${count} requests after ${timeoutMs} ms`)), timeoutMs);
      this.waiters.push({
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      });
    });
  }

  /** Ends every hung exchange by destroying its socket (the caller sees a lost connection). */
  dropHung(): void {
    for (const response of this.hung) response.socket?.destroy();
    this.hung.clear();
  }

  async close(): Promise<void> {
    this.hung.clear();
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private onConnection(socket: Socket): void {
    this.connections += 1;
    this.sockets.add(socket);
    socket.on('close', () => this.sockets.delete(socket));
  }

  private onRequest(request: http.IncomingMessage, response: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const mode = this.mode;
      const body = Buffer.concat(chunks).toString('utf8');
      this.received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body, mode });
      for (const waiter of [...this.waiters]) {
        if (this.received.length >= waiter.count) {
          this.waiters.splice(this.waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
      }
      this.answer(mode, request, response, body);
    });
  }

  private answer(mode: FaultMode, request: http.IncomingMessage, response: http.ServerResponse, body: string): void {
    const json = (status: number, document: unknown) => {
      const text = JSON.stringify(document);
      response.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), 'request-id': `req_${randomBytes(6).toString('hex')}` });
      response.end(text);
    };
    switch (mode) {
      case 'ok': {
        if (request.method !== 'POST' || request.url !== '/v1/payment_intents') {
          json(404, { error: { type: 'invalid_request_error', message: `Unrecognized request URL (${request.method} ${request.url}).` } });
          return;
        }
        const amount = Number(new URLSearchParams(body).get('amount') ?? '0');
        json(200, { id: `pi_${randomBytes(12).toString('hex')}`, object: 'payment_intent', status: 'succeeded', amount, amount_received: amount });
        return;
      }
      case 'hang':
        this.hung.add(response);
        response.on('close', () => this.hung.delete(response));
        return;
      case 'reset':
        request.socket.destroy();
        return;
      case 'status500':
        json(500, { error: { type: 'api_error', message: 'An unknown error occurred' } });
        return;
      case 'garbage': {
        const text = '<html><body>Bad Gateway, but with 200 OK</body></html>';
        response.writeHead(200, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(text) });
        response.end(text);
        return;
      }
      case 'decline':
        json(402, {
          error: {
            type: 'card_error',
            code: 'card_declined',
            decline_code: 'generic_decline',
            message: 'Your card was declined.',
            payment_intent: { id: `pi_${randomBytes(12).toString('hex')}`, object: 'payment_intent', status: 'requires_payment_method' },
          },
        });
        return;
    }
  }
}
