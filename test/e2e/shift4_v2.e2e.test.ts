import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, expectFaultOutcomes, FORMATS, startGatewayE2e, transact, type GatewayE2e } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakeShift4 } from '../fakes/fake-shift4.js';
import { jsonOf, type FakeRequest } from '../fakes/fake-gateway-server.js';

/**
 * Coffer with a Shift4 gateway end to end: a production environment, cards vaulted in it, every
 * operation through the v1 API in JSON and XML against a fake Shift4 API on 127.0.0.1
 * (COFFER_GATEWAY_ENDPOINTS) that checks the secret key and replays by Idempotency-Key.
 */

const SECRET_KEY = 'sk_test_e2eShift4Secret0123456789';
const PAN = '4035874000424977'; // a Luhn-valid Visa number that is not one of Coffer's own test cards

describe.each(storeKinds)('Shift4 gateway end to end (%s)', (store) => {
  let fake: FakeShift4;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The requests Shift4 received with this Idempotency-Key. */
  function sentWith(key: string): FakeRequest {
    const sent = fake.server.requestsWith('idempotency-key', key);
    expect(sent).toHaveLength(1);
    return sent[0] as FakeRequest;
  }

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'USD', ...extra });

  beforeAll(async () => {
    fake = await FakeShift4.start(SECRET_KEY);
    e2e = await startGatewayE2e('shift4_v2', fake.url, store);
    gateway = await e2e.createGateway({ secret_key: SECRET_KEY, sandbox: true });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => {
    fake.server.setMode('normal');
  });

  it('creates the gateway without echoing the secret key; a missing or unknown credential is a 422 naming the field, in JSON and XML', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'shift4_v2', secret_key: SECRET_KEY } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'shift4_v2', name: 'Shift4 V2' });
    expect(created.text).not.toContain(SECRET_KEY);
    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'shift4_v2' } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'secret_key', message: "Secret key can't be blank" }]);
    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', '<gateway><gateway_type>shift4_v2</gateway_type><secret_key>a</secret_key><auth_token>b</auth_token></gateway>');
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('auth_token');
  });

  it.each(FORMATS)('purchases in %s: POST /charges with Basic auth and the transaction token as Idempotency-Key', async (format) => {
    const { status, t } = await purchase(format, card, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({ state: 'succeeded', transaction_type: 'Purchase', gateway_type: 'shift4_v2', response: { success: true, message: 'Transaction approved', error_code: null } });
    const sent = sentWith(t.token);
    expect(sent.path).toBe('/charges');
    expect(sent.headers.authorization).toBe(`Basic ${Buffer.from(`${SECRET_KEY}:`).toString('base64')}`);
    expect(jsonOf(sent)).toMatchObject({ amount: 1000, currency: 'USD', card: { number: PAN }, metadata: { order_id: `order-${format}` } });
    expect(fake.charges.get(t.gateway_transaction_id)).toMatchObject({ captured: true, amount: 1000 });
  });

  it.each([
    ['insufficient_funds', 'The card has insufficient funds.'],
    ['expired_card', 'The card has expired.'],
  ])('turns a 402 %s into 422 gateway_processing_failed with that code, JSON and XML', async (code, message) => {
    const declining = await e2e.vault(PAN, { first_name: 'Reject', last_name: code });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: code, message } });
    }
  });

  it('authorizes, captures part, refunds part, in JSON and XML', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'USD' });
    expect(auth.status).toBe(200);
    expect(jsonOf(sentWith(auth.t.token))).toMatchObject({ captured: false });
    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Transaction captured' } });
    expect(sentWith(capture.t.token).path).toBe(`/charges/${auth.t.gateway_transaction_id}/capture`);
    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500, response: { message: 'Transaction refunded' } });
    expect(jsonOf(sentWith(credit.t.token))).toEqual({ amount: 500 });
    expect(fake.charges.get(auth.t.gateway_transaction_id)).toMatchObject({ capturedAmount: 2000, refunded: 500 });
    const second = await transact(e2e.live, 'json', `transactions/${auth.t.token}/capture`, { amount: 100 });
    expect(second.status).toBe(422);
  });

  it('voids an authorization by a full refund, and verifies a card (authorize 100, released)', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'USD' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Transaction voided' } });
    expect(sentWith(voided.t.token).path).toBe(`/charges/${auth.t.gateway_transaction_id}/refund`);
    expect(fake.charges.get(auth.t.gateway_transaction_id)).toMatchObject({ refunded: 700 });
    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card, currency_code: 'USD' });
    expect(verified.status).toBe(200);
    expect(jsonOf(sentWith(verified.t.token))).toMatchObject({ amount: 100, captured: false });
    expect(sentWith(`${verified.t.token}-release`).path).toBe(`/charges/${verified.t.gateway_transaction_id}/refund`);
    expect(fake.charges.get(verified.t.gateway_transaction_id)).toMatchObject({ refunded: 100 });
  });

  it.each(FORMATS)('pays out with general credit in %s at POST /credits', async (format) => {
    const credited = await transact(e2e.live, format, `gateways/${gateway}/general_credit`, { payment_method_token: card, amount: 1500, currency_code: 'EUR' });
    expect(credited.status).toBe(200);
    expect(credited.t).toMatchObject({ state: 'succeeded', transaction_type: 'GeneralCredit', amount: 1500, response: { message: 'Transaction credited' } });
    const sent = sentWith(credited.t.token);
    expect(sent.path).toBe('/credits');
    expect(jsonOf(sent)).toMatchObject({ amount: 1500, currency: 'EUR', card: { number: PAN } });
    expect(fake.credits.get(credited.t.gateway_transaction_id)).toMatchObject({ amount: 1500, currency: 'EUR' });
  });

  it('stores the card as a Shift4 customer and purchases with it, sending no card number', async () => {
    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    const token = stored.t.third_party_token as string;
    expect(token).toMatch(/^cust_\w+\|card_\w+$/);
    const bought = await purchase('xml', stored.t.payment_method.token as string);
    expect(bought.status).toBe(200);
    const sent = sentWith(bought.t.token);
    expect(jsonOf(sent)).toMatchObject({ customerId: token.split('|')[0], card: token.split('|')[1] });
    expect(sent.rawBody).not.toContain(PAN);
  });

  it('a hang is 408, a 500 or garbage is 422 processing_error; a wrong secret key is a config_error', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ secret_key: 'sk_test_not_the_key', sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'Provided API key is invalid' });
  });

  it('keeps no card data, CVC or secret key in the transcript', async () => {
    const fresh = await e2e.vault(PAN);
    const bought = await purchase('json', fresh);
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`POST ${fake.url}/charges\n`);
    expect(res.text).toContain('"captured":true');
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(SECRET_KEY);
    expect(res.text).not.toContain(Buffer.from(`${SECRET_KEY}:`).toString('base64'));
    expect(res.text).not.toMatch(/"cvc"\s*:\s*"737"/);
    expect(findCardData(res.text)).toEqual([]);
  });
});
