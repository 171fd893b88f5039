import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
/**
 * Redis for tests. COFFER_TEST_REDIS_URL names a server; the suites that need it run only when
 * it is set (so `npm test` passes on a machine with nothing but Node). Configured but
 * unreachable is a failure, never a skip; in CI (CI=true) not configuring it is a failure too.
 */
export const redisUrl = process.env.COFFER_TEST_REDIS_URL ?? null;

if (redisUrl === null && process.env.CI === 'true') {
  throw new Error('CI must set COFFER_TEST_REDIS_URL so the Redis suites run');
}

const TEST_REDIS_URL = redisUrl ?? 'redis://127.0.0.1:6379';

/** Connects a client that fails loudly (and fast) when the configured Redis is not there. */
export async function connectTestRedis(url: string = TEST_REDIS_URL): Promise<Redis> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 3000, maxRetriesPerRequest: 1, retryStrategy: () => null });
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
  } catch (error) {
    client.disconnect();
    throw new Error(`COFFER_TEST_REDIS_URL is set but Redis at ${url} is unreachable: ${(error as Error).message}`);
  }
  return client;
}

/** Every key under `prefix` (SCAN, never KEYS). */
export async function keysUnder(client: Redis, prefix: string): Promise<string[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 1000);
    found.push(...keys);
    cursor = next;
  } while (cursor !== '0');
  return found;
}

/**
 * Two Redis clients standing for two nodes, shared by a test file's suites: `use()` in a suite
 * connects them on first need (suites that do not need Redis run without it); after the file,
 * every key under `prefix` is deleted and both are closed.
 */
export function twoRedisClients(prefix: string): { use(): void; readonly a: Redis; readonly b: Redis } {
  let clients: [Redis, Redis] | null = null;
  let connecting: Promise<void> | null = null;
  afterAll(async () => {
    if (clients === null) return;
    const keys = await keysUnder(clients[0], prefix);
    if (keys.length > 0) await clients[0].del(...keys);
    for (const client of clients) client.disconnect();
  });
  const connected = (): [Redis, Redis] => {
    if (clients === null) throw new Error('twoRedisClients: call use() in the suite first');
    return clients;
  };
  return {
    use: () =>
      beforeAll(async () => {
        connecting ??= (async () => {
          clients = await Promise.all([connectTestRedis(), connectTestRedis()]);
        })();
        await connecting;
      }),
    get a() {
      return connected()[0];
    },
    get b() {
      return connected()[1];
    },
  };
}
