import * as openpgp from 'openpgp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestGateway } from '../helpers/fixtures.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * Imports over the API, JSON and XML, on SQLite and PostgreSQL: the file as the body of
 * POST /v1/payment_methods/imports (admin), its job at GET …/imports/<id>, the import key at
 * GET /v1/environments/<key>/import_key; every bad input (a malformed line, a CVV, a wrong key, a
 * conflicting token, an unknown column, an empty body, a non-admin secret) answered clearly and
 * nothing half-written. The client refuses any response with card data; the logs are scanned too.
 */

const VISA = '4111111111111111';
const MASTER = '5555555555554444';
const AMEX = '378282246310005';

const jsonl = (...lines: unknown[]) => `${lines.map((line) => (typeof line === 'string' ? line : JSON.stringify(line))).join('\n')}\n`;
const card = (token: string, number: string, extra: Record<string, unknown> = {}) => ({
  token,
  payment_method_type: 'credit_card',
  storage_state: 'retained',
  credit_card: { number, month: 7, year: 2040, first_name: 'Ada', last_name: 'Lovelace' },
  ...extra,
});

describe.each(storeKinds)('payment method imports (%s)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ store });
  });
  afterAll(async () => {
    expect(server.logs.join('\n')).not.toContain(VISA);
    expect(server.logs.join('\n')).not.toContain(MASTER);
    await server.close();
  });

  const post = (path: string, body: string | Buffer, contentType = 'application/x-ndjson') => server.client.request('POST', path, { body, contentType });

  it('imports a file, shows the job and its report, and a second run duplicates nothing', async () => {
    const file = jsonl(
      card('ApiTokenOne1', VISA, { metadata: { customer: 'c-1' }, email: 'ada@example.com' }),
      '{"token": "ApiTokenBroken"',
      card('ApiTokenCvv3', MASTER, { credit_card: { number: MASTER, month: 7, year: 2040, verification_value: '321' } }),
      card('api token 4', AMEX),
      card('ApiTokenOne1', MASTER),
    );
    const response = await post('/v1/payment_methods/imports.json', file);
    expect(response.status, response.text).toBe(201);
    const job = response.json().payment_method_import;
    expect(job).toMatchObject({
      state: 'succeeded',
      format: 'jsonl',
      encrypted: false,
      rows: 5,
      imported: 2,
      skipped: 0,
      rejected: 3,
      rejections: [
        { row: 2, reason: 'malformed', field: null },
        { row: 3, reason: 'cvv_present', field: 'credit_card.verification_value' },
        { row: 5, reason: 'token_taken', field: 'token' },
      ],
      remapped: [{ row: 4, old_token: 'api token 4' }],
      error: null,
    });
    expect(response.text).not.toContain('321');
    const shown = await server.client.get(`/v1/payment_methods/imports/${job.token}.json`);
    expect(shown.json().payment_method_import).toEqual(job);
    const list = await server.client.get('/v1/payment_methods/imports.json');
    expect(list.json().payment_method_imports.map((item: { token: string }) => item.token)).toContain(job.token);

    // Searchable and chargeable at once.
    const found = await server.client.get('/v1/payment_methods.json?metadata[customer]=c-1');
    expect(found.json().payment_methods.map((method: { token: string }) => method.token)).toEqual(['ApiTokenOne1']);
    const gateway = await createTestGateway(server.client);
    const purchase = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: job.remapped[0].new_token, amount: 250, currency_code: 'USD' } });
    expect(purchase.json().transaction).toMatchObject({ succeeded: true });

    const again = await post('/v1/payment_methods/imports.json', file);
    expect(again.json().payment_method_import).toMatchObject({ imported: 0, skipped: 2, rejected: 3, remapped: job.remapped });
  });

  it('takes a file larger than the default body limit (its route allows 8 GiB), received whole before it is imported', async () => {
    const lines = Array.from({ length: 4_000 }, (_, index) => card(`ApiLarge${index}`, VISA, { metadata: { note: 'x'.repeat(200) } }));
    const file = jsonl(...lines);
    expect(Buffer.byteLength(file)).toBeGreaterThan(1024 * 1024);
    const response = await post('/v1/payment_methods/imports.json', file);
    expect(response.status, response.text).toBe(201);
    expect(response.json().payment_method_import).toMatchObject({ state: 'succeeded', rows: 4_000, imported: 4_000, rejected: 0 });
    const last = await server.client.request('GET', '/v1/payment_methods/ApiLarge3999.json');
    expect(last.status, last.text).toBe(200);
  });

  it('stamps the events it records with the id of the request that started the import', async () => {
    const file = jsonl(card('ApiRequestIdOne', VISA, { metadata: { customer: 'rid' } }), card('ApiRequestIdTwo', MASTER));
    const response = await server.client.request('POST', '/v1/payment_methods/imports.json', { body: file, contentType: 'application/x-ndjson', headers: { 'X-Request-Id': 'req-import-file-1' } });
    expect(response.status, response.text).toBe(201);
    expect(response.headers['x-request-id']).toBe('req-import-file-1');
    const events = (await server.client.get('/v1/events.json?count=100')).json().events as { request_id: string | null; event_type: string; object_key: string }[];
    const imported = events.filter((event) => event.event_type === 'ImportPaymentMethod' && ['ApiRequestIdOne', 'ApiRequestIdTwo'].includes(event.object_key));
    expect(imported.map((event) => [event.object_key, event.request_id]).sort()).toEqual([
      ['ApiRequestIdOne', 'req-import-file-1'],
      ['ApiRequestIdTwo', 'req-import-file-1'],
    ]);
    // The ImportPaymentMethod transactions' own events carry it too.
    const transactions = (await server.client.get('/v1/payment_methods/ApiRequestIdOne/transactions.json')).json().transactions as { token: string; transaction_type: string }[];
    const importTransaction = transactions.find((transaction) => transaction.transaction_type === 'ImportPaymentMethod')?.token;
    const transactionEvents = events.filter((event) => event.object_key === importTransaction);
    expect(transactionEvents.map((event) => event.event_type).sort()).toEqual(['TransactionCreated', 'TransactionSucceeded']);
    for (const event of transactionEvents) expect(event.request_id).toBe('req-import-file-1');
  });

  it('answers in XML', async () => {
    const response = await post('/v1/payment_methods/imports.xml', `token,number,month,year\nApiXmlToken1,${VISA},1,2041\nApiXmlToken2,${VISA},13,2041\n`, 'text/csv');
    expect(response.status, response.text).toBe(201);
    const job = response.xml().payment_method_import;
    expect(job).toMatchObject({ state: 'succeeded', format: 'csv', imported: { '#text': '1' }, rejected: { '#text': '1' } });
    expect(job.rejections.rejection).toMatchObject({ row: { '#text': '2' }, reason: 'expiry', field: 'month' });
  });

  it('refuses a file with an unknown column, an empty body, bad options and an unknown job, writing nothing', async () => {
    const refused = await post('/v1/payment_methods/imports.json', `token,number,card_security\nApiRefused1,${VISA},1\n`, 'text/csv');
    expect(refused.status).toBe(422);
    expect(refused.json().errors).toEqual([{ key: 'errors.invalid', attribute: 'file', message: 'Unknown CSV column(s): "card_security"' }]);
    expect((await server.client.get('/v1/payment_methods/ApiRefused1.json')).status).toBe(404);

    const empty = await server.client.request('POST', '/v1/payment_methods/imports.json', { contentType: 'text/csv' });
    expect(empty.status).toBe(422);
    expect(empty.json().errors[0]).toMatchObject({ key: 'errors.blank', attribute: 'file' });

    const badFormat = await post('/v1/payment_methods/imports.json?format=xlsx', jsonl(card('ApiBadFormat1', VISA)));
    expect(badFormat.status).toBe(422);
    expect(badFormat.json().errors[0]).toMatchObject({ attribute: 'format' });
    expect((await server.client.get('/v1/payment_methods/ApiBadFormat1.json')).status).toBe(404);

    const unknown = await server.client.get('/v1/payment_methods/imports/nope.json');
    expect(unknown.status).toBe(404);
    expect(unknown.json().errors[0].key).toBe('errors.import_not_found');
  });

  it('needs an admin secret', async () => {
    const environment = await server.core.tenancy.requireEnvironment(server.init.environment_key);
    const created = await server.core.tenancy.createAccessSecret(environment.organizationToken, { name: 'payments', role: 'transact', environmentKeys: null });
    const transact = server.client.withAuth({ user: server.init.environment_key, password: created.secret });
    const refused = await transact.request('POST', '/v1/payment_methods/imports.json', { body: jsonl(card('ApiNotAdmin1', VISA)), contentType: 'application/x-ndjson' });
    expect(refused.status).toBe(401);
    expect((await server.client.get('/v1/payment_methods/ApiNotAdmin1.json')).status).toBe(404);
  });

  it('serves the import key; decrypts a file encrypted to it; refuses one encrypted to another key or not signed as required', async () => {
    const keyResponse = await server.client.get(`/v1/environments/${server.init.environment_key}/import_key.json`);
    expect(keyResponse.status, keyResponse.text).toBe(200);
    const { public_key: armored, fingerprint } = keyResponse.json().import_key;
    expect(armored).toMatch(/^-----BEGIN PGP PUBLIC KEY BLOCK-----/);
    expect(fingerprint).toMatch(/^[0-9a-f]{40}$/);
    expect((await server.client.get('/v1/environments/nope/import_key.json')).status).toBe(404);

    const recipient = await openpgp.readKey({ armoredKey: armored });
    const stranger = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'stranger' }], format: 'object' });
    const sender = await openpgp.generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: 'sender' }], format: 'object' });
    const text = jsonl(card('ApiPgpToken1', AMEX));
    const encrypt = async (to: openpgp.Key, signer?: openpgp.PrivateKey) =>
      Buffer.from(
        (await openpgp.encrypt({ message: await openpgp.createMessage({ text }), encryptionKeys: to, format: 'binary', ...(signer === undefined ? {} : { signingKeys: signer }) })) as Uint8Array,
      );

    const wrong = await post('/v1/payment_methods/imports.json', await encrypt(stranger.publicKey), 'application/pgp-encrypted');
    expect(wrong.status).toBe(422);
    expect(wrong.json().errors[0].message).toBe("The file cannot be decrypted with this environment's import key (it was encrypted to another key)");

    const signedBy = encodeURIComponent(sender.publicKey.armor());
    const unsigned = await post(`/v1/payment_methods/imports.json?signed_by=${signedBy}`, await encrypt(recipient), 'application/pgp-encrypted');
    expect(unsigned.status).toBe(422);
    expect(unsigned.json().errors[0].message).toBe('The file is not signed by the sender key given');
    expect((await server.client.get('/v1/payment_methods/ApiPgpToken1.json')).status).toBe(404);

    const signed = await post(`/v1/payment_methods/imports.json?signed_by=${signedBy}`, await encrypt(recipient, sender.privateKey), 'application/pgp-encrypted');
    expect(signed.status, signed.text).toBe(201);
    expect(signed.json().payment_method_import).toMatchObject({ encrypted: true, imported: 1 });
    expect((await server.client.get('/v1/payment_methods/ApiPgpToken1.json')).json().payment_method.last_four_digits).toBe('0005');
  });
});
