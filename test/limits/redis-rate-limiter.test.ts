import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { FallbackRateLimiter } from '../../src/limits/fallback-rate-limiter.js';
import { MemoryRateLimiter, type RateLimiter } from '../../src/limits/rate-limiter.js';
import { RedisRateLimiter } from '../../src/limits/redis-rate-limiter.js';
import { SharedStateStatus, type SharedStateChange } from '../../src/limits/shared-state-status.js';
import { startServer } from '../helpers/server.js';
import { keysUnder, redisUrl, twoRedisClients } from '../helpers/redis.js';
import { freshKey, rateLimiterContract, spend, T0 } from './rate-limiter-contract.js';
import { closedPort, RedisOutage } from './redis-proxy.js';

/**
 * The rate limits shared through the real Redis (COFFER_TEST_REDIS_URL; unreachable is a
 * failure, never a skip): the limiter contract, one budget for two nodes under concurrency,
 * expiring keys, no card digits in any key; and Redis unreachable: the node serves with limits in
 * its own memory, says so once in the logs and in /readyz (still 200), and returns to Redis.
 */

const REDIS_URL = redisUrl ?? 'redis://127.0.0.1:6379';
const withRedis = redisUrl !== null;
/** Every key this run writes starts with this; all are deleted afterwards. */
const RUN_PREFIX = `coffer:test:ratelimit:${randomBytes(6).toString('hex')}:`;
/** The app's own key space under a prefix (the ioredis keyPrefix option, read from the URL). */
const APP_PREFIX = `${RUN_PREFIX}app:`;
const appRedisUrl = (base = REDIS_URL) => `${base.replace(/\/?$/, '/')}?keyPrefix=${encodeURIComponent(APP_PREFIX)}`;
const MINUTE = 60_000;

const redis = twoRedisClients(RUN_PREFIX);
const useRedis = redis.use;

if (withRedis) rateLimiterContract('RedisRateLimiter', () => new RedisRateLimiter(redis.a, RUN_PREFIX), useRedis);

if (withRedis) describe('RedisRateLimiter: one budget for every node', () => {
  useRedis();

  it('of 200 concurrent requests over two nodes in the same millisecond, exactly the limit pass', async () => {
    const nodes: RateLimiter[] = [new RedisRateLimiter(redis.a, RUN_PREFIX), new RedisRateLimiter(redis.b, RUN_PREFIX)];
    const check = { key: freshKey(), limit: 50, windowMs: MINUTE };
    const results = await Promise.all(Array.from({ length: 200 }, (_, i) => (nodes[i % 2] as RateLimiter).consume([check], T0)));
    expect(results.filter((result) => result.allowed)).toHaveLength(50);
    expect(await redis.a.zcard(`${RUN_PREFIX}${check.key}`)).toBe(50);
    // Every allowed request saw a distinct remaining count: the decisions were serialised.
    const remaining = results.filter((result) => result.allowed).map((result) => result.verdicts[0]?.remaining);
    expect(new Set(remaining).size).toBe(50);
  });

  it('a request spread over several budgets is all or nothing across nodes', async () => {
    const nodes: RateLimiter[] = [new RedisRateLimiter(redis.a, RUN_PREFIX), new RedisRateLimiter(redis.b, RUN_PREFIX)];
    const tight = { key: freshKey(), limit: 10, windowMs: MINUTE };
    const loose = { key: freshKey(), limit: 1000, windowMs: MINUTE };
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => (nodes[i % 2] as RateLimiter).consume([tight, loose], T0)));
    expect(results.filter((result) => result.allowed)).toHaveLength(10);
    expect(await redis.a.zcard(`${RUN_PREFIX}${loose.key}`)).toBe(10);
  });

  it('each key expires one window after its newest request; a refused request writes nothing', async () => {
    const limiter = new RedisRateLimiter(redis.a, RUN_PREFIX);
    const day = { key: freshKey(), limit: 2, windowMs: 86_400_000 };
    expect(await spend(limiter, [day], 2, T0)).toBe(2);
    const ttl = await redis.a.pttl(`${RUN_PREFIX}${day.key}`);
    expect(ttl).toBeGreaterThan(86_400_000 - 10_000);
    expect(ttl).toBeLessThanOrEqual(86_400_000);
    const untouched = { key: freshKey(), limit: 5, windowMs: MINUTE };
    expect((await limiter.consume([day, untouched], T0)).allowed).toBe(false);
    expect(await redis.a.exists(`${RUN_PREFIX}${untouched.key}`)).toBe(0);
  });
});

describe('FallbackRateLimiter with Redis unreachable', () => {
  it('counts in this node’s memory, fast, and reports the outage once', async () => {
    const dead = new Redis({ host: '127.0.0.1', port: await closedPort(), enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    dead.on('error', () => undefined);
    try {
      const status = new SharedStateStatus();
      const changes: SharedStateChange[] = [];
      status.onChange((change) => changes.push(change));
      const limiter = new FallbackRateLimiter(new RedisRateLimiter(dead, RUN_PREFIX), new MemoryRateLimiter(), status);
      const check = { key: freshKey(), limit: 5, windowMs: MINUTE };
      const started = performance.now();
      expect(await spend(limiter, [check], 20, T0)).toBe(5);
      expect(await spend(limiter, [check], 5, T0 + MINUTE)).toBe(5);
      expect(performance.now() - started).toBeLessThan(1_000);
      expect(changes).toHaveLength(1);
      expect(changes[0]).toMatchObject({ reachable: false });
      expect(status.readiness()).toBe('unreachable: serving with local limits');
    } finally {
      dead.disconnect();
    }
  });

  it('through the app: keeps serving with local limits, logs it once, /readyz stays 200 with the detail', async () => {
    const server = await startServer({
      env: { COFFER_REDIS_URL: `redis://127.0.0.1:${await closedPort()}`, COFFER_RATE_LIMITS: '{"transactions_list": {"limit": 3, "window_seconds": 60}}' },
    });
    try {
      for (let i = 0; i < 3; i += 1) expect((await server.client.get('/v1/transactions.json')).status).toBe(200);
      const refused = await server.client.get('/v1/transactions.json');
      expect(refused.status).toBe(429);
      expect(refused.json().errors[0]).toEqual({ key: 'errors.rate_limited', message: 'Too many requests. Retry after 60 seconds.' });
      const ready = await server.client.get('/readyz', { auth: null });
      expect(ready.status).toBe(200);
      expect(ready.json()).toEqual({ status: 'ready', store: 'ok', redis: 'unreachable: serving with local limits' });
      expect(server.logs.filter((line) => line.includes('Redis unreachable'))).toHaveLength(1);
      expect(JSON.parse(server.logs.find((line) => line.includes('Redis unreachable')) as string)).toMatchObject({ level: 40, redis: 'unreachable' });
    } finally {
      await server.close();
    }
  });
});

if (withRedis) describe('the rate limits through the app, in Redis', () => {
  useRedis();

  it('lives in Redis: another node spending the same environment’s budget refuses the app', async () => {
    const server = await startServer({ env: { COFFER_REDIS_URL: appRedisUrl(), COFFER_RATE_LIMITS: '{"transactions_list": {"limit": 5, "window_seconds": 60}}' } });
    try {
      const ready = await server.client.get('/readyz', { auth: null });
      expect(ready.json()).toEqual({ status: 'ready', store: 'ok', redis: 'ok' });
      for (let i = 0; i < 3; i += 1) expect((await server.client.get('/v1/transactions.json')).status).toBe(200);
      const key = `{env:${server.init.environment_key}}:transactions_list`;
      expect(await redis.a.zcard(`${APP_PREFIX}coffer:ratelimit:${key}`)).toBe(3);
      const otherNode = new RedisRateLimiter(redis.b, `${APP_PREFIX}coffer:ratelimit:`);
      expect(await spend(otherNode, [{ key, limit: 5, windowMs: MINUTE }], 2, Date.now())).toBe(2);
      const refused = await server.client.get('/v1/transactions.json');
      expect(refused.status).toBe(429);
      expect(refused.headers['ratelimit-remaining']).toBe('0');
    } finally {
      await server.close();
    }
  });

  it('never puts card digits in a key: the BIN keys are keyed hashes', async () => {
    const server = await startServer({ env: { COFFER_REDIS_URL: appRedisUrl(), COFFER_RATE_LIMITS: '{}' } });
    try {
      const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
      const live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
      const res = await live.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { first_name: 'A', last_name: 'B', number: '4242424242424242', month: 12, year: 2035 } } });
      expect(res.status).toBe(201);
      expect(res.headers['ratelimit-limit']).toBe('30');
      const keys = (await keysUnder(redis.a, `${APP_PREFIX}coffer:ratelimit:{env:${production.key}}`)).map((key) => key.slice(APP_PREFIX.length));
      expect(keys.sort()).toEqual([
        expect.stringMatching(new RegExp(`^coffer:ratelimit:\\{env:${production.key}\\}:payment_methods_bin6_last4:card:[0-9a-f]{36}$`)),
        expect.stringMatching(new RegExp(`^coffer:ratelimit:\\{env:${production.key}\\}:payment_methods_bin8_last4:card:[0-9a-f]{36}$`)),
        `coffer:ratelimit:{env:${production.key}}:payment_methods_client_ip:ip:127.0.0.1`,
      ]);
      for (const key of keys) expect(key).not.toMatch(/424242|42424242|4242424242/);
    } finally {
      await server.close();
    }
  });

  it('Redis goes away and comes back: local limits meanwhile, one log line each way, /readyz says which', async () => {
    const outage = await RedisOutage.start(REDIS_URL);
    const server = await startServer({
      env: { COFFER_REDIS_URL: outage.url(APP_PREFIX), COFFER_RATE_LIMITS: '{"transactions_list": {"limit": 3, "window_seconds": 600}}' },
    });
    const list = () => server.client.get('/v1/transactions.json');
    const redisDetail = async () => (await server.client.get('/readyz', { auth: null })).json().redis as string;
    try {
      expect(await redisDetail()).toBe('ok');
      for (let i = 0; i < 3; i += 1) expect((await list()).status).toBe(200);
      expect((await list()).status).toBe(429);

      await outage.cut();
      // This node's memory has its own budget: 3 more, then 429 again. Still serving.
      const first = await list();
      expect(first.status).toBe(200);
      expect(first.headers['ratelimit-remaining']).toBe('2');
      for (let i = 0; i < 2; i += 1) expect((await list()).status).toBe(200);
      expect((await list()).status).toBe(429);
      const ready = await server.client.get('/readyz', { auth: null });
      expect(ready.status).toBe(200);
      expect(ready.json().redis).toBe('unreachable: serving with local limits');

      await outage.restore();
      const deadline = Date.now() + 10_000;
      while ((await redisDetail()) !== 'ok' && Date.now() < deadline) await sleep(100);
      expect(await redisDetail()).toBe('ok');
      // Back on the shared budget, which the first three still fill.
      const shared = await list();
      expect(shared.status).toBe(429);
      expect(await redis.a.zcard(`${APP_PREFIX}coffer:ratelimit:{env:${server.init.environment_key}}:transactions_list`)).toBe(3);
      expect(server.logs.filter((line) => line.includes('Redis unreachable'))).toHaveLength(1);
      expect(server.logs.filter((line) => line.includes('Redis reachable again'))).toHaveLength(1);
    } finally {
      await server.close();
      await outage.close();
    }
  });
});
