import * as openpgp from 'openpgp';
import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/client.js';
import { exportParties } from '../helpers/export-parties.js';
import { addPaymentMethod, createTestGateway } from '../helpers/fixtures.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * Exports under dual control over the API (docs/portability.md, "Exporting"), on SQLite and
 * PostgreSQL: one admin requests, a different admin approves, the file is downloaded once; the
 * requester cannot approve, an expired request cannot be approved nor downloaded, other roles are
 * refused; the file decrypts with the recipient's private key, is signed by the environment's key,
 * and imports into a fresh Coffer with the same tokens and cards. No PAN in any answer (the client
 * refuses them), log line or database file (the server's leak guard).
 */

const VISA = '4111111111111111';
const MASTER = '5555555555554444';
const AMEX = '378282246310005';
const HOUR = 3600_000;

/** The download's bytes (the test client reads text; an OpenPGP binary message is not). */
async function downloadBytes(server: TestServer, client: ApiClient, token: string): Promise<{ status: number; bytes: Buffer; headers: Record<string, unknown> }> {
  const auth = (client as unknown as { defaultAuth: { user: string; password: string } }).defaultAuth;
  const agent = new Agent({ connect: server.ca === null ? {} : { ca: server.ca } });
  try {
    const response = await request(`${client.baseUrl}/v1/payment_methods/exports/${token}/download.json`, {
      headers: { authorization: `Basic ${Buffer.from(`${auth.user}:${auth.password}`).toString('base64')}` },
      dispatcher: agent,
    });
    return { status: response.statusCode, bytes: Buffer.from(await response.body.arrayBuffer()), headers: response.headers };
  } finally {
    await agent.close();
  }
}

async function decrypt(bytes: Buffer, privateKey: openpgp.PrivateKey, signer: string): Promise<{ text: string; signed: boolean }> {
  const message = await openpgp.readMessage({ binaryMessage: bytes });
  const result = await openpgp.decrypt({ message, decryptionKeys: privateKey, verificationKeys: await openpgp.readKey({ armoredKey: signer }), format: 'binary' });
  const signed = await result.signatures[0]?.verified.then(() => true, () => false);
  return { text: Buffer.from(result.data as Uint8Array).toString('utf8'), signed: signed === true };
}

describe.each(storeKinds)('payment method exports (%s)', (store) => {
  let server: TestServer;
  let target: TestServer;
  let second: ApiClient;
  let transact: ApiClient;
  const clock = new ManualClock();
  let recipient: { publicKey: string; privateKey: openpgp.PrivateKey };
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    [server, target] = await Promise.all([startServer({ store, clock }), startServer({ store })]);
    ({ second, transact, recipient } = await exportParties(server));
    const visa = await addPaymentMethod(server.client, { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number: VISA, month: 4, year: 2035, address1: '1 Main St', city: 'Durham', zip: '27701', country: 'US' }, email: 'ada@example.com', metadata: { customer: 'c-1', vip: true }, data: { note: 'first' }, retained: true });
    tokens.visa = visa.payment_method.token;
    const master = await addPaymentMethod(server.client, { credit_card: { first_name: 'Bob', last_name: 'Builder', number: MASTER, month: 9, year: 2036 }, metadata: { customer: 'c-2' }, retained: true });
    tokens.master = master.payment_method.token;
    const cached = await addPaymentMethod(server.client, { credit_card: { first_name: 'Cy', last_name: 'Cached', number: AMEX, month: 1, year: 2037 } });
    tokens.cached = cached.payment_method.token;
    const bank = await addPaymentMethod(server.client, { bank_account: { first_name: 'Di', last_name: 'Bank', bank_routing_number: '021000021', bank_account_number: '9876543210', bank_account_type: 'checking', bank_account_holder_type: 'personal' }, retained: true });
    tokens.bank = bank.payment_method.token;
  });
  afterAll(async () => {
    for (const each of [server, target]) {
      const logs = each.logs.join('\n');
      for (const number of [VISA, MASTER, AMEX, '9876543210']) expect(logs).not.toContain(number);
    }
    await Promise.all([server.close(), target.close()]);
  });

  const requestExport = async (client: ApiClient, fields: Record<string, unknown>) => client.sendJson('POST', '/v1/payment_methods/exports.json', { payment_method_export: fields });

  it('requests, is approved by a second admin, downloads once, and the file decrypts, is signed and holds the cards', async () => {
    const requested = await requestExport(server.client, { recipient_public_key: recipient.publicKey });
    expect(requested.status, requested.text).toBe(201);
    const job = requested.json().payment_method_export;
    expect(job).toMatchObject({
      state: 'pending',
      recipient_fingerprint: (await openpgp.readKey({ armoredKey: recipient.publicKey })).getFingerprint(),
      recipient_user_ids: ['Recipient <vault@recipient.example>'],
      requested_by: { type: 'access_secret', id: expect.any(String) },
      approved_by: null,
      payment_methods: null,
    });

    // Not before a second person approves it; never by the requester.
    expect((await downloadBytes(server, server.client, job.token)).status).toBe(409);
    const own = await server.client.request('POST', `/v1/payment_methods/exports/${job.token}/approve.json`);
    expect(own.status).toBe(403);
    expect(own.json().errors[0]).toMatchObject({ key: 'errors.forbidden', message: expect.stringContaining('someone other than the person who requested it') });
    expect((await server.client.get(`/v1/payment_methods/exports/${job.token}.json`)).json().payment_method_export.state).toBe('pending');

    const approved = await second.request('POST', `/v1/payment_methods/exports/${job.token}/approve.json`);
    expect(approved.status, approved.text).toBe(200);
    expect(approved.json().payment_method_export).toMatchObject({ state: 'approved', approved_by: { type: 'access_secret' } });
    expect((await second.request('POST', `/v1/payment_methods/exports/${job.token}/approve.json`)).status).toBe(409);

    const download = await downloadBytes(server, server.client, job.token);
    expect(download.status).toBe(200);
    expect(download.headers['content-type']).toBe('application/pgp-encrypted');
    expect(download.bytes.includes(Buffer.from(VISA))).toBe(false);
    const again = await downloadBytes(server, second, job.token);
    expect(again.status).toBe(410);
    expect(JSON.parse(again.bytes.toString('utf8')).errors[0].key).toBe('errors.export_gone');

    const signer = (await server.client.get(`/v1/environments/${server.init.environment_key}/import_key.json`)).json().import_key.public_key;
    const { text, signed } = await decrypt(download.bytes, recipient.privateKey, signer);
    expect(signed).toBe(true);
    const lines = text.trimEnd().split('\n').map((line) => JSON.parse(line));
    const byToken = new Map(lines.map((line) => [line.token, line]));
    expect([...byToken.keys()].sort()).toEqual(Object.values(tokens).sort());
    expect(byToken.get(tokens.visa)).toMatchObject({
      payment_method_type: 'credit_card',
      storage_state: 'retained',
      email: 'ada@example.com',
      metadata: { customer: 'c-1', vip: true },
      data: { note: 'first' },
      credit_card: { number: VISA, month: 4, year: 2035, first_name: 'Ada', last_name: 'Lovelace', address1: '1 Main St', city: 'Durham', zip: '27701', country: 'US' },
    });
    expect(byToken.get(tokens.cached)).toMatchObject({ storage_state: 'cached', credit_card: { number: AMEX } });
    expect(byToken.get(tokens.bank)).toMatchObject({ payment_method_type: 'bank_account', bank_account: { bank_routing_number: '021000021', bank_account_number: '9876543210', bank_account_type: 'checking' } });
    for (const line of lines) expect(JSON.stringify(line)).not.toMatch(/verification_value|cvv/);

    await new Promise((resolve) => setTimeout(resolve, 100));
    const done = (await server.client.get(`/v1/payment_methods/exports/${job.token}.json`)).json().payment_method_export;
    expect(done).toMatchObject({ state: 'downloaded', payment_methods: 4, downloaded_by: { type: 'access_secret' } });

    // Every step in the audit log: who requested, who approved, how many methods left.
    const audit = (await server.client.get('/v1/audit_events.json?count=50')).json().audit_events.filter((event: { object_id: string }) => event.object_id === job.token);
    const actions = audit.map((event: { action: string }) => event.action).sort();
    expect(actions).toEqual(['payment_method_export.approve', 'payment_method_export.approve_refused', 'payment_method_export.download', 'payment_method_export.request']);
    const downloaded = audit.find((event: { action: string }) => event.action === 'payment_method_export.download');
    expect(downloaded.details).toMatchObject({ payment_methods: 4 });
    // Each card whose number left in the file is in its access log, as opened for this export.
    const log = (await server.client.get(`/v1/payment_methods/${tokens.visa}/access_log.json`)).json().access_log;
    expect(log).toContainEqual(expect.objectContaining({ operation: 'export', object_type: 'payment_method_export', object_id: job.token, actor_type: 'access_secret' }));
  });

  it('round-trips into a fresh Coffer: encrypted to its import key, signed by this one, same tokens and cards', async () => {
    const importKey = (await target.client.get(`/v1/environments/${target.init.environment_key}/import_key.json`)).json().import_key.public_key;
    const job = (await requestExport(server.client, { recipient_public_key: importKey })).json().payment_method_export;
    expect((await second.request('POST', `/v1/payment_methods/exports/${job.token}/approve.json`)).status).toBe(200);
    const download = await downloadBytes(server, second, job.token);
    expect(download.status).toBe(200);
    const signer = (await server.client.get(`/v1/environments/${server.init.environment_key}/import_key.json`)).json().import_key.public_key;
    const imported = await target.client.request('POST', `/v1/payment_methods/imports.json?signed_by=${encodeURIComponent(signer)}`, { body: download.bytes, contentType: 'application/pgp-encrypted' });
    expect(imported.status, imported.text).toBe(201);
    expect(imported.json().payment_method_import).toMatchObject({ state: 'succeeded', encrypted: true, imported: 4, rejected: 0, remapped: [] });
    for (const token of Object.values(tokens)) {
      const before = (await server.client.get(`/v1/payment_methods/${token}.json`)).json().payment_method;
      const after = (await target.client.get(`/v1/payment_methods/${token}.json`)).json().payment_method;
      // The fingerprint is keyed per environment (HMAC), so it differs; everything else is the same.
      const comparable = ({ updated_at: _u, fingerprint: _f, ...rest }: Record<string, unknown>) => rest;
      expect(comparable(after), token).toEqual(comparable(before));
    }
    // The same card: a purchase with the old token works there.
    const gateway = await createTestGateway(target.client);
    const purchase = await target.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: tokens.visa, amount: 100, currency_code: 'USD' } });
    expect(purchase.json().transaction).toMatchObject({ succeeded: true });
  });

  it('exports only what the filters select', async () => {
    const job = (await requestExport(server.client, { recipient_public_key: recipient.publicKey, storage_state: 'retained', metadata: { customer: 'c-2' } })).json().payment_method_export;
    expect(job).toMatchObject({ storage_state: ['retained'], metadata: { customer: 'c-2' } });
    await second.request('POST', `/v1/payment_methods/exports/${job.token}/approve.json`);
    const download = await downloadBytes(server, second, job.token);
    const { text } = await decrypt(download.bytes, recipient.privateKey, (await server.client.get(`/v1/environments/${server.init.environment_key}/import_key.json`)).json().import_key.public_key);
    expect(text.trimEnd().split('\n').map((line) => JSON.parse(line).token)).toEqual([tokens.master]);
    const later = (await requestExport(server.client, { recipient_public_key: recipient.publicKey, created_from: new Date(clock.now().getTime() + HOUR).toISOString() })).json().payment_method_export;
    await second.request('POST', `/v1/payment_methods/exports/${later.token}/approve.json`);
    const empty = await downloadBytes(server, second, later.token);
    expect((await decrypt(empty.bytes, recipient.privateKey, (await server.client.get(`/v1/environments/${server.init.environment_key}/import_key.json`)).json().import_key.public_key)).text).toBe('');
  });

  it('lets a request expire unapproved, and an approved export expire undownloaded', async () => {
    const pending = (await requestExport(server.client, { recipient_public_key: recipient.publicKey })).json().payment_method_export;
    const approvedOne = (await requestExport(server.client, { recipient_public_key: recipient.publicKey })).json().payment_method_export;
    expect((await second.request('POST', `/v1/payment_methods/exports/${approvedOne.token}/approve.json`)).status).toBe(200);
    clock.advance(25 * HOUR);
    const late = await second.request('POST', `/v1/payment_methods/exports/${pending.token}/approve.json`);
    expect(late.status).toBe(410);
    expect(late.json().errors[0]).toMatchObject({ key: 'errors.export_expired', message: expect.stringContaining('expired before it was approved') });
    const download = await downloadBytes(server, server.client, approvedOne.token);
    expect(download.status).toBe(410);
    expect(JSON.parse(download.bytes.toString('utf8')).errors[0].key).toBe('errors.export_expired');
    const listed = (await server.client.get('/v1/payment_methods/exports.json')).json().payment_method_exports;
    expect(listed.find((item: { token: string }) => item.token === pending.token).state).toBe('expired');
    expect(listed.find((item: { token: string }) => item.token === approvedOne.token).state).toBe('expired');
  });

  it('refuses other roles, unknown exports and bad recipient keys, storing nothing', async () => {
    const job = (await requestExport(server.client, { recipient_public_key: recipient.publicKey })).json().payment_method_export;
    for (const [method, path] of [['POST', '/v1/payment_methods/exports.json'], ['GET', '/v1/payment_methods/exports.json'], ['GET', `/v1/payment_methods/exports/${job.token}.json`], ['POST', `/v1/payment_methods/exports/${job.token}/approve.json`]] as const) {
      const refused = method === 'POST' ? await transact.sendJson(method, path, { payment_method_export: { recipient_public_key: recipient.publicKey } }) : await transact.get(path);
      expect(refused.status, path).toBe(401);
      expect(refused.json().errors[0].message, path).toContain('role (transact)');
    }
    expect((await downloadBytes(server, transact, job.token)).status).toBe(401);
    expect((await server.client.get(`/v1/payment_methods/exports/${job.token}.json`)).json().payment_method_export.state).toBe('pending');
    expect((await second.request('POST', '/v1/payment_methods/exports/NoSuchExport/approve.json')).json().errors[0].key).toBe('errors.export_not_found');
    expect((await server.client.get('/v1/payment_methods/exports/NoSuchExport.json')).status).toBe(404);

    const before = (await server.client.get('/v1/payment_methods/exports.json')).json().payment_method_exports.length;
    const blank = await requestExport(server.client, {});
    expect(blank.status).toBe(422);
    expect(blank.json().errors[0]).toMatchObject({ key: 'errors.blank', attribute: 'recipient_public_key' });
    const garbage = await requestExport(server.client, { recipient_public_key: 'not a key' });
    expect(garbage.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'recipient_public_key', message: expect.stringContaining('not an armored OpenPGP public key') });
    const secretKey = await requestExport(server.client, { recipient_public_key: recipient.privateKey.armor() });
    expect(secretKey.status).toBe(422);
    expect(secretKey.json().errors[0].message).toContain('is a private key');
    expect(secretKey.text).not.toContain('PRIVATE KEY BLOCK');
    const badState = await requestExport(server.client, { recipient_public_key: recipient.publicKey, storage_state: 'redacted' });
    expect(badState.status).toBe(422);
    expect(badState.json().errors[0].attribute).toBe('storage_state');
    const badDate = await requestExport(server.client, { recipient_public_key: recipient.publicKey, created_from: 'yesterday' });
    expect(badDate.json().errors[0].attribute).toBe('created_from');
    expect((await server.client.get('/v1/payment_methods/exports.json')).json().payment_method_exports.length).toBe(before);
  });
});
