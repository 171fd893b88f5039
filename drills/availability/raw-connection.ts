import net from 'node:net';
import tls from 'node:tls';

/** One HTTP/1.1 response as read off a socket. */
export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * A connection where the caller decides exactly which bytes go out and when: a request whose body
 * is withheld, sent in part, or never finished. Plain HTTP or TLS, as the server's URL says. The
 * availability drill's attacks and the request-body tests both speak HTTP through it.
 */
export class RawConnection {
  private received = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  /** Resolves when the server closes (or resets) the connection. */
  readonly closed: Promise<void>;

  private constructor(readonly socket: net.Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.received = Buffer.concat([this.received, chunk]);
      this.notify();
    });
    // A reset after the answer is the server refusing the rest of the body: not a test failure.
    socket.on('error', () => undefined);
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    void this.closed.then(() => this.notify());
  }

  static open(baseUrl: string, ca: string | null): Promise<RawConnection> {
    const url = new URL(baseUrl);
    return new Promise((resolve, reject) => {
      const socket =
        url.protocol === 'https:'
          ? tls.connect({ host: url.hostname, port: Number(url.port), ca: ca ?? undefined, servername: 'localhost' }, () => resolve(new RawConnection(socket)))
          : net.connect({ host: url.hostname, port: Number(url.port) }, () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** Writes the request line and headers (Host is added); the body, if any, is up to the caller. */
  head(method: string, path: string, headers: Record<string, string | number>): this {
    const lines = [`${method} ${path} HTTP/1.1`, 'Host: localhost', ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)];
    this.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    return this;
  }

  write(bytes: string | Buffer): this {
    if (!this.socket.destroyed) this.socket.write(bytes);
    return this;
  }

  /** Resolves once what was written has left (or the connection is gone). */
  async flushed(): Promise<void> {
    while (!this.socket.destroyed && this.socket.writableLength > 0) {
      await new Promise<void>((resolve) => {
        const done = () => {
          this.socket.off('drain', done);
          this.socket.off('close', done);
          resolve();
        };
        this.socket.once('drain', done);
        this.socket.once('close', done);
      });
    }
  }

  /** Whether the connection is gone (closed by either side). */
  get isClosed(): boolean {
    return this.socket.destroyed;
  }

  /**
   * The next complete response (by its Content-Length), or an error when none has arrived after
   * `timeoutMs`: the server is still waiting for the body.
   */
  async response(timeoutMs = 5_000): Promise<RawResponse> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const parsed = this.parse();
      if (parsed !== null) return parsed;
      if (this.socket.destroyed && this.received.length === 0) throw new Error('the connection closed without a response');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no response within ${timeoutMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  destroy(): void {
    this.socket.destroy();
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  private parse(): RawResponse | null {
    const text = this.received.toString('latin1');
    const end = text.indexOf('\r\n\r\n');
    if (end === -1) return null;
    const [statusLine = '', ...lines] = text.slice(0, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
    }
    const length = Number(headers['content-length'] ?? 0);
    if (this.received.length < end + 4 + length) return null;
    const body = this.received.subarray(end + 4, end + 4 + length).toString('utf8');
    this.received = this.received.subarray(end + 4 + length);
    return { status: Number(statusLine.split(' ')[1]), headers, body };
  }
}

/** `Authorization: Basic …` for a user and password. */
export function basicAuth(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}
