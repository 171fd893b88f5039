import { createHmac } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { registerBodyDecoder } from '../../src/http/body.js';
import { errorHandler } from '../../src/http/errors.js';
import { clientKey, headlineVerdict, registerRateLimits } from '../../src/http/rate-limit.js';
import { RATE_LIMIT_DEFAULTS, type RateLimitName, type RateLimitRules } from '../../src/limits/rate-limit-policy.js';
import { MemoryRateLimiter } from '../../src/limits/rate-limiter.js';
import { createLogger } from '../../src/logger.js';
import type { AuthContext } from '../../src/services/auth.service.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { freshKey, rateLimiterContract, spend, T0 } from './rate-limiter-contract.js';

/**
 * The one-node limiter (memory) against the shared contract, its bounds, and the HTTP hook on a
 * real Fastify instance: every API.md §7 limit at its default edge with an injected clock, the
 * RateLimit-* headers, the 429 body, per-environment and per-client-IP keys (IPv6 by /64), and
 * the tokenization limits keyed by the card in the body.
 */

rateLimiterContract('MemoryRateLimiter', () => new MemoryRateLimiter());

describe('MemoryRateLimiter: bounded memory', () => {
  it('drops keys whose window has passed, so idle clients leave nothing behind', async () => {
    const limiter = new MemoryRateLimiter();
    for (let i = 0; i < 500; i += 1) await limiter.consume([{ key: freshKey(), limit: 3, windowMs: 60_000 }], T0);
    expect(limiter.size).toBe(500);
    await limiter.consume([{ key: freshKey(), limit: 3, windowMs: 60_000 }], T0 + 60_000);
    expect(limiter.size).toBe(1);
  });

  it('never holds more than the limit per key, however many are refused', async () => {
    const limiter = new MemoryRateLimiter();
    const check = { key: freshKey(), limit: 5, windowMs: 60_000 };
    expect(await spend(limiter, [check], 1_000, T0)).toBe(5);
    expect((await limiter.consume([check], T0)).verdicts[0]).toMatchObject({ remaining: 0, exhausted: true });
    expect(await spend(limiter, [check], 5, T0 + 60_000)).toBe(5);
  });

  it('keeps counting right when the clock steps back', async () => {
    const limiter = new MemoryRateLimiter();
    const check = { key: freshKey(), limit: 2, windowMs: 60_000 };
    expect(await spend(limiter, [check], 1, T0 + 30_000)).toBe(1);
    expect(await spend(limiter, [check], 1, T0)).toBe(1);
    expect(await spend(limiter, [check], 1, T0 + 30_000)).toBe(0);
    // The one counted at T0 leaves first.
    expect(await spend(limiter, [check], 2, T0 + 60_000)).toBe(1);
  });
});

describe('clientKey', () => {
  it.each([
    ['203.0.113.7', '203.0.113.7'],
    ['::ffff:203.0.113.7', '203.0.113.7'],
    ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
    ['2001:0db8:0001:0002:ffff:0:0:1', '2001:db8:1:2::/64'],
    ['2001:db8::1', '2001:db8:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['2001:db8:1:2::10.0.0.1', '2001:db8:1:2::/64'],
  ])('%s counts as %s', (address, key) => {
    expect(clientKey(address)).toBe(key);
  });
});

describe('headlineVerdict', () => {
  const verdict = (remaining: number, resetMs: number, exhausted = false) => ({ limit: 10, remaining, resetMs, exhausted });

  it('shows the budget with the least room when allowed (the longer wait on a tie)', () => {
    expect(headlineVerdict({ allowed: true, verdicts: [verdict(5, 1_000), verdict(2, 500), verdict(2, 900)] })).toEqual(verdict(2, 900));
  });

  it('shows the spent budget that stays spent longest when refused', () => {
    expect(headlineVerdict({ allowed: false, verdicts: [verdict(3, 90_000), verdict(0, 5_000, true), verdict(0, 40_000, true)] })).toEqual(verdict(0, 40_000, true));
  });
});

/** Every limit name; those keyed by a card take a card number in the body. */
const NAMES = Object.keys(RATE_LIMIT_DEFAULTS) as RateLimitName[];
const CARD_KEYED = new Set<RateLimitName>(['payment_methods_bin6_last4', 'payment_methods_bin8_last4']);

describe('the rate-limit hook on a real Fastify instance', () => {
  let app: FastifyInstance;
  let clock: ManualClock;
  afterEach(() => app?.close());

  /** A Fastify with the hook and one route per limit; X-Environment stands in for authentication. */
  async function start(overrides: Partial<RateLimitRules> = {}): Promise<void> {
    clock = new ManualClock(T0);
    app = Fastify();
    app.decorateRequest('auth', null);
    registerBodyDecoder(app);
    app.setErrorHandler(errorHandler(createLogger('silent')));
    app.addHook('onRequest', async (request) => {
      const environment = request.headers['x-environment'];
      if (typeof environment === 'string') request.auth = { environment: { key: environment } } as AuthContext;
    });
    registerRateLimits(app, {
      limiter: new MemoryRateLimiter(),
      rules: { ...RATE_LIMIT_DEFAULTS, ...overrides },
      clock,
      trustProxy: [],
      hashCardKey: async (environmentKey, material) => createHmac('sha256', 'test key').update(`${environmentKey}|${material}`).digest('hex'),
    });
    for (const name of NAMES) app.post(`/limited/${name}`, { config: { rateLimits: [name] } }, async () => ({ ok: true }));
    app.post('/tokenize', { config: { rateLimits: ['payment_methods_bin6_last4', 'payment_methods_bin8_last4', 'payment_methods_client_ip'] } }, async () => ({ ok: true }));
    app.get('/unlimited', async () => ({ ok: true }));
    await app.ready();
  }

  const call = (path: string, options: { environment?: string; address?: string; card?: string } = {}) =>
    app.inject({
      method: 'POST',
      url: path,
      remoteAddress: options.address ?? '198.51.100.1',
      // Bare paths answer errors in XML unless Accept asks for JSON (docs/wire-compatibility.md).
      headers: { 'content-type': 'application/json', accept: 'application/json', ...(options.environment === undefined ? {} : { 'x-environment': options.environment }) },
      payload: JSON.stringify({ payment_method: options.card === undefined ? { email: 'a@example.com' } : { credit_card: { number: options.card } } }),
    });

  it.each(NAMES)('%s: N allowed with headers counting down, N+1 refused with 429 and Retry-After, allowed again after the window', async (name) => {
    await start();
    const { limit, windowSeconds } = RATE_LIMIT_DEFAULTS[name];
    const options = { environment: 'envA', ...(CARD_KEYED.has(name) ? { card: '4111 1111 1111 1111' } : {}) };
    for (let i = 1; i <= limit; i += 1) {
      const res = await call(`/limited/${name}`, options);
      expect(res.statusCode).toBe(200);
      if (i === 1 || i === limit) {
        expect(res.headers['ratelimit-limit']).toBe(String(limit));
        expect(res.headers['ratelimit-remaining']).toBe(String(limit - i));
        expect(res.headers['ratelimit-reset']).toBe(String(windowSeconds));
      }
    }
    const refused = await call(`/limited/${name}`, options);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['retry-after']).toBe(String(windowSeconds));
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(refused.headers['ratelimit-reset']).toBe(String(windowSeconds));
    expect(refused.json()).toEqual({ errors: [{ key: 'errors.rate_limited', message: `Too many requests. Retry after ${windowSeconds} seconds.` }] });
    clock.advance(windowSeconds * 1000 - 1);
    const lastMoment = await call(`/limited/${name}`, options);
    expect(lastMoment.statusCode).toBe(429);
    expect(lastMoment.headers['retry-after']).toBe('1');
    expect(lastMoment.json().errors[0].message).toBe('Too many requests. Retry after 1 second.');
    clock.advance(1);
    const again = await call(`/limited/${name}`, options);
    expect(again.statusCode).toBe(200);
    expect(again.headers['ratelimit-remaining']).toBe(String(limit - 1));
  });

  it('routes without limits carry no RateLimit headers; a lifted limit neither counts nor shows', async () => {
    await start({ transactions_list: null });
    const free = await app.inject({ method: 'GET', url: '/unlimited' });
    expect(free.headers['ratelimit-limit']).toBeUndefined();
    for (let i = 0; i < 40; i += 1) {
      const res = await call('/limited/transactions_list', { environment: 'envA' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  it('a route with several limits: all lifted, nothing is spent or shown; one left in force still counts', async () => {
    await start({ payment_methods_bin6_last4: null, payment_methods_bin8_last4: null, payment_methods_client_ip: null });
    for (let i = 0; i < 40; i += 1) {
      const res = await call('/tokenize', { environment: 'envA', address: '192.0.2.1', card: '4111111111111111' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
    await app.close();
    await start({ payment_methods_bin6_last4: null, payment_methods_bin8_last4: null, payment_methods_client_ip: { limit: 2, windowSeconds: 60 } });
    const first = await call('/tokenize', { environment: 'envA', address: '192.0.2.1' });
    expect(first.headers['ratelimit-remaining']).toBe('1');
    expect((await call('/tokenize', { environment: 'envA', address: '192.0.2.1' })).statusCode).toBe(200);
    expect((await call('/tokenize', { environment: 'envA', address: '192.0.2.1' })).statusCode).toBe(429);
  });

  it('keeps environments apart: one never spends another’s budget', async () => {
    await start();
    for (let i = 0; i < 30; i += 1) expect((await call('/limited/transactions_list', { environment: 'envA' })).statusCode).toBe(200);
    expect((await call('/limited/transactions_list', { environment: 'envA' })).statusCode).toBe(429);
    const other = await call('/limited/transactions_list', { environment: 'envB' });
    expect(other.statusCode).toBe(200);
    expect(other.headers['ratelimit-remaining']).toBe('29');
  });

  it('keys an unauthenticated route (receivers_options) by client IP, IPv6 by its /64', async () => {
    await start();
    for (let i = 0; i < 30; i += 1) expect((await call('/limited/receivers_options', { address: '203.0.113.9' })).statusCode).toBe(200);
    expect((await call('/limited/receivers_options', { address: '203.0.113.9' })).statusCode).toBe(429);
    expect((await call('/limited/receivers_options', { address: '::ffff:203.0.113.9' })).statusCode).toBe(429);
    expect((await call('/limited/receivers_options', { address: '203.0.113.10' })).statusCode).toBe(200);
    for (let i = 0; i < 30; i += 1) expect((await call('/limited/receivers_options', { address: `2001:db8:1:2::${i + 1}` })).statusCode).toBe(200);
    expect((await call('/limited/receivers_options', { address: '2001:db8:1:2:ffff::9' })).statusCode).toBe(429);
    expect((await call('/limited/receivers_options', { address: '2001:db8:1:3::1' })).statusCode).toBe(200);
  });

  it('counts tokenization per client IP within the environment; a body without a card counts only there', async () => {
    await start({ payment_methods_bin8_last4: { limit: 2, windowSeconds: 86_400 } });
    for (let i = 0; i < 30; i += 1) expect((await call('/tokenize', { environment: 'envA', address: '192.0.2.1' })).statusCode).toBe(200);
    const refused = await call('/tokenize', { environment: 'envA', address: '192.0.2.1' });
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['ratelimit-limit']).toBe('30');
    // The 30 requests without a card took nothing from the card budgets of another address…
    const card = await call('/tokenize', { environment: 'envA', address: '192.0.2.2', card: '4111111111111111' });
    expect(card.statusCode).toBe(200);
    // …and the most restrictive budget is the one shown: 1 of 2 left for this BIN + last four.
    expect(card.headers['ratelimit-limit']).toBe('2');
    expect(card.headers['ratelimit-remaining']).toBe('1');
    expect(card.headers['ratelimit-reset']).toBe('86400');
    // The same address in another environment has its own budget.
    expect((await call('/tokenize', { environment: 'envB', address: '192.0.2.1' })).statusCode).toBe(200);
  });

  it('keys the BIN limits by the card’s first six (eight) and last four, whatever the formatting', async () => {
    await start({ payment_methods_bin8_last4: { limit: 2, windowSeconds: 86_400 }, payment_methods_bin6_last4: { limit: 3, windowSeconds: 86_400 } });
    const tokenize = (card: string, address: string) => call('/tokenize', { environment: 'envA', address, card });
    // Same first eight and last four (the middle differs): one bin8 budget of 2.
    expect((await tokenize('4111111111111111', '192.0.2.1')).statusCode).toBe(200);
    expect((await tokenize('4111-1111-2222-1111', '192.0.2.2')).statusCode).toBe(200);
    const bin8 = await tokenize('4111 1111 3333 1111', '192.0.2.3');
    expect(bin8.statusCode).toBe(429);
    expect(bin8.headers['ratelimit-limit']).toBe('2');
    // Another eighth digit: a fresh bin8 budget, but the bin6 budget (3) now has one left…
    expect((await tokenize('4111112211111111', '192.0.2.4')).statusCode).toBe(200);
    const bin6 = await tokenize('4111113311111111', '192.0.2.5');
    expect(bin6.statusCode).toBe(429);
    expect(bin6.headers['ratelimit-limit']).toBe('3');
    // …and another last four is another card altogether.
    expect((await tokenize('4111111111114444', '192.0.2.6')).statusCode).toBe(200);
  });
});
