import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiResponse } from '../helpers/client.js';
import { createRetainedCard, createTestGateway } from '../helpers/fixtures.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { storedBytes } from '../helpers/stored-bytes.js';

/**
 * API.md §8 (docs/security.md, "Idempotency and secrets"): a response that carries a secret is never stored for replay — the key
 * answers 409 `errors.idempotency_key_not_replayable` — and Idempotency-Key values are stored as
 * keyed hashes, never in clear (SQLite file and WAL, PostgreSQL rows).
 */

const NOT_REPLAYABLE = 'The response to this Idempotency-Key carried a secret and is not kept; it cannot be replayed.';

function errorOf(format: 'json' | 'xml', res: ApiResponse): { key: string; message: string } {
  if (format === 'json') return res.json().errors[0];
  const error = res.xml().errors.error;
  return { key: error['@_key'], message: error['#text'] };
}

describe.each(storeKinds)('Idempotency-Key and secrets (%s)', (store) => {
  let server: TestServer;
  let environment: string;

  beforeAll(async () => {
    server = await startServer({ store });
    environment = server.init.environment_key;
  });
  afterAll(() => server.close());

  function createSecret(format: 'json' | 'xml', key: string): Promise<ApiResponse> {
    const path = `/v1/environments/${environment}/access_secrets.${format}`;
    const headers = { 'Idempotency-Key': key };
    return format === 'json'
      ? server.client.sendJson('POST', path, { access_secret: { name: 'ci', role: 'read' } }, { headers })
      : server.client.sendXml('POST', path, '<access_secret><name>ci</name><role>read</role></access_secret>', { headers });
  }

  it.each(['json', 'xml'] as const)('%s: a new access secret is not kept; replaying its key is 409, before and after revocation', async (format) => {
    const key = `secret-${format}-${randomBytes(6).toString('hex')}`;
    const first = await createSecret(format, key);
    expect(first.status, first.text).toBe(201);
    const created = format === 'json' ? first.json().access_secret : first.xml().access_secret;
    expect(created.secret).toMatch(/^[A-Za-z0-9]{48}$/);

    const replay = await createSecret(format, key);
    expect(replay.status).toBe(409);
    expect(replay.headers['idempotent-replayed']).toBeUndefined();
    expect(replay.headers['content-type']).toMatch(format === 'json' ? /^application\/json/ : /^application\/xml/);
    expect(errorOf(format, replay)).toEqual({ key: 'errors.idempotency_key_not_replayable', message: NOT_REPLAYABLE });
    expect(replay.text).not.toContain(created.secret);

    const revoked = await server.client.request('DELETE', `/v1/environments/${environment}/access_secrets/${created.key}.${format}`);
    expect(revoked.status).toBe(204);
    const afterRevoke = await createSecret(format, key);
    expect(afterRevoke.status).toBe(409);
    expect(afterRevoke.text).not.toContain(created.secret);
    // One secret was made, not two.
    const secrets = await server.core.store.db.selectFrom('access_secrets').select('key').where('name', '=', 'ci').execute();
    expect(secrets.filter((row) => row.key === created.key)).toHaveLength(1);

    // The secret itself is nowhere in the database.
    expect((await storedBytes(server)).includes(Buffer.from(created.secret))).toBe(false);
  });

  it('a refused request on a secret route is replayed as usual (it carries no secret)', async () => {
    const key = `refused-${randomBytes(6).toString('hex')}`;
    const path = `/v1/environments/${environment}/access_secrets.json`;
    const body = { access_secret: { name: 'x', role: 'root' } };
    const first = await server.client.sendJson('POST', path, body, { headers: { 'Idempotency-Key': key } });
    expect(first.status).toBe(422);
    const replay = await server.client.sendJson('POST', path, body, { headers: { 'Idempotency-Key': key } });
    expect(replay.status).toBe(422);
    expect(replay.headers['idempotent-replayed']).toBe('true');
  });

  it('stores Idempotency-Key values only as keyed hashes (a card number as the key included)', async () => {
    const gateway = await createTestGateway(server.client);
    const card = await createRetainedCard(server.client, '4111111111111111');
    const keys = ['5555555555554444', `order-7-${randomBytes(8).toString('hex')}`];
    for (const [index, key] of keys.entries()) {
      const format = index === 0 ? 'json' : 'xml';
      const res =
        format === 'json'
          ? await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: card, amount: 100, currency_code: 'USD' } }, { headers: { 'Idempotency-Key': key } })
          : await server.client.sendXml('POST', `/v1/gateways/${gateway}/purchase.xml`, `<transaction><payment_method_token>${card}</payment_method_token><amount>100</amount><currency_code>USD</currency_code></transaction>`, { headers: { 'Idempotency-Key': key } });
      expect(res.status).toBe(200);
      const replay =
        format === 'json'
          ? await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: card, amount: 100, currency_code: 'USD' } }, { headers: { 'Idempotency-Key': key } })
          : await server.client.sendXml('POST', `/v1/gateways/${gateway}/purchase.xml`, `<transaction><payment_method_token>${card}</payment_method_token><amount>100</amount><currency_code>USD</currency_code></transaction>`, { headers: { 'Idempotency-Key': key } });
      expect(replay.headers['idempotent-replayed']).toBe('true');
      expect(replay.text).toBe(res.text);
    }
    const rows = await server.core.store.db.selectFrom('idempotency_keys').select('idempotency_key').execute();
    for (const row of rows) expect(row.idempotency_key).toMatch(/^[0-9a-f]{64}$/);
    const stored = await storedBytes(server);
    for (const key of keys) {
      expect(stored.includes(Buffer.from(key)), `${key.slice(0, 6)}… in the ${store} database`).toBe(false);
    }
  });
});
