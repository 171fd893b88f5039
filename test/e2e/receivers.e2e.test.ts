import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { receiverOf } from '../../src/store/mappers/receiver.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { storeKinds } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';
import { asList, childOrder, xmlErrorEntries, xmlText } from '../helpers/xml.js';
import type { ApiClient } from '../helpers/client.js';

const SECRET_VALUE = 'receiver-secret-value-8841';
const FINGERPRINT = `SHA256:${'A'.repeat(43)}`;

/** Receivers: options, create, list, show, update, redact (API.md §4, wire-reference §2.6 and §3.4). */
describe.each(storeKinds)('receivers over HTTPS (%s)', (store) => {
  let server: TestServer;
  let live: ApiClient;
  let other: ApiClient;

  beforeAll(async () => {
    const catalogDir = tempDir();
    const catalog = path.join(catalogDir.dir, 'catalog.json');
    fs.writeFileSync(
      catalog,
      JSON.stringify({ receivers: [{ receiver_type: 'ace_rent_a_car', name: 'Acerentacar Receiver', company_name: 'Ace Rent a Car', hostnames: 'https://ota.acerentacar.com' }] }),
    );
    server = await startServer({ store, env: { COFFER_RECEIVER_CATALOG: catalog } });
    const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
    const second = await server.core.tenancy.createEnvironment(server.init.organization_token, 'second', false);
    other = server.client.withAuth({ user: second.key, password: server.init.access_secret });
  });
  afterAll(() => server.close());

  async function createTestReceiver(client: ApiClient = server.client): Promise<any> {
    const res = await client.sendJson('POST', '/v1/receivers.json', {
      receiver: {
        receiver_type: 'test',
        hostnames: 'https://api.example.com, http://echo.example.com:8080',
        credentials: [
          { name: 'app-id', value: '1234', safe: true },
          { name: 'app_secret', value: SECRET_VALUE },
        ],
      },
    });
    expect(res.status, res.text).toBe(201);
    return res.json().receiver;
  }

  it('lists receiver types without authentication, the catalog included', async () => {
    const res = await server.client.withAuth(null).get('/v1/receivers_options.json');
    expect(res.status).toBe(200);
    const types = res.json().receivers;
    expect(types.map((t: any) => t.receiver_type)).toEqual(['test', 'http', 'sftp', 'ace_rent_a_car']);
    expect(types[3]).toEqual({
      name: 'Acerentacar Receiver', receiver_type: 'ace_rent_a_car', hostnames: 'https://ota.acerentacar.com', company_name: 'Ace Rent a Car', protocol: 'http',
      supports_deliver: true, supports_export: false, test: false,
    });
    // Each type advertises only the operation its protocol serves (an honest catalog).
    expect(types.map((t: any) => [t.receiver_type, t.supports_deliver, t.supports_export, t.test])).toEqual([
      ['test', true, false, true], ['http', true, false, false], ['sftp', false, true, false], ['ace_rent_a_car', true, false, false],
    ]);
    const xml = await server.client.withAuth(null).get('/v1/receivers_options.xml');
    expect(xml.status).toBe(200);
    const xmlTypes = asList(xml.xml().receivers.receiver);
    expect(xmlTypes.map((r: any) => r.receiver_type)).toContain('ace_rent_a_car');
    expect(xmlTypes.map((r: any) => [r.receiver_type, r.supports_deliver['#text'], r.supports_export['#text']])).toEqual([
      ['test', 'true', 'false'], ['http', 'true', 'false'], ['sftp', 'false', 'true'], ['ace_rent_a_car', 'true', 'false'],
    ]);
  });

  it('creates a test receiver in JSON (201): safe credentials echoed, unsafe ones by name only', async () => {
    const receiver = await createTestReceiver();
    expect(Object.keys(receiver)).toEqual(['receiver_type', 'token', 'hostnames', 'state', 'created_at', 'updated_at', 'company_name', 'sub_merchant_key', 'certificate_token', 'credentials']);
    expect(receiver).toMatchObject({ receiver_type: 'test', hostnames: 'https://api.example.com,http://echo.example.com:8080', state: 'retained', company_name: null });
    expect(receiver.credentials).toEqual([
      { name: 'app-id', value: '1234', safe: true },
      { name: 'app_secret', safe: false },
    ]);
    expect(receiver.token).toMatch(/^[A-Za-z0-9]{29}$/);
    const row = await server.core.store.db.selectFrom('receivers').selectAll().where('token', '=', receiver.token).executeTakeFirstOrThrow();
    expect(row.sealed_credentials).toMatch(/^c1\./);
    expect(JSON.stringify(row)).not.toContain(SECRET_VALUE);
  });

  it('creates a receiver in XML with the gem\'s credentials list', async () => {
    const res = await server.client.sendXml(
      'POST',
      '/v1/receivers.xml',
      '<receiver><receiver_type>test</receiver_type><hostnames>https://api.example.com</hostnames><credentials><credential><name>user_name</name><value>joe</value><safe>true</safe></credential><credential><name>secret_password</name><value>' + SECRET_VALUE + '</value></credential></credentials></receiver>',
    );
    expect(res.status, res.text).toBe(201);
    expect(res.text).not.toContain(SECRET_VALUE);
    expect(childOrder(res.text, 'receiver').slice(0, 6)).toEqual(['receiver_type', 'token', 'hostnames', 'state', 'created_at', 'updated_at']);
    const credentials = asList(res.xml().receiver.credentials.credential);
    expect(credentials[0]).toMatchObject({ name: 'user_name', value: 'joe' });
    expect(credentials[1].name).toBe('secret_password');
    expect(credentials[1].value).toBeUndefined();
  });

  it('refuses blank and malformed hostnames and bad credentials with 422, unknown types with 403', async () => {
    const blank = await server.client.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'test' } });
    expect(blank.status).toBe(422);
    expect(blank.json().errors).toEqual([{ key: 'errors.blank', attribute: 'hostnames', message: "Hostnames can't be blank" }]);

    const withPath = await server.client.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'test', hostnames: 'https://api.example.com/post' } });
    expect(withPath.status).toBe(422);
    expect(withPath.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'hostnames' });

    const unknown = await server.client.sendXml('POST', '/v1/receivers.xml', '<receiver><receiver_type>nope</receiver_type><hostnames>https://a.example</hostnames></receiver>');
    expect(unknown.status).toBe(403);
    expect(xmlErrorEntries(unknown.xml().errors)).toEqual([{ key: 'errors.invalid_receiver_type', attribute: 'receiver_type', message: 'The receiver_type parameter is invalid.' }]);

    const duplicate = await server.client.sendJson('POST', '/v1/receivers.json', {
      receiver: { receiver_type: 'test', hostnames: 'https://a.example', credentials: [{ name: 'a', value: '1' }, { name: 'a', value: '2' }] },
    });
    expect(duplicate.status).toBe(422);
    expect(duplicate.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'credentials' });
    const count = await server.core.store.db.selectFrom('receivers').select((eb) => eb.fn.countAll<number>().as('n')).where('hostnames', '=', 'https://a.example').executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(0);
  });

  it('refuses a production receiver type in a test environment with 402, and accepts it in production', async () => {
    const refused = await server.client.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'http', hostnames: 'https://api.example.com' } });
    expect(refused.status).toBe(402);
    expect(refused.json().errors[0].key).toBe('errors.account_inactive');

    const named = await live.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'ace_rent_a_car' } });
    expect(named.status, named.text).toBe(201);
    expect(named.json().receiver).toMatchObject({ receiver_type: 'ace_rent_a_car', hostnames: 'https://ota.acerentacar.com', company_name: 'Ace Rent a Car' });
  });

  it('creates an SFTP receiver: user and host key shown, password and key never', async () => {
    const res = await live.sendJson('POST', '/v1/receivers.json', {
      receiver: { receiver_type: 'sftp', hostnames: 'sftp://files.example.com:2222', protocol: { user: 'merchant', password: SECRET_VALUE, host_key: FINGERPRINT } },
    });
    expect(res.status, res.text).toBe(201);
    expect(res.json().receiver.protocol).toEqual({ user: 'merchant', host_key: FINGERPRINT });
    expect(res.text).not.toContain(SECRET_VALUE);

    const missing = await live.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'sftp', hostnames: 'sftp://files.example.com' } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors.map((e: any) => e.attribute)).toEqual(['user', 'password']);
    const badPins = await live.sendJson('POST', '/v1/receivers.json', {
      receiver: { receiver_type: 'sftp', hostnames: 'sftp://files.example.com', protocol: { user: 'u', private_key: 'not a key', host_key: 'SHA256:short' } },
    });
    expect(badPins.status).toBe(422);
    expect(badPins.json().errors.map((e: any) => [e.key, e.attribute])).toEqual([['errors.invalid', 'private_key'], ['errors.invalid', 'host_key']]);
    const wrongScheme = await live.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'sftp', hostnames: 'https://files.example.com', protocol: { user: 'u', password: 'p' } } });
    expect(wrongScheme.status).toBe(422);
  });

  it('shows, lists, pages and isolates receivers per environment', async () => {
    const a = await createTestReceiver();
    const b = await createTestReceiver();
    const shown = await server.client.get(`/v1/receivers/${a.token}.xml`);
    expect(shown.status).toBe(200);
    expect(shown.xml().receiver.token).toBe(a.token);

    const page = await server.client.get(`/v1/receivers.json?since_token=${a.token}`);
    expect(page.json().receivers.map((r: any) => r.token)).toEqual([b.token]);
    const desc = await server.client.get('/v1/receivers.json?order=desc&count=1');
    expect(desc.json().receivers.map((r: any) => r.token)).toEqual([b.token]);

    const elsewhere = await other.get(`/v1/receivers/${a.token}.json`);
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.json().errors).toEqual([{ key: 'errors.receiver_not_found', message: 'Unable to find the specified receiver.' }]);
    const otherList = await other.get('/v1/receivers.json');
    expect(otherList.json().receivers).toEqual([]);
  });

  it('updates credentials as a whole list and hostnames', async () => {
    const receiver = await createTestReceiver();
    const res = await server.client.sendJson('PUT', `/v1/receivers/${receiver.token}.json`, {
      receiver: { hostnames: 'https://new.example.com', credentials: [{ name: 'token', value: 'fresh-secret-77', safe: false }] },
    });
    expect(res.status, res.text).toBe(200);
    expect(res.json().receiver).toMatchObject({ hostnames: 'https://new.example.com', credentials: [{ name: 'token', safe: false }] });
    const secrets = await server.core.receivers.openSecrets(
      receiverOf(await server.core.store.db.selectFrom('receivers').selectAll().where('token', '=', receiver.token).executeTakeFirstOrThrow()),
    );
    expect(secrets.credentials).toEqual({ token: 'fresh-secret-77' });
  });

  it('redacts: a RedactReceiver transaction wrapping the receiver, credentials destroyed, no more updates', async () => {
    const receiver = await createTestReceiver();
    const res = await server.client.request('PUT', `/v1/receivers/${receiver.token}/redact.xml`);
    expect(res.status, res.text).toBe(200);
    const transaction = res.xml().transaction;
    expect(transaction.transaction_type).toBe('RedactReceiver');
    expect(transaction.receiver.state).toBe('redacted');
    expect(xmlText(transaction.receiver.token)).toBe(receiver.token);
    const row = await server.core.store.db.selectFrom('receivers').selectAll().where('token', '=', receiver.token).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ state: 'redacted', credentials: null, sealed_credentials: null, sealed_protocol: null });

    const update = await server.client.sendJson('PUT', `/v1/receivers/${receiver.token}.json`, { receiver: { hostnames: 'https://x.example' } });
    expect(update.status).toBe(422);
    expect(update.json().errors[0].key).toBe('errors.receiver_redacted');

    const shown = await server.client.get(`/v1/transactions/${transaction.token}.json`);
    expect(shown.json().transaction).toMatchObject({ transaction_type: 'RedactReceiver', receiver_token: receiver.token });
  });

  it('answers 404 for unknown receivers on every route', async () => {
    for (const [method, url] of [
      ['GET', '/v1/receivers/nope.json'],
      ['PUT', '/v1/receivers/nope/redact.json'],
    ] as const) {
      const res = await server.client.request(method, url);
      expect(res.status).toBe(404);
      expect(res.json().errors[0].key).toBe('errors.receiver_not_found');
    }
    const update = await server.client.sendJson('PUT', '/v1/receivers/nope.json', { receiver: { hostnames: 'https://a.example' } });
    expect(update.status).toBe(404);
  });
});
