import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { RecordingReceiver } from '../fakes/recording-receiver.js';
import { MtlsReceiver, TestCa } from '../fakes/mtls-receiver.js';
import { addPaymentMethod, paymentMethodRow } from '../helpers/fixtures.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { tempDir } from '../helpers/temp.js';
import type { ApiClient } from '../helpers/client.js';

const PAN = '4111111111111111';
const CVV = '987';
const SECRET = 'sk-receiver-secret-5531';

/**
 * POST receivers/<t>/deliver end to end (API.md §4, wire-reference §2.6, §3.6, §7): the card goes
 * to a real HTTP server on 127.0.0.1 that records what it received; the PAN arrives there and
 * nowhere else (the client's leak guard checks every response, the server's every log line).
 */
describe.each(storeKinds)('deliver to HTTP receivers (%s)', (store) => {
  let server: TestServer;
  let receiver: RecordingReceiver;
  let other: RecordingReceiver;
  let receiverToken: string;

  beforeAll(async () => {
    receiver = await RecordingReceiver.start();
    other = await RecordingReceiver.start();
    server = await startServer({ store, env: { COFFER_EGRESS_ALLOW: '127.0.0.1', COFFER_RECEIVER_TIMEOUT: '1' } });
    const res = await server.client.sendJson('POST', '/v1/receivers.json', {
      receiver: { receiver_type: 'test', hostnames: receiver.url, credentials: [{ name: 'api_key', value: SECRET }, { name: 'user_name', value: 'joe', safe: true }] },
    });
    expect(res.status, res.text).toBe(201);
    receiverToken = res.json().receiver.token;
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
    await other.close();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    other.received.length = 0;
    receiver.answer = { kind: 'fixed', status: 200, headers: { 'Content-Type': 'text/plain' }, body: 'ok' };
  });

  async function card(extra: Record<string, unknown> = {}): Promise<string> {
    const transaction = await addPaymentMethod(server.client, {
      credit_card: { first_name: 'Joe', last_name: 'Jones', number: PAN, verification_value: CVV, month: 3, year: 2035, ...extra },
      retained: true,
    });
    return transaction.payment_method.token;
  }

  function deliverJson(client: ApiClient, token: string, delivery: Record<string, unknown>) {
    return client.sendJson('POST', `/v1/receivers/${token}/deliver.json`, { delivery });
  }

  it('sends the rendered card to the receiver and records a scrubbed DeliverPaymentMethod', async () => {
    const pm = await card();
    receiver.answer = { kind: 'echo' };
    const res = await deliverJson(server.client, receiverToken, {
      payment_method_token: pm,
      url: `${receiver.url}/cards?user={{user_name}}`,
      headers: 'Content-Type: application/json\r\nAuthorization: Bearer {{api_key}}\r\nX-Echo: {{credit_card_number}}',
      body: '{"number":"{{credit_card_number}}","cvv":"{{credit_card_verification_value}}","exp":"{{credit_card_expiration_date}}","name":"{{credit_card_full_name}}"}',
    });
    expect(res.status, res.text).toBe(200);
    const [got] = receiver.received;
    expect(got?.method).toBe('POST');
    expect(got?.target).toBe('/cards?user=joe');
    expect(got?.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(JSON.parse(got?.body ?? '{}')).toEqual({ number: PAN, cvv: CVV, exp: '2035-03-01', name: 'Joe Jones' });

    const transaction = res.json().transaction;
    expect(transaction).toMatchObject({ transaction_type: 'DeliverPaymentMethod', state: 'succeeded', succeeded: true, message: 'Succeeded!' });
    expect(Object.keys(transaction).slice(0, 10)).toEqual(['token', 'created_at', 'updated_at', 'succeeded', 'transaction_type', 'state', 'message_key', 'message', 'url', 'deliver_time_ms']);
    expect(transaction.response.status).toBe(200);
    expect(transaction.response.body).toBe('{"number":"[FILTERED]","cvv":"[FILTERED]","exp":"2035-03-01","name":"Joe Jones"}');
    expect(transaction.response.headers).toContain('X-Echoed: [FILTERED]');
    expect(transaction.receiver.token).toBe(receiverToken);
    expect(transaction.payment_method.token).toBe(pm);
    expect(res.text).not.toContain(SECRET);

    // The CVV was consumed by the delivery; the transcript holds no PAN, CVV or secret.
    expect((await paymentMethodRow(server, pm)).sealed_cvv).toBeNull();
    const transcript = await server.client.get(`/v1/transactions/${transaction.token}/transcript`);
    expect(transcript.status).toBe(200);
    expect(transcript.text).toContain('[FILTERED]');
    for (const value of [PAN, CVV, SECRET]) expect(transcript.text).not.toContain(value);
    const shown = await server.client.get(`/v1/transactions/${transaction.token}.json`);
    expect(shown.json().transaction).toMatchObject({ transaction_type: 'DeliverPaymentMethod', response: { status: 200 } });
  });

  it('delivers in XML as the Ruby gem sends it (CDATA headers and body), PUT, continue_caching', async () => {
    const pm = await card();
    const res = await server.client.sendXml(
      'POST',
      `/v1/receivers/${receiverToken}/deliver.xml`,
      `<delivery><payment_method_token>${pm}</payment_method_token><url>${receiver.url}/put</url><request_method>PUT</request_method><continue_caching>true</continue_caching><headers><![CDATA[Content-Type: text/xml]]></headers><body><![CDATA[<card><n>{{credit_card_number}}</n></card>]]></body></delivery>`,
    );
    expect(res.status, res.text).toBe(200);
    expect(receiver.received[0]).toMatchObject({ method: 'PUT', target: '/put', body: `<card><n>${PAN}</n></card>` });
    expect(res.xml().transaction.state).toBe('succeeded');
    expect(res.xml().transaction.response.status['#text']).toBe('200');
    expect((await paymentMethodRow(server, pm)).sealed_cvv).not.toBeNull();
  });

  it('escapes {{ }} values as HTML and leaves {{{ }}} raw', async () => {
    const pm = await card({ first_name: 'A<b>&"c' });
    const res = await deliverJson(server.client, receiverToken, {
      payment_method_token: pm,
      url: receiver.url,
      body: '{{credit_card_first_name}}|{{{credit_card_first_name}}}',
    });
    expect(res.status, res.text).toBe(200);
    expect(receiver.received[0]?.body).toBe('A&lt;b&gt;&amp;&quot;c|A<b>&"c');
  });

  it('base64-encodes the scrubbed answer with encode_response', async () => {
    const pm = await card();
    receiver.answer = { kind: 'echo' };
    const res = await deliverJson(server.client, receiverToken, { payment_method_token: pm, url: receiver.url, body: 'pan={{credit_card_number}}', encode_response: true });
    expect(res.status).toBe(200);
    expect(Buffer.from(res.json().transaction.response.body, 'base64').toString('utf8')).toBe('pan=[FILTERED]');
  });

  it('refuses a url outside the receiver hostnames (422) and sends nothing', async () => {
    const pm = await card();
    const before = await server.core.store.db.selectFrom('transactions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    for (const url of [other.url, `https://127.0.0.1:${receiver.port}`, 'http://evil.example.com']) {
      const res = await deliverJson(server.client, receiverToken, { payment_method_token: pm, url, body: '{{credit_card_number}}' });
      expect(res.status).toBe(422);
      expect(res.json().errors).toEqual([{ key: 'errors.url_not_allowed', attribute: 'url', message: "The url must match one of the receiver's hostnames (scheme, host and port)." }]);
    }
    expect(receiver.received).toHaveLength(0);
    expect(other.received).toHaveLength(0);
    const after = await server.core.store.db.selectFrom('transactions').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    expect((await paymentMethodRow(server, pm)).sealed_cvv).not.toBeNull();
  });

  it('never follows a redirect: the 302 is the receiver\'s answer (422, gateway_processing_failed)', async () => {
    const pm = await card();
    receiver.answer = { kind: 'fixed', status: 302, headers: { Location: `${other.url}/stolen` } };
    const res = await deliverJson(server.client, receiverToken, { payment_method_token: pm, url: receiver.url, body: '{{credit_card_number}}' });
    expect(res.status).toBe(422);
    expect(res.json().transaction).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { status: 302 } });
    expect(other.received).toHaveLength(0);
  });

  it('records a receiver that hangs as gateway_processing_result_unknown (408)', async () => {
    const pm = await card();
    receiver.answer = { kind: 'hang' };
    const started = Date.now();
    const res = await deliverJson(server.client, receiverToken, { payment_method_token: pm, url: receiver.url, body: '{{credit_card_number}}' });
    expect(res.status).toBe(408);
    expect(res.json().transaction).toMatchObject({ state: 'gateway_processing_result_unknown', succeeded: false });
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('records a refused connection as gateway_processing_failed (422)', async () => {
    const closed = await RecordingReceiver.start();
    const url = closed.url;
    await closed.close();
    const res0 = await server.client.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'test', hostnames: url } });
    const pm = await card();
    const res = await deliverJson(server.client, res0.json().receiver.token, { payment_method_token: pm, url, body: 'x' });
    expect(res.status).toBe(422);
    expect(res.json().transaction).toMatchObject({ state: 'gateway_processing_failed', message: 'Unable to connect to the receiver.' });
  });

  it('answers field errors, unknown receiver and unknown payment method', async () => {
    const blank = await deliverJson(server.client, receiverToken, {});
    expect(blank.status).toBe(422);
    expect(blank.json().errors.map((e: any) => e.attribute)).toEqual(['payment_method_token', 'url', 'body']);
    const badMethod = await deliverJson(server.client, receiverToken, { payment_method_token: 'x', url: receiver.url, body: 'x', request_method: 'TRACE' });
    expect(badMethod.json().errors[0]).toMatchObject({ key: 'errors.inclusion', attribute: 'request_method' });
    const badTemplate = await deliverJson(server.client, receiverToken, { payment_method_token: await card(), url: receiver.url, body: '{{#unclosed}}' });
    expect(badTemplate.status).toBe(422);
    expect(badTemplate.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'body' });
    const badHeader = await deliverJson(server.client, receiverToken, { payment_method_token: await card(), url: receiver.url, body: 'x', headers: 'Bad Header: 1' });
    expect(badHeader.status).toBe(422);
    expect(badHeader.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'headers' });

    const noReceiver = await deliverJson(server.client, 'nope', { payment_method_token: 'x', url: receiver.url, body: 'x' });
    expect(noReceiver.status).toBe(404);
    expect(noReceiver.json().errors[0].key).toBe('errors.receiver_not_found');
    const noCard = await deliverJson(server.client, receiverToken, { payment_method_token: 'nope', url: receiver.url, body: 'x' });
    expect(noCard.status).toBe(404);
    expect(noCard.json().errors).toEqual([{ key: 'errors.payment_method_not_found', message: 'Unable to find the specified payment method.' }]);
    expect(receiver.received).toHaveLength(0);
  });

  it('refuses a redacted payment method with a failed transaction (422) and a redacted receiver', async () => {
    const pm = await card();
    await server.client.request('PUT', `/v1/payment_methods/${pm}/redact.json`);
    const res = await deliverJson(server.client, receiverToken, { payment_method_token: pm, url: receiver.url, body: '{{credit_card_number}}' });
    expect(res.status).toBe(422);
    expect(res.json().transaction).toMatchObject({ state: 'failed', message_key: 'messages.payment_method_redacted' });

    const created = await server.client.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'test', hostnames: receiver.url } });
    const token = created.json().receiver.token;
    await server.client.request('PUT', `/v1/receivers/${token}/redact.json`);
    const redacted = await deliverJson(server.client, token, { payment_method_token: await card(), url: receiver.url, body: 'x' });
    expect(redacted.status).toBe(422);
    expect(redacted.json().errors[0].key).toBe('errors.receiver_redacted');
    expect(receiver.received).toHaveLength(0);
  });
});

describe('deliver: egress guard and production checks', () => {
  let server: TestServer;
  let receiver: RecordingReceiver;
  let live: ApiClient;

  beforeAll(async () => {
    receiver = await RecordingReceiver.start();
    server = await startServer({});
    const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
  });
  afterAll(async () => {
    await server.close();
    await receiver.close();
  });

  it('refuses loopback and metadata destinations without COFFER_EGRESS_ALLOW, recording a failed transaction', async () => {
    for (const hostnames of [receiver.url, 'http://169.254.169.254', 'http://10.0.0.1']) {
      const created = await server.client.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'test', hostnames } });
      const pm = await addPaymentMethod(server.client, { credit_card: { first_name: 'A', last_name: 'B', number: PAN, month: 1, year: 2035 } });
      const res = await server.client.sendJson('POST', `/v1/receivers/${created.json().receiver.token}/deliver.json`, {
        delivery: { payment_method_token: pm.payment_method.token, url: `${hostnames}/latest/meta-data`, body: '{{credit_card_number}}' },
      });
      expect(res.status).toBe(422);
      expect(res.json().transaction).toMatchObject({ state: 'failed', message_key: 'messages.egress_refused' });
      expect(res.json().transaction.message).toMatch(/private|loopback|link-local|metadata/i);
    }
    expect(receiver.received).toHaveLength(0);
  });

  it('a test receiver refuses a real card (402)', async () => {
    const created = await live.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'test', hostnames: receiver.url } });
    // Luhn-valid and not one of the test cards: a real card to Coffer.
    const real = await addPaymentMethod(live, { credit_card: { first_name: 'A', last_name: 'B', number: '4000056655665556', month: 1, year: 2035 } });
    expect(real.payment_method.test).toBe(false);
    const res = await live.sendJson('POST', `/v1/receivers/${created.json().receiver.token}/deliver.json`, {
      delivery: { payment_method_token: real.payment_method.token, url: receiver.url, body: 'x' },
    });
    expect(res.status).toBe(402);
    expect(res.json().errors[0]).toMatchObject({ key: 'errors.account_inactive', message: 'The test receiver accepts only test payment methods. Use a production receiver for real payment methods.' });
  });
});

describe('deliver over mutual TLS with a certificate from the certificates API', () => {
  let server: TestServer;
  let ca: TestCa;
  let mtls: MtlsReceiver;

  beforeAll(async () => {
    ca = await TestCa.create();
    mtls = await MtlsReceiver.start({ ca, dnsNames: ['localhost'], requireClientCert: true });
    const dir = tempDir();
    const caFile = path.join(dir.dir, 'receiver-ca.pem');
    fs.writeFileSync(caFile, ca.pem);
    server = await startServer({ env: { COFFER_EGRESS_ALLOW: '127.0.0.1,localhost', COFFER_OUTBOUND_CA_FILE: caFile } });
  });
  afterAll(async () => {
    await server.close();
    await mtls.close();
  });

  it('presents the receiver\'s client certificate; without one the handshake is refused', async () => {
    const client = await ca.issueClient('coffer-merchant');
    const uploaded = await server.client.sendJson('POST', '/v1/certificates.json', { certificate: { pem: client.cert, private_key: client.key } });
    expect(uploaded.status, uploaded.text).toBe(201);
    const url = `https://localhost:${mtls.port}`;
    const withCert = await server.client.sendJson('POST', '/v1/receivers.json', {
      receiver: { receiver_type: 'test', hostnames: url, certificate_token: uploaded.json().certificate.token },
    });
    expect(withCert.status, withCert.text).toBe(201);
    const withoutCert = await server.client.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'test', hostnames: url } });
    const pm = await addPaymentMethod(server.client, { credit_card: { first_name: 'A', last_name: 'B', number: PAN, month: 1, year: 2035 }, retained: true });
    const token = pm.payment_method.token;

    const ok = await server.client.sendJson('POST', `/v1/receivers/${withCert.json().receiver.token}/deliver.json`, { delivery: { payment_method_token: token, url: `${url}/mtls`, body: '{{credit_card_number}}' } });
    expect(ok.status, ok.text).toBe(200);
    expect(mtls.received[0]).toMatchObject({ target: '/mtls', body: PAN, clientCommonName: 'coffer-merchant', servername: 'localhost' });

    const refused = await server.client.sendJson('POST', `/v1/receivers/${withoutCert.json().receiver.token}/deliver.json`, { delivery: { payment_method_token: token, url: `${url}/mtls`, body: '{{credit_card_number}}' } });
    expect(refused.status).toBe(422);
    expect(refused.json().transaction.state).toBe('gateway_processing_failed');
    expect(mtls.received).toHaveLength(1);

    // Once the certificate is redacted, the receiver naming it fails clearly, before any connection.
    const redacted = await server.client.sendJson('PUT', `/v1/certificates/${uploaded.json().certificate.token}/redact.json`, {});
    expect(redacted.status, redacted.text).toBe(200);
    const afterRedact = await server.client.sendJson('POST', `/v1/receivers/${withCert.json().receiver.token}/deliver.json`, { delivery: { payment_method_token: token, url: `${url}/mtls`, body: '{{credit_card_number}}' } });
    expect(afterRedact.status).toBe(422);
    expect(afterRedact.json().errors).toEqual([{ key: 'errors.certificate_redacted', message: "Unable to use a certificate because it's been redacted." }]);
    expect(mtls.received).toHaveLength(1);

    const unknownCertificate = await server.client.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'test', hostnames: url, certificate_token: 'nope' } });
    expect(unknownCertificate.status).toBe(422);
    expect(unknownCertificate.json().errors[0]).toMatchObject({ key: 'errors.invalid', attribute: 'certificate_token' });
  });
});
