import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeStripe, type FakeStripe } from '../fakes/fake-stripe.js';
import { RecordingReceiver } from '../fakes/recording-receiver.js';
import { CVV_ENCODINGS, sampleHiddenForms, showsCvv, showsPan } from '../helpers/card-encodings.js';
import type { ApiClient } from '../helpers/client.js';
import { addPaymentMethod } from '../helpers/fixtures.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { storedBytes } from '../helpers/stored-bytes.js';

/**
 * A gateway and a receiver that echo this call's card number (and the gateway its CVV) in the
 * encodings only a projection or a decoding finds (docs/security.md, "Scrubbing"): generated
 * forms, none of which may survive in any returned field, transcript, or the database.
 */

const PAN = '4242424242424242';
const CVV = '8317';
const LIVE_KEY = 'sk_live_CofferHiddenFormsKey00001';
const FORMS = sampleHiddenForms(PAN, 24, 20261127);
/** The test receiver takes test cards, in the test environment. */
const TEST_PAN = '4111111111111111';
const RECEIVER_FORMS = sampleHiddenForms(TEST_PAN, 8, 20261128);

/** Every string in a parsed answer, keys included. */
function stringsOf(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (Array.isArray(value)) return value.flatMap(stringsOf);
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([key, item]) => [key, ...stringsOf(item)]);
  return [];
}

function expectNoCard(text: string, where: string, pan = PAN): void {
  expect(showsPan(text, pan), `the card in ${where}: ${text.slice(0, 400)}`).toBe(false);
  expect(showsCvv(text, CVV), `the CVV in ${where}`).toBe(false);
}

/** The stored bytes hold neither an echoed form as sent nor as JSON would escape it. */
function expectNotStored(stored: string, encoded: string): void {
  expect(stored.includes(encoded)).toBe(false);
  expect(stored.includes(JSON.stringify(encoded).slice(1, -1))).toBe(false);
}

describe.each(storeKinds)('hidden encodings of the card are scrubbed end to end (%s)', (store) => {
  let fake: FakeStripe;
  let receiver: RecordingReceiver;
  let server: TestServer;
  let live: ApiClient;
  let gateway: string;
  let receiverToken: string;
  let card: string;

  beforeAll(async () => {
    fake = await startFakeStripe([LIVE_KEY]);
    receiver = await RecordingReceiver.start();
    server = await startServer({ store, env: { COFFER_GATEWAY_ENDPOINTS: JSON.stringify({ stripe: fake.url }), COFFER_EGRESS_ALLOW: '127.0.0.1' } });
    const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
    const created = await live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: LIVE_KEY } });
    expect(created.status, created.text).toBe(201);
    gateway = created.json().gateway.token;
    const added = await server.client.sendJson('POST', '/v1/receivers.json', { receiver: { receiver_type: 'test', hostnames: receiver.url } });
    expect(added.status, added.text).toBe(201);
    receiverToken = added.json().receiver.token;
    const method = await addPaymentMethod(server.client, { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number: TEST_PAN, month: 3, year: 2035 }, retained: true });
    card = method.payment_method.token;
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
    await receiver?.close();
  });

  it.each(FORMS.map((form, index) => [index, form.name, form.encoded] as const))('gateway echo %i (%s)', async (index, _name, encoded) => {
    const cvvForm = (CVV_ENCODINGS[index % CVV_ENCODINGS.length] as (typeof CVV_ENCODINGS)[number]).encode(CVV);
    fake.echoingDecline = () => ({ message: `Declined: card ${encoded} end`, declineCode: `cvc ${cvvForm}` });
    const format = index % 2 === 0 ? 'json' : 'xml';
    const path = `/v1/gateways/${gateway}/purchase.${format}`;
    const creditCard = { first_name: 'Ada', last_name: 'Lovelace', number: PAN, verification_value: CVV, month: 12, year: 2034 };
    const res =
      format === 'json'
        ? await live.sendJson('POST', path, { transaction: { credit_card: creditCard, amount: 100, currency_code: 'USD' } })
        : await live.sendXml('POST', path, `<transaction><credit_card>${Object.entries(creditCard).map(([name, value]) => `<${name}>${value}</${name}>`).join('')}</credit_card><amount>100</amount><currency_code>USD</currency_code></transaction>`);
    expect(res.status, res.text).toBe(422);
    // The gateway did get the card and did echo it: what is checked is what came back.
    expect(fake.lastRequest().form['payment_method_data[card][number]']).toBe(PAN);
    const transaction = format === 'json' ? res.json().transaction : res.xml().transaction;
    expect(transaction.message).toContain('Declined: card ');
    expect(transaction.message).toContain('[FILTERED]');
    for (const text of stringsOf(transaction)) expectNoCard(text, 'the answer');
    expectNoCard(res.text, 'the answer as sent');

    const shown = await live.get(`/v1/transactions/${transaction.token}.json`);
    for (const text of stringsOf(shown.json())) expectNoCard(text, 'GET /v1/transactions/<token>');
    const transcript = await live.get(`/v1/transactions/${transaction.token}/transcript`);
    expect(transcript.status).toBe(200);
    expectNoCard(transcript.text, 'the transcript');
    expectNotStored((await storedBytes(server)).toString('utf8'), encoded);
  });

  it.each(RECEIVER_FORMS.map((form, index) => [index, form.name, form.encoded] as const))('receiver echo %i (%s)', async (_index, _name, encoded) => {
    receiver.answer = { kind: 'fixed', status: 200, headers: { 'Content-Type': 'text/plain' }, body: Buffer.from(`you sent ${encoded} ok`) };
    const res = await server.client.sendJson('POST', `/v1/receivers/${receiverToken}/deliver.json`, { delivery: { payment_method_token: card, url: receiver.url, body: '{{credit_card_number}}' } });
    expect(res.status, res.text).toBe(200);
    const transaction = res.json().transaction;
    expect(transaction.response.body).toContain('you sent ');
    expect(transaction.response.body).toContain('[FILTERED]');
    for (const text of stringsOf(transaction)) expectNoCard(text, 'the delivery answer', TEST_PAN);
    const transcript = await server.client.get(`/v1/transactions/${transaction.token}/transcript`);
    expectNoCard(transcript.text, 'the delivery transcript', TEST_PAN);
    expectNotStored((await storedBytes(server)).toString('utf8'), encoded);
  });
});
