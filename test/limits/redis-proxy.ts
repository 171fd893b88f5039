import net from 'node:net';

/** A port on 127.0.0.1 that nothing listens on. */
export async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as net.AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/**
 * A TCP relay on 127.0.0.1 in front of the real Redis, so a test can take Redis away from Coffer
 * (every connection cut, the port closed) and give it back on the same port, as an outage does.
 * Bytes pass through unchanged: Coffer speaks the real protocol to the real server.
 */
export class RedisOutage {
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();

  private constructor(
    readonly port: number,
    private readonly target: { host: string; port: number; database: string },
  ) {}

  static async start(redisUrl: string): Promise<RedisOutage> {
    const url = new URL(redisUrl);
    // The database index of the test's URL (/2) is kept, so the app and the test see the same keys.
    const relay = new RedisOutage(await closedPort(), { host: url.hostname, port: Number(url.port || 6379), database: url.pathname.replace(/^\//, '') });
    await relay.restore();
    return relay;
  }

  /** The relay's URL with the test's key prefix (ioredis reads options from the query). */
  url(keyPrefix: string): string {
    return `redis://127.0.0.1:${this.port}/${this.target.database}?keyPrefix=${encodeURIComponent(keyPrefix)}`;
  }

  /** Redis goes away: connections are cut and new ones refused. */
  async cut(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server !== null) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Redis is back on the same port. */
  async restore(): Promise<void> {
    if (this.server !== null) return;
    const server = net.createServer((client) => {
      const upstream = net.connect(this.target);
      for (const socket of [client, upstream]) {
        this.sockets.add(socket);
        socket.on('error', () => undefined);
        socket.on('close', () => {
          this.sockets.delete(socket);
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.server = server;
  }

  close(): Promise<void> {
    return this.cut();
  }
}
