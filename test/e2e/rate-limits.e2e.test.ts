import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { ManualClock, currentWholeSecond } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * API.md §7 over real HTTPS with the default limits and an injected clock: GET transactions (30 a
 * minute per environment) and POST payment_methods (per client IP, per BIN + last four), each at
 * its edge; RateLimit-* headers; 429 errors.rate_limited with Retry-After in JSON and XML;
 * environments apart; a 429 never claims an Idempotency-Key; X-Forwarded-For believed only from
 * COFFER_TRUST_PROXY. The server's leak guard fails the run if a card number reaches a log line.
 */

const VISA = '4111111111111111';
const MINUTE = 60_000;
const DAY = 86_400_000;

const card = (number: string) => ({ payment_method: { credit_card: { first_name: 'Joe', last_name: 'Jones', number, month: 3, year: 2035 } } });

function expectRateLimited(res: ApiResponse, retryAfter: number, limit: number): void {
  expect(res.status, res.text).toBe(429);
  expect(res.headers['retry-after']).toBe(String(retryAfter));
  expect(res.headers['ratelimit-limit']).toBe(String(limit));
  expect(res.headers['ratelimit-remaining']).toBe('0');
  expect(res.headers['ratelimit-reset']).toBe(String(retryAfter));
  const unit = retryAfter === 1 ? 'second' : 'seconds';
  expect(res.json()).toEqual({ errors: [{ key: 'errors.rate_limited', message: `Too many requests. Retry after ${retryAfter} ${unit}.` }] });
}

function expectBudget(res: ApiResponse, limit: number, remaining: number, reset: number): void {
  expect(res.headers['ratelimit-limit']).toBe(String(limit));
  expect(res.headers['ratelimit-remaining']).toBe(String(remaining));
  expect(res.headers['ratelimit-reset']).toBe(String(reset));
}

describe('rate limits with the default rules over HTTPS', () => {
  let server: TestServer;
  let other: ApiClient;
  const clock = new ManualClock(currentWholeSecond());

  beforeAll(async () => {
    server = await startServer({ clock, env: { COFFER_RATE_LIMITS: '{}' } });
    const environment = await server.core.tenancy.createEnvironment(server.init.organization_token, 'second', false);
    other = server.client.withAuth({ user: environment.key, password: server.init.access_secret });
  });
  afterAll(() => server.close());

  it('GET transactions: 30 a minute with headers counting down, the 31st is 429 until the minute has passed', async () => {
    clock.advance(DAY);
    for (let i = 1; i <= 30; i += 1) {
      const res = await server.client.get(i % 2 === 0 ? '/v1/transactions.json' : '/v1/transactions.xml');
      expect(res.status, res.text).toBe(200);
      expectBudget(res, 30, 30 - i, 60);
    }
    expectRateLimited(await server.client.get('/v1/transactions.json'), 60, 30);
    const xml = await server.client.get('/v1/transactions.xml');
    expect(xml.status).toBe(429);
    expect(xml.headers['content-type']).toMatch(/^application\/xml/);
    expect(xml.xml().errors.error).toEqual({ '@_key': 'errors.rate_limited', '#text': 'Too many requests. Retry after 60 seconds.' });
    clock.advance(30_000);
    expectRateLimited(await server.client.get('/v1/transactions.json'), 30, 30);
    clock.advance(30_000 - 1);
    expectRateLimited(await server.client.get('/v1/transactions.json'), 1, 30);
    clock.advance(1);
    const again = await server.client.get('/v1/transactions.json');
    expect(again.status).toBe(200);
    expectBudget(again, 30, 29, 60);
  });

  it('keeps environments apart: a spent budget in one leaves the other’s whole', async () => {
    clock.advance(DAY);
    for (let i = 0; i < 30; i += 1) expect((await server.client.get('/v1/transactions.json')).status).toBe(200);
    expect((await server.client.get('/v1/transactions.json')).status).toBe(429);
    const elsewhere = await other.get('/v1/transactions.json');
    expect(elsewhere.status).toBe(200);
    expectBudget(elsewhere, 30, 29, 60);
    for (let i = 0; i < 30; i += 1) expect((await server.client.sendJson('POST', '/v1/payment_methods.json', card(VISA))).status).toBe(201);
    expect((await server.client.sendJson('POST', '/v1/payment_methods.json', card(VISA))).status).toBe(429);
    const tokenized = await other.sendJson('POST', '/v1/payment_methods.json', card(VISA));
    expect(tokenized.status).toBe(201);
    expectBudget(tokenized, 30, 29, 60);
  });

  it('POST payment_methods: 30 a minute per client IP; the 31st is 429 and vaults nothing', async () => {
    clock.advance(DAY);
    for (let i = 1; i <= 30; i += 1) {
      const res = await server.client.sendJson('POST', '/v1/payment_methods.json', card(VISA));
      expect(res.status, res.text).toBe(201);
      expectBudget(res, 30, 30 - i, 60);
    }
    const count = async () => (await server.core.store.db.selectFrom('payment_methods').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n;
    const before = await count();
    expectRateLimited(await server.client.sendJson('POST', '/v1/payment_methods.json', card(VISA)), 60, 30);
    const xml = await server.client.sendXml('POST', '/v1/payment_methods.xml', `<payment_method><credit_card><number>${VISA}</number></credit_card></payment_method>`);
    expect(xml.status).toBe(429);
    expect(xml.xml().errors.error['@_key']).toBe('errors.rate_limited');
    // A body without a card number counts toward the IP limit too.
    expect((await server.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { email: 'a@example.com' } })).status).toBe(429);
    expect(await count()).toEqual(before);
    clock.advance(MINUTE);
    expect((await server.client.sendJson('POST', '/v1/payment_methods.json', card(VISA))).status).toBe(201);
  });

  /*
   * The other API.md §7 endpoints, 30 a minute each with a budget of their own. Every request that
   * passed authentication counts, whatever its outcome: these send a wrong root or an unknown token
   * (422/404), so nothing is created. receivers_options is public and counted per client IP.
   */
  it.each([
    ['receivers_options', 'GET', '/v1/receivers_options.json'],
    ['receivers_list', 'GET', '/v1/receivers.json'],
    ['receivers_create', 'POST', '/v1/receivers.json'],
    ['receivers_show', 'GET', '/v1/receivers/unknownReceiverToken.json'],
    ['receivers_update', 'PUT', '/v1/receivers/unknownReceiverToken.json'],
    ['receivers_redact', 'PUT', '/v1/receivers/unknownReceiverToken/redact.json'],
    ['receivers_deliver', 'POST', '/v1/receivers/unknownReceiverToken/deliver.json'],
    ['receivers_export', 'POST', '/v1/receivers/unknownReceiverToken/export.json'],
    ['certificates_list', 'GET', '/v1/certificates.json'],
    ['certificates_create', 'POST', '/v1/certificates.json'],
    ['certificates_generate', 'POST', '/v1/certificates/generate.json'],
    ['certificates_update', 'PUT', '/v1/certificates/unknownCertificateToken.json'],
  ])('%s (%s %s): 30 a minute, the 31st is 429 until the minute has passed', async (name, method, path) => {
    const send = () =>
      method === 'GET'
        ? server.client.get(path, name === 'receivers_options' ? { auth: null } : {})
        : server.client.sendJson(method, path, { not_the_root: {} });
    for (let i = 1; i <= 30; i += 1) {
      const res = await send();
      expect(res.status, res.text).not.toBe(429);
      expectBudget(res, 30, 30 - i, 60);
    }
    expectRateLimited(await send(), 60, 30);
    // Another environment's budget for the same endpoint is whole (the public one is per IP: shared).
    if (name !== 'receivers_options') expectBudget(await (method === 'GET' ? other.get(path) : other.sendJson(method, path, { not_the_root: {} })), 30, 29, 60);
    clock.advance(MINUTE);
    expect((await send()).status).not.toBe(429);
  });

  it('limits nothing else: other endpoints carry no RateLimit headers', async () => {
    const res = await server.client.get('/v1/gateways.json');
    expect(res.status).toBe(200);
    expect(res.headers['ratelimit-limit']).toBeUndefined();
    expect(res.headers['ratelimit-remaining']).toBeUndefined();
  });
});

describe('the BIN + last four limits at their default edges (client IPs from a trusted proxy)', () => {
  let server: TestServer;
  const clock = new ManualClock(currentWholeSecond());
  let address = 0;
  /** Each request from another client address, so the per-IP limit (30 a minute) stays out of the way. */
  const tokenize = (number: string) =>
    server.client.sendJson('POST', '/v1/payment_methods.json', card(number), { headers: { 'X-Forwarded-For': `10.9.${Math.floor((address += 1) / 250)}.${address % 250}` } });

  beforeAll(async () => {
    server = await startServer({ clock, env: { COFFER_RATE_LIMITS: '{}', COFFER_TRUST_PROXY: '127.0.0.1' } });
  });
  afterAll(() => server.close());

  /** Card numbers with these first digits and last four; the middle counts up. (Mostly invalid: 422 or 402, counted all the same.) */
  const numbers = (first: string, lastFour: string, count: number, start = 0) =>
    Array.from({ length: count }, (_, i) => `${first}${String(start + i).padStart(16 - first.length - 4, '0')}${lastFour}`);

  it('250 in 24 hours per first eight + last four: the 251st is refused, a day later one is allowed again', async () => {
    for (const number of numbers('42424242', '4242', 250)) {
      const res = await tokenize(number);
      expect(res.status, res.text).not.toBe(429);
    }
    const refused = await tokenize('4242424299994242');
    expectRateLimited(refused, 86_400, 250);
    // Another eighth digit is another budget; the same first eight with another last four too.
    expect((await tokenize('4242424399994242')).status).not.toBe(429);
    expect((await tokenize('4242424299994343')).status).not.toBe(429);
    clock.advance(DAY - 1);
    expectRateLimited(await tokenize('4242424299994242'), 1, 250);
    clock.advance(1);
    const again = await tokenize('4242424299994242');
    expect(again.status).not.toBe(429);
  }, 60_000);

  it('1000 in 24 hours per first six + last four (spread over first eights, 200 each): the 1001st is refused', async () => {
    clock.advance(2 * DAY);
    for (const bin8 of ['51051051', '51051052', '51051053', '51051054', '51051055']) {
      for (const number of numbers(bin8, '5100', 200)) expect((await tokenize(number)).status).not.toBe(429);
    }
    expectRateLimited(await tokenize('5105105699995100'), 86_400, 1000);
    clock.advance(DAY);
    expect((await tokenize('5105105699995100')).status).not.toBe(429);
  }, 120_000);
});

describe('X-Forwarded-For is believed only from COFFER_TRUST_PROXY', () => {
  it('without it, the socket address counts: forged headers share one budget', async () => {
    const server = await startServer({ env: { COFFER_RATE_LIMITS: '{"payment_methods_client_ip": {"limit": 3, "window_seconds": 60}}' } });
    try {
      for (let i = 0; i < 3; i += 1) {
        const res = await server.client.sendJson('POST', '/v1/payment_methods.json', card(VISA), { headers: { 'X-Forwarded-For': `203.0.113.${i}` } });
        expect(res.status).toBe(201);
      }
      const res = await server.client.sendJson('POST', '/v1/payment_methods.json', card(VISA), { headers: { 'X-Forwarded-For': '203.0.113.99' } });
      expect(res.status).toBe(429);
    } finally {
      await server.close();
    }
  });

  it('with it, the address left of the trusted hops counts', async () => {
    const server = await startServer({ env: { COFFER_RATE_LIMITS: '{"payment_methods_client_ip": {"limit": 2, "window_seconds": 60}}', COFFER_TRUST_PROXY: '127.0.0.0/8' } });
    const from = (chain: string) => server.client.sendJson('POST', '/v1/payment_methods.json', card(VISA), { headers: { 'X-Forwarded-For': chain } });
    try {
      expect((await from('203.0.113.1')).status).toBe(201);
      // A client-supplied hop in front of the real one is not believed: the client is still 203.0.113.1.
      expect((await from('198.51.100.200, 203.0.113.1')).status).toBe(201);
      expect((await from('203.0.113.1')).status).toBe(429);
      expect((await from('203.0.113.2')).status).toBe(201);
    } finally {
      await server.close();
    }
  });
});

describe.each(storeKinds)('a 429 never consumes an Idempotency-Key (%s)', (store) => {
  let server: TestServer;
  const clock = new ManualClock(currentWholeSecond());

  beforeAll(async () => {
    server = await startServer({ store, clock, env: { COFFER_RATE_LIMITS: '{"payment_methods_client_ip": {"limit": 2, "window_seconds": 60}}' } });
  });
  afterAll(() => server.close());

  const claimRow = async (key: string) =>
    server.core.store.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('environment_key', '=', server.init.environment_key)
      .where('idempotency_key', '=', await server.core.keyring.hashIdempotencyKey(server.init.environment_key, key))
      .executeTakeFirst();

  it('the same key after the window runs normally, then replays', async () => {
    const key = `limited-${randomBytes(6).toString('hex')}`;
    const post = () => server.client.sendJson('POST', '/v1/payment_methods.json', card(VISA), { headers: { 'Idempotency-Key': key } });
    for (let i = 0; i < 2; i += 1) expect((await server.client.sendJson('POST', '/v1/payment_methods.json', card(VISA))).status).toBe(201);
    expectRateLimited(await post(), 60, 2);
    expect(await claimRow(key)).toBeUndefined();
    clock.advance(MINUTE);
    const first = await post();
    expect(first.status, first.text).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await claimRow(key)).toMatchObject({ state: 'done', response_status: 201 });
    const replay = await post();
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
  });

  it('answers before the idempotency layer: a spent budget is 429 even for a key that would replay or clash', async () => {
    clock.advance(MINUTE);
    const key = `spent-${randomBytes(6).toString('hex')}`;
    const post = (number: string) => server.client.sendJson('POST', '/v1/payment_methods.json', card(number), { headers: { 'Idempotency-Key': key } });
    const first = await post(VISA);
    expect(first.status).toBe(201);
    expect((await server.client.sendJson('POST', '/v1/payment_methods.json', card(VISA))).status).toBe(201);
    const stored = await claimRow(key);
    // Without the limit these would be a replay (201) and errors.idempotency_key_reused (422).
    expectRateLimited(await post(VISA), 60, 2);
    expectRateLimited(await post('5555555555554444'), 60, 2);
    expect(await claimRow(key)).toEqual(stored);
    clock.advance(MINUTE);
    const replay = await post(VISA);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.text).toBe(first.text);
  });
});
