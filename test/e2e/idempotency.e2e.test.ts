import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { createRetainedCard, createTestGateway, transactionRows, transactionXml } from '../helpers/fixtures.js';
import { ManualClock, currentWholeSecond } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * API.md §8 Idempotency-Key over real HTTPS, JSON and XML: the first response is kept 24 hours
 * per environment and replayed for the same key and request (`Idempotent-Replayed: true`,
 * nothing runs twice); the same key with another request is 422; while the first still runs,
 * 409. A manual clock moves time past the 24 hours.
 */

const VISA = '4111111111111111';
const DECLINE_VISA = '4012888888881881';
const DAY_MS = 24 * 60 * 60 * 1000;

function newKey(label: string): string {
  return `${label}-${randomBytes(6).toString('hex')}`;
}

describe.each(storeKinds)('Idempotency-Key over HTTPS (%s)', (store) => {
  let server: TestServer;
  let gateway: string;
  let card: string;
  const clock = new ManualClock(currentWholeSecond());
  const advance = (ms: number): void => clock.advance(ms);

  beforeAll(async () => {
    server = await startServer({ store, clock });
    gateway = await createTestGateway(server.client);
    card = await createRetainedCard(server.client, VISA);
  });
  afterAll(() => server.close());

  function purchaseJson(key: string | null, body: Record<string, unknown> = {}, client: ApiClient = server.client, gatewayToken = gateway): Promise<ApiResponse> {
    return client.sendJson(
      'POST',
      `/v1/gateways/${gatewayToken}/purchase.json`,
      { transaction: { amount: 100, currency_code: 'USD', payment_method_token: card, ...body } },
      { headers: key === null ? {} : { 'Idempotency-Key': key } },
    );
  }

  function purchaseXml(key: string, amount = 100, paymentMethod = card): Promise<ApiResponse> {
    return server.client.sendXml(
      'POST',
      `/v1/gateways/${gateway}/purchase.xml`,
      transactionXml(amount, paymentMethod),
      { headers: { 'Idempotency-Key': key } },
    );
  }

  const rows = (where: { paymentMethod?: string; type?: string }) => transactionRows(server, where);

  /** The stored claim of `key` (stored under its keyed hash, never in clear). */
  async function claimRow(key: string, environmentKey = server.init.environment_key) {
    return server.core.store.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('environment_key', '=', environmentKey)
      .where('idempotency_key', '=', await server.core.keyring.hashIdempotencyKey(environmentKey, key))
      .executeTakeFirst();
  }

  function expectError(res: ApiResponse, status: number, key: string): void {
    expect(res.status, res.text).toBe(status);
    expect(res.json().errors[0].key).toBe(key);
  }

  it('replays the same request: identical body, same transaction, Idempotent-Replayed, one Purchase (JSON)', async () => {
    const pm = await createRetainedCard(server.client, VISA);
    const key = newKey('k1');
    const first = await purchaseJson(key, { payment_method_token: pm });
    expect(first.status, first.text).toBe(200);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const token = first.json().transaction.token;

    const second = await purchaseJson(key, { payment_method_token: pm });
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers['content-type']).toBe(first.headers['content-type']);
    expect(second.text).toBe(first.text);
    expect(second.json().transaction.token).toBe(token);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);

    const purchases = await rows({ paymentMethod: pm, type: 'Purchase' });
    expect(purchases.map((row) => row.token)).toEqual([token]);

    // Without the key, the same body is a new purchase.
    const plain = await purchaseJson(null, { payment_method_token: pm });
    expect(plain.json().transaction.token).not.toBe(token);
    expect(await rows({ paymentMethod: pm, type: 'Purchase' })).toHaveLength(2);
  });

  it('replays in XML as the Ruby clients send it', async () => {
    const pm = await createRetainedCard(server.client, VISA);
    const key = newKey('xml');
    const first = await purchaseXml(key, 100, pm);
    expect(first.status, first.text).toBe(200);
    const second = await purchaseXml(key, 100, pm);
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.headers['content-type']).toBe('application/xml; charset=utf-8');
    expect(second.text).toBe(first.text);
    expect(second.xml().transaction.token).toBe(first.xml().transaction.token);
    expect(await rows({ paymentMethod: pm, type: 'Purchase' })).toHaveLength(1);
    // The same key and body in the other format is another request.
    const json = await purchaseJson(key, { payment_method_token: pm });
    expectError(json, 422, 'errors.idempotency_key_reused');
  });

  it('the same key with a different body is 422 errors.idempotency_key_reused, and nothing runs', async () => {
    const pm = await createRetainedCard(server.client, VISA);
    const key = newKey('reuse');
    expect((await purchaseJson(key, { payment_method_token: pm })).status).toBe(200);
    const reused = await purchaseJson(key, { payment_method_token: pm, amount: 101 });
    expectError(reused, 422, 'errors.idempotency_key_reused');
    expect(reused.headers['idempotent-replayed']).toBeUndefined();
    const xml = await purchaseXml(key, 102, pm);
    expect(xml.status).toBe(422);
    expect(xml.xml().errors.error['@_key']).toBe('errors.idempotency_key_reused');
    // Another path with the same key is another request too.
    const other = await server.client.sendJson('POST', `/v1/gateways/${gateway}/authorize.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: pm } }, { headers: { 'Idempotency-Key': key } });
    expectError(other, 422, 'errors.idempotency_key_reused');
    expect(await rows({ paymentMethod: pm, type: 'Purchase' })).toHaveLength(1);
    expect(await rows({ paymentMethod: pm, type: 'Authorization' })).toHaveLength(0);
  });

  it('keys are per environment', async () => {
    const environment = await server.core.tenancy.createEnvironment(server.init.organization_token, `idem-${store}`, false);
    const other = server.client.withAuth({ user: environment.key, password: server.init.access_secret });
    const otherGateway = await createTestGateway(other);
    const otherCard = await createRetainedCard(other, VISA);
    const key = newKey('shared');
    const here = await purchaseJson(key);
    expect(here.status).toBe(200);
    const there = await purchaseJson(key, { payment_method_token: otherCard }, other, otherGateway);
    expect(there.status, there.text).toBe(200);
    expect(there.headers['idempotent-replayed']).toBeUndefined();
    expect(there.json().transaction.token).not.toBe(here.json().transaction.token);
    // And each replays its own.
    const again = await purchaseJson(key, { payment_method_token: otherCard }, other, otherGateway);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.json().transaction.token).toBe(there.json().transaction.token);
    expect(await claimRow(key, environment.key)).toMatchObject({ state: 'done', response_status: 200 });
  });

  it('a decline replays as 422 with the same transaction; a 404 replays as 404', async () => {
    const declining = await createRetainedCard(server.client, DECLINE_VISA);
    const key = newKey('decline');
    const first = await purchaseJson(key, { payment_method_token: declining });
    expect(first.status).toBe(422);
    expect(first.json().transaction.state).toBe('gateway_processing_failed');
    const second = await purchaseJson(key, { payment_method_token: declining });
    expect(second.status).toBe(422);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.text).toBe(first.text);
    expect(await rows({ paymentMethod: declining, type: 'Purchase' })).toHaveLength(1);

    const missing = newKey('missing');
    const notFound = await server.client.sendJson('POST', '/v1/gateways/nonesuch/purchase.json', { transaction: { amount: 1, currency_code: 'USD', payment_method_token: card } }, { headers: { 'Idempotency-Key': missing } });
    expect(notFound.status).toBe(404);
    const replayed = await server.client.sendJson('POST', '/v1/gateways/nonesuch/purchase.json', { transaction: { amount: 1, currency_code: 'USD', payment_method_token: card } }, { headers: { 'Idempotency-Key': missing } });
    expect(replayed.status).toBe(404);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.text).toBe(notFound.text);
  });

  it('works on PUT retain, on empty bodies, and on POST payment_methods (201)', async () => {
    const pm = (
      await server.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { first_name: 'A', last_name: 'B', number: VISA, month: 3, year: 2035 } } })
    ).json().transaction.payment_method.token;
    const key = newKey('retain');
    const first = await server.client.request('PUT', `/v1/payment_methods/${pm}/retain.xml`, { body: '', contentType: 'text/xml', headers: { 'Idempotency-Key': key } });
    expect(first.status, first.text).toBe(200);
    expect(first.xml().transaction.transaction_type).toBe('RetainPaymentMethod');
    const second = await server.client.request('PUT', `/v1/payment_methods/${pm}/retain.xml`, { body: '', contentType: 'text/xml', headers: { 'Idempotency-Key': key } });
    expect(second.status).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.text).toBe(first.text);
    expect(await rows({ paymentMethod: pm, type: 'RetainPaymentMethod' })).toHaveLength(1);
    // The same key on another payment method's retain is another request.
    const otherPm = await createRetainedCard(server.client, VISA);
    expectError(await server.client.request('PUT', `/v1/payment_methods/${otherPm}/retain.json`, { headers: { 'Idempotency-Key': key } }), 422, 'errors.idempotency_key_reused');

    const createKey = newKey('create');
    const body = { payment_method: { credit_card: { first_name: 'A', last_name: 'B', number: VISA, month: 3, year: 2035 }, email: `${createKey}@example.com` } };
    const created = await server.client.sendJson('POST', '/v1/payment_methods.json', body, { headers: { 'Idempotency-Key': createKey } });
    expect(created.status).toBe(201);
    const replayed = await server.client.sendJson('POST', '/v1/payment_methods.json', body, { headers: { 'Idempotency-Key': createKey } });
    expect(replayed.status).toBe(201);
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.json().transaction.payment_method.token).toBe(created.json().transaction.payment_method.token);
    const methods = await server.core.store.db.selectFrom('payment_methods').selectAll().where('email', '=', `${createKey}@example.com`).execute();
    expect(methods).toHaveLength(1);
  });

  // src bug (reported): the request hash takes `request.body`, which is undefined when no body
  // was sent but a decoded empty document when an empty body came with a Content-Type; API.md §1
  // makes both "no parameters", yet the retry is refused as errors.idempotency_key_reused.
  it('an empty body and no body are the same request', async () => {
    const pm = await createRetainedCard(server.client, VISA);
    const key = newKey('empty');
    const first = await server.client.request('PUT', `/v1/payment_methods/${pm}/retain.json`, { body: '', contentType: 'application/json', headers: { 'Idempotency-Key': key } });
    expect(first.status, first.text).toBe(200);
    const second = await server.client.request('PUT', `/v1/payment_methods/${pm}/retain.json`, { headers: { 'Idempotency-Key': key } });
    expect(second.status, second.text).toBe(200);
    expect(second.headers['idempotent-replayed']).toBe('true');
  });

  it('works on reference transactions: a replayed capture captures once', async () => {
    const authorization = (
      await server.client.sendJson('POST', `/v1/gateways/${gateway}/authorize.json`, { transaction: { amount: 300, currency_code: 'USD', payment_method_token: card } })
    ).json().transaction.token as string;
    const key = newKey('capture');
    const first = await server.client.sendJson('POST', `/v1/transactions/${authorization}/capture.json`, { transaction: { amount: 100 } }, { headers: { 'Idempotency-Key': key } });
    expect(first.status, first.text).toBe(200);
    const second = await server.client.sendJson('POST', `/v1/transactions/${authorization}/capture.json`, { transaction: { amount: 100 } }, { headers: { 'Idempotency-Key': key } });
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.text).toBe(first.text);
    const captures = await server.core.store.db.selectFrom('transactions').selectAll().where('reference_token', '=', authorization).execute();
    expect(captures).toHaveLength(1);
  });

  it('a request refused before it runs (401, 415) does not take the key', async () => {
    const key = newKey('unauthenticated');
    const denied = await purchaseJson(key, {}, server.client.withAuth({ user: server.init.environment_key, password: 'wrong' }));
    expect(denied.status).toBe(401);
    const unsupported = await server.client.request('POST', `/v1/gateways/${gateway}/purchase.json`, {
      body: JSON.stringify({ transaction: { amount: 100, currency_code: 'USD', payment_method_token: card } }),
      contentType: 'text/plain',
      headers: { 'Idempotency-Key': key },
    });
    expect(unsupported.status).toBe(415);
    expect(await claimRow(key)).toBeUndefined();
    const ran = await purchaseJson(key);
    expect(ran.status).toBe(200);
    expect(ran.headers['idempotent-replayed']).toBeUndefined();
  });

  it('refuses an empty or over-long key with 422, and ignores keys on GET', async () => {
    for (const key of ['', 'x'.repeat(300), 'with space', 'é']) {
      const res = await purchaseJson(key);
      expect(res.status, `key ${JSON.stringify(key.slice(0, 20))}: ${res.text}`).toBe(422);
      expect(res.json().errors[0].key).toBe('errors.invalid');
    }
    const longest = await purchaseJson('y'.repeat(255));
    expect(longest.status, longest.text).toBe(200);
    const get = await server.client.get(`/v1/gateways/${gateway}.json`, { headers: { 'Idempotency-Key': '' } });
    expect(get.status).toBe(200);
    expect(get.headers['idempotent-replayed']).toBeUndefined();
  });

  describe('while the first request is still running', () => {
    it('a second claim of the same key and request is refused with errors.idempotency_key_in_use', async () => {
      const environmentKey = server.init.environment_key;
      expect(await server.core.idempotency.claim(environmentKey, 'k-running', 'somehash')).toEqual({ kind: 'proceed' });
      const second = server.core.idempotency.claim(environmentKey, 'k-running', 'somehash');
      await expect(second).rejects.toBeInstanceOf(AppError);
      await expect(server.core.idempotency.claim(environmentKey, 'k-running', 'somehash')).rejects.toMatchObject({
        status: 409,
        entries: [expect.objectContaining({ key: 'errors.idempotency_key_in_use' })],
      });
      await expect(server.core.idempotency.claim(environmentKey, 'k-running', 'otherhash')).rejects.toMatchObject({
        entries: [expect.objectContaining({ key: 'errors.idempotency_key_reused' })],
      });
      // Over HTTP, the running key with this request's body is another request: 422.
      expectError(await purchaseJson('k-running'), 422, 'errors.idempotency_key_reused');
    });

    it('over HTTP: 409 errors.idempotency_key_in_use while a claim of the same request runs, then it runs', async () => {
      // The hash does not include the key: a finished request gives the hash of the same body.
      const pm = await createRetainedCard(server.client, VISA);
      const probe = newKey('probe');
      expect((await purchaseJson(probe, { payment_method_token: pm })).status).toBe(200);
      const hash = (await claimRow(probe))?.request_hash as string;
      expect(hash).toMatch(/^[0-9a-f]{64}$/);

      const key = newKey('running');
      expect(await server.core.idempotency.claim(server.init.environment_key, key, hash)).toEqual({ kind: 'proceed' });
      const busy = await purchaseJson(key, { payment_method_token: pm });
      expectError(busy, 409, 'errors.idempotency_key_in_use');
      expect(busy.json().errors[0].message).toEqual(expect.any(String));
      const busyXml = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: pm } }, { headers: { 'Idempotency-Key': key } });
      expect(busyXml.status).toBe(409);
      // The 409 did not disturb the running claim, and nothing ran.
      expect(await claimRow(key)).toMatchObject({ state: 'running', request_hash: hash });
      expect(await rows({ paymentMethod: pm, type: 'Purchase' })).toHaveLength(1);

      // The first request fails without deciding anything (a 5xx frees the key): a retry runs.
      await server.core.idempotency.settle(server.init.environment_key, key, { status: 503, contentType: 'application/json', body: '{}' });
      const retried = await purchaseJson(key, { payment_method_token: pm });
      expect(retried.status, retried.text).toBe(200);
      expect(retried.headers['idempotent-replayed']).toBeUndefined();
      expect(await rows({ paymentMethod: pm, type: 'Purchase' })).toHaveLength(2);
    });

    it('identical requests sent at once: one runs, the others get 409 or its replay', async () => {
      const pm = await createRetainedCard(server.client, VISA);
      const key = newKey('burst');
      const responses = await Promise.all(Array.from({ length: 8 }, () => purchaseJson(key, { payment_method_token: pm })));
      const purchases = await rows({ paymentMethod: pm, type: 'Purchase' });
      expect(purchases).toHaveLength(1);
      const original = responses.filter((res) => res.status === 200 && res.headers['idempotent-replayed'] === undefined);
      expect(original).toHaveLength(1);
      for (const res of responses) {
        if (res.status === 409) expect(res.json().errors[0].key).toBe('errors.idempotency_key_in_use');
        else {
          expect(res.status).toBe(200);
          expect(res.json().transaction.token).toBe(purchases[0]?.token);
        }
      }
    });

    // Only PostgreSQL can hold a request mid-flight from outside (an advisory lock); SQLite's writes are serial.
    if (store === 'postgres') it('409 while the first request is really blocked mid-flight, then its replay', async () => {
      const url = (server.core.config.store as { url: string }).url;
      const locker = new pg.Client({ connectionString: url });
      await locker.connect();
      const pm = await createRetainedCard(server.client, VISA);
      const key = newKey('blocked');
      // The purchase serializes on this name (a transaction-scoped advisory lock): hold it.
      await locker.query('select pg_advisory_lock(hashtext($1))', [`payment_method:${pm}`]);
      let first: Promise<ApiResponse> | null = null;
      try {
        first = purchaseJson(key, { payment_method_token: pm });
        for (let i = 0; i < 200 && (await claimRow(key)) === undefined; i += 1) await new Promise((resolve) => setTimeout(resolve, 10));
        expect(await claimRow(key)).toMatchObject({ state: 'running' });
        const second = await purchaseJson(key, { payment_method_token: pm });
        expectError(second, 409, 'errors.idempotency_key_in_use');
      } finally {
        await locker.query('select pg_advisory_unlock(hashtext($1))', [`payment_method:${pm}`]);
        await locker.end();
      }
      const done = await first;
      expect(done.status, done.text).toBe(200);
      const replay = await purchaseJson(key, { payment_method_token: pm });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(done.text);
      expect(await rows({ paymentMethod: pm, type: 'Purchase' })).toHaveLength(1);
    });
  });

  describe('retention (manual clock)', () => {
    it('replays until 24 hours have passed, then the same key runs again', async () => {
      const pm = await createRetainedCard(server.client, VISA);
      const key = newKey('expiry');
      const first = await purchaseJson(key, { payment_method_token: pm });
      expect(first.status).toBe(200);
      const row = await claimRow(key);
      expect(row?.expires_at).toBe(new Date(clock.now().getTime() + DAY_MS).toISOString());

      advance(DAY_MS - 1000);
      const late = await purchaseJson(key, { payment_method_token: pm });
      expect(late.headers['idempotent-replayed']).toBe('true');
      expect(late.text).toBe(first.text);

      advance(2000);
      const expired = await purchaseJson(key, { payment_method_token: pm });
      expect(expired.status, expired.text).toBe(200);
      expect(expired.headers['idempotent-replayed']).toBeUndefined();
      expect(expired.json().transaction.token).not.toBe(first.json().transaction.token);
      expect(await rows({ paymentMethod: pm, type: 'Purchase' })).toHaveLength(2);
      // And the new response is the one replayed from now on.
      const again = await purchaseJson(key, { payment_method_token: pm });
      expect(again.json().transaction.token).toBe(expired.json().transaction.token);
      // Once expired, another body may use the key.
      advance(DAY_MS + 1000);
      const reused = await purchaseJson(key, { payment_method_token: pm, amount: 555 });
      expect(reused.status).toBe(200);
      expect(reused.json().transaction.amount).toBe(555);
    });

    it('the sweeper removes expired keys', async () => {
      const key = newKey('swept');
      expect((await purchaseJson(key)).status).toBe(200);
      expect(await claimRow(key)).toBeDefined();
      advance(DAY_MS + 1000);
      expect(await server.core.idempotency.removeExpired()).toBeGreaterThanOrEqual(1);
      expect(await claimRow(key)).toBeUndefined();
    });

    it('a claim abandoned for 15 minutes (its node died) may be taken over', async () => {
      const environmentKey = server.init.environment_key;
      const key = newKey('abandoned');
      expect(await server.core.idempotency.claim(environmentKey, key, 'h')).toEqual({ kind: 'proceed' });
      advance(60 * 1000);
      await expect(server.core.idempotency.claim(environmentKey, key, 'h')).rejects.toMatchObject({ status: 409 });
      advance(15 * 60 * 1000);
      expect(await server.core.idempotency.claim(environmentKey, key, 'h')).toEqual({ kind: 'proceed' });
    });
  });
});
