import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** One request as it arrived on the wire. */
export interface RecordedDelivery {
  method: string;
  /** Path and query, as sent. */
  target: string;
  /** Header lines in arrival order with their case as sent. */
  rawHeaders: Array<[string, string]>;
  /** Header names in lower case. */
  headers: http.IncomingHttpHeaders;
  body: string;
  /** The address the connection was accepted on (which server of several got it). */
  localAddress: string;
}

/**
 * How the receiver answers from now on:
 * - `{ status, headers, body }`: that answer;
 * - `echo`: 200 with the request body, and the request's `x-echo` header back as `X-Echoed`;
 * - `hang`: reads the request and never answers;
 * - `reset`: reads the request, then destroys the connection;
 * - `huge`: 200 with `bytes` of body (default 2 MiB), streamed.
 */
export type ReceiverAnswer =
  | { kind: 'fixed'; status: number; headers?: Record<string, string>; body?: string | Buffer }
  | { kind: 'echo' }
  | { kind: 'hang' }
  | { kind: 'reset' }
  | { kind: 'huge'; bytes?: number };

/**
 * A receiver's HTTP endpoint on a loopback address for delivery tests: a real node:http server
 * that records every request byte for byte (method, target, header lines in order and case, body)
 * and answers as told.
 */
export class RecordingReceiver {
  answer: ReceiverAnswer = { kind: 'fixed', status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'ok' };
  readonly received: RecordedDelivery[] = [];
  private readonly sockets = new Set<Socket>();

  private constructor(
    private readonly server: http.Server,
    readonly host: string,
    readonly port: number,
  ) {}

  /** Listens on `host` (127.0.0.1 unless told) and `port` (any free one unless told). */
  static async start(options: { host?: string; port?: number } = {}): Promise<RecordingReceiver> {
    const server = http.createServer();
    server.requestTimeout = 0;
    server.headersTimeout = 0;
    const host = options.host ?? '127.0.0.1';
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port ?? 0, host, () => resolve());
    });
    const receiver = new RecordingReceiver(server, host, (server.address() as AddressInfo).port);
    server.on('connection', (socket: Socket) => {
      receiver.sockets.add(socket);
      socket.on('close', () => receiver.sockets.delete(socket));
    });
    server.on('request', (request: http.IncomingMessage, response: http.ServerResponse) => receiver.onRequest(request, response));
    return receiver;
  }

  /** `http://host:port` */
  get url(): string {
    return `http://${this.host}:${this.port}`;
  }

  private onRequest(request: http.IncomingMessage, response: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawHeaders: Array<[string, string]> = [];
      for (let index = 0; index < request.rawHeaders.length; index += 2) rawHeaders.push([request.rawHeaders[index] as string, request.rawHeaders[index + 1] as string]);
      const body = Buffer.concat(chunks).toString('utf8');
      this.received.push({ method: request.method ?? '', target: request.url ?? '', rawHeaders, headers: request.headers, body, localAddress: request.socket.localAddress ?? '' });
      this.respond(request, response, body);
    });
  }

  private respond(request: http.IncomingMessage, response: http.ServerResponse, body: string): void {
    const answer = this.answer;
    switch (answer.kind) {
      case 'fixed':
        response.writeHead(answer.status, answer.headers ?? {});
        response.end(answer.body ?? '');
        return;
      case 'echo': {
        const echoed = request.headers['x-echo'];
        response.writeHead(200, { 'Content-Type': request.headers['content-type'] ?? 'text/plain', ...(typeof echoed === 'string' ? { 'X-Echoed': echoed } : {}) });
        response.end(body);
        return;
      }
      case 'hang':
        return;
      case 'reset':
        request.socket.destroy();
        return;
      case 'huge': {
        const total = answer.bytes ?? 2 * 1024 * 1024;
        response.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        const block = Buffer.alloc(64 * 1024, 0x61);
        let sent = 0;
        const pump = (): void => {
          while (sent < total) {
            const piece = block.subarray(0, Math.min(block.length, total - sent));
            sent += piece.length;
            if (!response.write(piece)) {
              response.once('drain', pump);
              return;
            }
          }
          response.end();
        };
        response.on('error', () => undefined);
        pump();
        return;
      }
    }
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
