import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RecordingReceiver } from '../fakes/recording-receiver.js';
import { addPaymentMethod, createTestGateway } from '../helpers/fixtures.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import type { ApiClient } from '../helpers/client.js';

const PAN = '4111111111111111';
const CVV = '321';

/**
 * Every opening of card data is recorded (docs/audit.md, "Card access records"): a purchase, the
 * capture that scrubs its transcript with the card, a delivery; each by the access secret that
 * asked, with the request id; `GET /v1/payment_methods/<t>/access_log` shows them to admins.
 */
describe.each(storeKinds)('card access records (%s)', (store) => {
  let server: TestServer;
  let receiver: RecordingReceiver;
  let transact: ApiClient;
  let transactKey: string;
  let gateway: string;

  beforeAll(async () => {
    receiver = await RecordingReceiver.start();
    server = await startServer({ store, env: { COFFER_EGRESS_ALLOW: '127.0.0.1' } });
    const created = await server.core.tenancy.createAccessSecret(server.init.organization_token, { name: 't', role: 'transact', environmentKeys: null });
    transact = server.client.withAuth({ user: server.init.environment_key, password: created.secret });
    transactKey = created.accessSecret.key;
    gateway = await createTestGateway(server.client);
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
  });

  async function card(): Promise<string> {
    const transaction = await addPaymentMethod(server.client, { credit_card: { first_name: 'Joe', last_name: 'Jones', number: PAN, verification_value: CVV, month: 3, year: 2035 }, retained: true });
    return transaction.payment_method.token;
  }

  const accessLog = (token: string, query = '') => server.client.get(`/v1/payment_methods/${token}/access_log.json${query}`);

  it('records a purchase, a capture and a delivery, by who asked and with the request id', async () => {
    const pm = await card();
    // Vaulting seals the card and opens nothing.
    expect((await accessLog(pm)).json().access_log).toEqual([]);

    const purchase = await transact.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: pm } });
    expect(purchase.status, purchase.text).toBe(200);
    const authorize = await transact.sendJson('POST', `/v1/gateways/${gateway}/authorize.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: pm } });
    expect(authorize.status, authorize.text).toBe(200);
    const capture = await transact.sendJson('POST', `/v1/transactions/${authorize.json().transaction.token}/capture.json`, {});
    expect(capture.status, capture.text).toBe(200);
    const receiverToken = (await server.client.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'test', hostnames: receiver.url } })).json().receiver.token;
    const delivery = await server.client.sendJson('POST', `/v1/receivers/${receiverToken}/deliver.json`, { delivery: { payment_method_token: pm, url: `${receiver.url}/cards`, headers: 'Content-Type: text/plain', body: '{{credit_card_number}}' } });
    expect(delivery.status, delivery.text).toBe(200);

    const log = await accessLog(pm);
    expect(log.status, log.text).toBe(200);
    const records = log.json().access_log;
    expect(records.map((record: { operation: string }) => record.operation)).toEqual(['deliver', 'capture', 'authorize', 'purchase']);
    expect(records[3]).toMatchObject({
      object_type: 'transaction',
      object_id: purchase.json().transaction.token,
      actor_type: 'access_secret',
      actor: transactKey,
      request_id: purchase.headers['x-request-id'],
    });
    expect(records[1]).toMatchObject({ object_id: capture.json().transaction.token, actor: transactKey, request_id: capture.headers['x-request-id'] });
    expect(records[0]).toMatchObject({ object_id: delivery.json().transaction.token, actor_type: 'access_secret', request_id: delivery.headers['x-request-id'] });
    // The PAN only: a 3-digit CVV could appear by chance inside a request id or a hash.
    expect(log.text).not.toContain(PAN);

    // Paging, newest first.
    const first = (await accessLog(pm, '?count=2')).json().access_log;
    expect(first.map((record: { operation: string }) => record.operation)).toEqual(['deliver', 'capture']);
    const next = (await accessLog(pm, `?count=2&before=${first[1].cursor}`)).json().access_log;
    expect(next.map((record: { operation: string }) => record.operation)).toEqual(['authorize', 'purchase']);

    // Each record is in the chain, which verifies.
    await server.core.auditChain.chainPending();
    const verification = await server.core.auditChain.verify();
    expect(verification.ok, verification.problem?.message).toBe(true);
    expect(verification.entriesChecked).toBeGreaterThanOrEqual(4);
    // The SIEM export carries the records, never the card.
    const exported: string[] = [];
    for await (const entry of server.core.auditChain.export()) exported.push(JSON.stringify(entry));
    expect(exported.filter((line) => line.includes(pm)).length).toBeGreaterThanOrEqual(4);
    expect(exported.join('\n')).not.toContain(PAN);
  });

  it('is for admin secrets only, names unknown methods 404 and refuses a bad count', async () => {
    const pm = await card();
    const refused = await transact.get(`/v1/payment_methods/${pm}/access_log.json`);
    expect(refused.status).toBe(401);
    expect(refused.json().errors[0]).toMatchObject({ key: 'errors.access_denied' });
    const unknown = await accessLog('NoSuchPaymentMethod1234567');
    expect(unknown.status).toBe(404);
    expect(unknown.json().errors[0]).toMatchObject({ key: 'errors.payment_method_not_found' });
    for (const bad of ['?count=0', '?count=101', '?count=x', '?before=-1']) {
      const res = await accessLog(pm, bad);
      expect(res.status, bad).toBe(422);
      expect(res.json().errors[0], bad).toMatchObject({ key: 'errors.invalid' });
    }
    // XML, as every list.
    const xml = await server.client.get(`/v1/payment_methods/${pm}/access_log.xml`);
    expect(xml.status).toBe(200);
    expect(xml.text).toContain('<access_log');
  });
});
