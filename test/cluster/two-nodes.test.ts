import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { Agent, request } from 'undici';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDatabase, postgresUrl } from '../helpers/postgres.js';
import { redisUrl } from '../helpers/redis.js';
import { ensureBuilt, killAllServed, repoRoot, startServe, type ServedCoffer } from '../helpers/spawn.js';
import { tempDir } from '../helpers/temp.js';

/**
 * Scale-out proof: two real `coffer serve` processes on one PostgreSQL database and one Redis
 * (a key prefix of this run's own), requests alternated between them. Limits hold in total; an
 * idempotent request replayed on the other node returns the stored response; a transaction
 * made on one is listed on the other; the cached-card sweep, running on both, redacts each card
 * once. Runs when COFFER_TEST_DATABASE_URL and COFFER_TEST_REDIS_URL are set (both required in CI).
 */

const VISA = '4111111111111111';
const SWEEP_MS = 200;
const LIMITS = {
  transactions_list: { limit: 10, window_seconds: 60 },
  payment_methods_client_ip: { limit: 10, window_seconds: 60 },
};

describe('the deployment guide', () => {
  it('names every setting the nodes of a cluster share or need', () => {
    const guide = fs.readFileSync(path.join(repoRoot, 'docs', 'deployment.md'), 'utf8');
    for (const setting of ['COFFER_DATABASE_URL', 'COFFER_REDIS_URL', 'COFFER_MASTER_KEY', 'COFFER_TRUST_PROXY', 'COFFER_RATE_LIMITS', 'COFFER_SWEEP_INTERVAL', 'keyPrefix', '/readyz']) {
      expect(guide, setting).toContain(setting);
    }
  });
});

interface Reply {
  status: number;
  headers: Record<string, string>;
  text: string;
  json: any;
}

/** One node as a client sees it: plain HTTP (the load balancer terminates TLS), Basic auth. */
function nodeClient(served: ServedCoffer, auth: { user: string; password: string }) {
  const agent = new Agent({ connections: 32 });
  const authorization = `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}`;
  return {
    agent,
    async call(method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
      const response = await request(`${served.url}${urlPath}`, {
        method: method as 'GET',
        dispatcher: agent,
        headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await response.body.text();
      const flat: Record<string, string> = {};
      for (const [name, value] of Object.entries(response.headers)) flat[name] = String(value);
      let json: unknown = null;
      try {
        json = JSON.parse(text);
      } catch {
        // left null; callers assert on the status first
      }
      return { status: response.statusCode, headers: flat, text, json };
    },
  };
}

type NodeClient = ReturnType<typeof nodeClient>;

const configured = postgresUrl !== null && redisUrl !== null;

if (configured) describe('two Coffer nodes on one PostgreSQL and one Redis', () => {
  // Not useCofferProcesses(): its afterEach kills the served children, and these two live for every test.
  let cleanups: Array<() => Promise<void>> = [];
  const defer = (cleanup: () => Promise<void>) => cleanups.push(cleanup);
  afterEach(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
    cleanups = [];
  });
  const keyPrefix = `coffer:test:cluster:${randomBytes(6).toString('hex')}:`;
  let nodes: [ServedCoffer, ServedCoffer];
  let admin: [NodeClient, NodeClient];
  let credentials: { user: string; password: string };
  let redis: Redis;
  let drop: () => Promise<void>;
  const temps: Array<{ cleanup(): void }> = [];

  beforeAll(async () => {
    await ensureBuilt();
    redis = new Redis(redisUrl as string, { lazyConnect: true, maxRetriesPerRequest: 1, retryStrategy: () => null });
    await redis.connect();
    const database = await createPostgresDatabase();
    drop = database.drop;
    const shared = {
      COFFER_DATABASE_URL: database.url,
      COFFER_REDIS_URL: `${(redisUrl as string).replace(/\/?$/, '/')}?keyPrefix=${encodeURIComponent(keyPrefix)}`,
      COFFER_MASTER_KEY: randomBytes(32).toString('base64'),
      COFFER_TLS: 'off',
      COFFER_LOG_LEVEL: 'info',
      COFFER_CACHE_TTL: '1',
      COFFER_SWEEP_INTERVAL: `${SWEEP_MS}ms`,
      COFFER_RATE_LIMITS: JSON.stringify(LIMITS),
    };
    const start = () => {
      const temp = tempDir('coffer-node-');
      temps.push(temp);
      return startServe({ ...shared, COFFER_DATA_DIR: temp.dir });
    };
    // The first initialises the empty database; the second finds it initialised.
    const first = await start();
    const second = await start();
    expect(first.init, first.stderr()).not.toBeNull();
    expect(second.init).toBeNull();
    nodes = [first, second];
    credentials = { user: first.init!.environment_key, password: first.init!.access_secret };
    admin = [nodeClient(first, credentials), nodeClient(second, credentials)];
  }, 180_000);

  afterAll(async () => {
    await killAllServed();
    for (const client of admin ?? []) await client.agent.close();
    if (redis !== undefined) {
      const keys = await redis.keys(`${keyPrefix}*`);
      if (keys.length > 0) await redis.del(...keys);
      redis.disconnect();
    }
    await drop?.();
    for (const temp of temps) temp.cleanup();
  });

  /** An environment of its own for a test (its own budgets), and a client of it per node. */
  async function freshEnvironment(): Promise<[NodeClient, NodeClient]> {
    const res = await admin[0].call('POST', '/v1/environments.json', { environment: { name: `env-${randomBytes(3).toString('hex')}` } });
    expect(res.status, res.text).toBe(201);
    const auth = { user: res.json.environment.key as string, password: credentials.password };
    const clients: [NodeClient, NodeClient] = [nodeClient(nodes[0], auth), nodeClient(nodes[1], auth)];
    defer(async () => {
      for (const client of clients) await client.agent.close();
    });
    return clients;
  }

  const retainedCard = { payment_method: { credit_card: { first_name: 'Joe', last_name: 'Jones', number: VISA, month: 3, year: 2035 }, retained: true } };

  it('limits hold in total: requests spread over both nodes get exactly the budget', async () => {
    const clients = await freshEnvironment();
    const lists = await Promise.all(Array.from({ length: 30 }, (_, i) => clients[i % 2]!.call('GET', '/v1/transactions.json')));
    expect(lists.filter((res) => res.status === 200)).toHaveLength(10);
    const refused = lists.filter((res) => res.status === 429);
    expect(refused).toHaveLength(20);
    expect(refused[0]!.json.errors[0].key).toBe('errors.rate_limited');
    expect(Number(refused[0]!.headers['retry-after'])).toBeGreaterThan(0);
    // Both nodes refused some: the budget is one, not one per node.
    expect(new Set(lists.map((res, i) => (res.status === 429 ? i % 2 : -1)))).toEqual(new Set([-1, 0, 1]));

    const cards = await Promise.all(Array.from({ length: 24 }, (_, i) => clients[i % 2]!.call('POST', '/v1/payment_methods.json', retainedCard)));
    expect(cards.filter((res) => res.status === 201)).toHaveLength(10);
    expect(cards.filter((res) => res.status === 429)).toHaveLength(14);
    const stored = await clients[1].call('GET', '/v1/payment_methods.json?count=100');
    expect(stored.json.payment_methods).toHaveLength(10);
    // The counters are in Redis, under this run's prefix.
    expect((await redis.keys(`${keyPrefix}coffer:ratelimit:*`)).length).toBeGreaterThanOrEqual(2);
  });

  it('an idempotent request replayed on the other node returns the stored response', async () => {
    const clients = await freshEnvironment();
    const key = `cluster-${randomBytes(6).toString('hex')}`;
    const first = await clients[0].call('POST', '/v1/payment_methods.json', retainedCard, { 'Idempotency-Key': key });
    expect(first.status, first.text).toBe(201);
    const replay = await clients[1].call('POST', '/v1/payment_methods.json', retainedCard, { 'Idempotency-Key': key });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
    const stored = await clients[1].call('GET', '/v1/payment_methods.json');
    expect(stored.json.payment_methods).toHaveLength(1);
  });

  it('a transaction made on one node is listed on the other', async () => {
    const clients = await freshEnvironment();
    const gateway = await clients[0].call('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } });
    expect(gateway.status).toBe(201);
    const card = await clients[1].call('POST', '/v1/payment_methods.json', retainedCard);
    expect(card.status).toBe(201);
    const purchase = await clients[0].call('POST', `/v1/gateways/${gateway.json.gateway.token}/purchase.json`, {
      transaction: { amount: 100, currency_code: 'USD', payment_method_token: card.json.transaction.payment_method.token },
    });
    expect(purchase.status, purchase.text).toBe(200);
    const listed = await clients[1].call('GET', '/v1/transactions.json');
    expect(listed.status).toBe(200);
    const tokens = (listed.json.transactions as Array<{ token: string; transaction_type: string }>).map((t) => t.token);
    expect(tokens).toContain(purchase.json.transaction.token);
  });

  it('the cached-card sweep runs on both nodes and redacts each card once', async () => {
    const clients = await freshEnvironment();
    const cached = { payment_method: { credit_card: { first_name: 'Joe', last_name: 'Jones', number: VISA, month: 3, year: 2035 } } };
    const tokens: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      const res = await clients[i % 2]!.call('POST', '/v1/payment_methods.json', cached);
      expect(res.status, res.text).toBe(201);
      tokens.push(res.json.transaction.payment_method.token);
    }
    /** What each node's sweeps redacted, from their logs (one JSON line per sweep that did something). */
    const redactedBy = (node: ServedCoffer) =>
      node
        .stdout()
        .split('\n')
        .filter((line) => line.includes('"msg":"cache sweep"'))
        .reduce((sum, line) => sum + (JSON.parse(line).redacted as number), 0);
    const deadline = Date.now() + 15_000;
    while (redactedBy(nodes[0]) + redactedBy(nodes[1]) < tokens.length && Date.now() < deadline) await sleep(SWEEP_MS);
    // A few more rounds on both nodes: nothing is redacted twice.
    await sleep(5 * SWEEP_MS);
    expect(redactedBy(nodes[0]) + redactedBy(nodes[1])).toBe(tokens.length);
    for (const [i, token] of tokens.entries()) {
      const shown = await clients[(i + 1) % 2]!.call('GET', `/v1/payment_methods/${token}.json`);
      expect(shown.json.payment_method.storage_state).toBe('redacted');
    }
  });
});
