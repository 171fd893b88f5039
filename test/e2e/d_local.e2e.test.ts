import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, FORMATS, startGatewayE2e, transact, type GatewayE2e } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakeDLocal } from '../fakes/fake-d-local.js';
import { jsonOf, type FakeRequest } from '../fakes/fake-gateway-server.js';

/**
 * Coffer with a dLocal gateway end to end: a production environment, cards vaulted in it, every
 * operation through the v1 API in JSON and XML against a fake, signature-checking and signing dLocal
 * Payins API on 127.0.0.1 (COFFER_GATEWAY_ENDPOINTS), asserting what the API answers and what dLocal
 * received.
 */

const LOGIN = 'e2eDLocalLogin01';
const TRANS_KEY = 'e2eTransKey-0001-secret';
const SECRET_KEY = 'e2eSecretKey-abcdef-0123456789';
const PAN = '4035874000424977'; // a Luhn-valid Visa number that is not one of Coffer's own test cards

describe.each(storeKinds)('dLocal gateway end to end (%s)', (store) => {
  let fake: FakeDLocal;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The one request dLocal received with this X-Idempotency-Key (Coffer's transaction token). */
  function sentWith(token: string): FakeRequest {
    const sent = fake.server.requestsWith('x-idempotency-key', token);
    expect(sent).toHaveLength(1);
    return sent[0] as FakeRequest;
  }

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'USD', ...extra });

  beforeAll(async () => {
    fake = await FakeDLocal.start({ login: LOGIN, transKey: TRANS_KEY, secretKey: SECRET_KEY });
    e2e = await startGatewayE2e('d_local', fake.url, store);
    gateway = await e2e.createGateway({ login: LOGIN, trans_key: TRANS_KEY, secret_key: SECRET_KEY, sandbox: true });
    card = await e2e.vault(PAN, { country: 'BR' });
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => {
    fake.server.setMode('normal');
    fake.forgeSignatures = false;
  });

  it('creates the gateway echoing only the login; a missing or unknown credential is a 422 naming the field, in JSON and XML', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'd_local', login: LOGIN, trans_key: TRANS_KEY, secret_key: SECRET_KEY } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'd_local', name: 'dLocal', login: LOGIN });
    expect(created.text).not.toContain(TRANS_KEY);
    expect(created.text).not.toContain(SECRET_KEY);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'd_local', login: LOGIN, trans_key: TRANS_KEY } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'secret_key', message: "Secret key can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>d_local</gateway_type><login>a</login><trans_key>b</trans_key><secret_key>c</secret_key><api_key>d</api_key></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('api_key');
  });

  it.each(FORMATS)('purchases in %s: a signed POST /secure_payments, succeeded with dLocal’s payment id', async (format) => {
    const { status, t } = await purchase(format, card, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({ state: 'succeeded', transaction_type: 'Purchase', gateway_type: 'd_local', response: { success: true, message: 'Transaction approved', error_code: null } });
    const sent = sentWith(t.token);
    expect(sent.path).toBe('/secure_payments');
    const date = sent.headers['x-date'] as string;
    expect(sent.headers.authorization).toBe(`V2-HMAC-SHA256, Signature: ${createHmac('sha256', SECRET_KEY).update(LOGIN + date + sent.rawBody).digest('hex')}`);
    expect(jsonOf(sent)).toMatchObject({ amount: 10, currency: 'USD', country: 'BR', payment_method_id: 'CARD', payment_method_flow: 'DIRECT', order_id: `order-${format}`, card: { number: PAN, capture: true } });
    expect(fake.payments.get(t.gateway_transaction_id)).toMatchObject({ status: 'PAID', amount: 10 });
  });

  it.each([
    ['302', 'insufficient_funds', 'Insufficient amount.'],
    ['315', 'incorrect_cvc', 'Invalid security code.'],
  ])('turns a rejection with status_code %s into 422 gateway_processing_failed (%s), JSON and XML', async (code, errorCode, message) => {
    const declining = await e2e.vault(PAN, { first_name: 'Reject', last_name: code, country: 'BR' });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: errorCode, message } });
    }
  });

  it('authorizes, captures part, refunds part of the capture, in JSON and XML', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'USD' });
    expect(auth.status).toBe(200);
    expect(jsonOf(sentWith(auth.t.token))).toMatchObject({ card: { capture: false } });

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Transaction captured' } });
    expect(jsonOf(sentWith(capture.t.token))).toMatchObject({ authorization_id: auth.t.gateway_transaction_id, amount: 20, currency: 'USD' });

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500, response: { message: 'Refund accepted' } });
    expect(jsonOf(sentWith(credit.t.token))).toEqual({ payment_id: capture.t.gateway_transaction_id, amount: 5, currency: 'USD' });
    expect(fake.payments.get(capture.t.gateway_transaction_id)).toMatchObject({ captured: 20, refunded: 5 });

    const second = await transact(e2e.live, 'json', `transactions/${auth.t.token}/capture`, { amount: 100 });
    expect(second.status).toBe(422);
  });

  it('voids an authorization at /payments/{id}/cancel, and verifies a card', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'USD' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Transaction cancelled' } });
    expect(sentWith(voided.t.token).path).toBe(`/payments/${auth.t.gateway_transaction_id}/cancel`);
    expect(fake.payments.get(auth.t.gateway_transaction_id)?.status).toBe('CANCELLED');

    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card, currency_code: 'USD' });
    expect(verified.status).toBe(200);
    expect(jsonOf(sentWith(verified.t.token))).toMatchObject({ amount: 0, card: { verify: true } });
  });

  it('stores the card at dLocal and purchases with its card_id, sending no card number', async () => {
    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    const cardId = stored.t.third_party_token as string;
    expect(cardId).toMatch(/^CV-/);
    expect(sentWith(stored.t.token).path).toBe('/secure_cards');
    const bought = await purchase('xml', stored.t.payment_method.token as string, { gateway_specific_fields: { d_local: { country: 'BR', payer_name: 'Ada Lovelace' } } });
    expect(bought.status).toBe(200);
    const sent = sentWith(bought.t.token);
    expect(sent.path).toBe('/payments');
    expect(jsonOf(sent)).toMatchObject({ country: 'BR', card: { card_id: cardId, capture: true } });
    expect(sent.rawBody).not.toContain(PAN);
  });

  it('a forged answer signature, a 500 or garbage is 422 processing_error; a hang is 408; a wrong secret key a config_error', async () => {
    fake.forgeSignatures = true;
    const forged = await purchase('json', card);
    expect(forged.status).toBe(422);
    expect(forged.t).toMatchObject({ state: 'gateway_processing_failed', response: { error_code: 'processing_error', result_unknown: false } });
    fake.forgeSignatures = false;
    fake.server.setMode('hang');
    const hung = await purchase('json', card);
    expect(hung.status).toBe(408);
    expect(hung.t).toMatchObject({ state: 'gateway_processing_result_unknown', response: { result_unknown: true } });
    fake.server.setMode('error500');
    expect((await purchase('xml', card)).t).toMatchObject({ state: 'gateway_processing_failed', response: { error_code: 'processing_error' } });
    fake.server.setMode('garbage');
    expect((await purchase('json', card)).t).toMatchObject({ state: 'gateway_processing_failed' });
    fake.server.setMode('normal');
    const wrong = await e2e.createGateway({ login: LOGIN, trans_key: TRANS_KEY, secret_key: 'not-the-secret', sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error' });
  });

  it('keeps no card data, trans key or secret key in the transcript', async () => {
    const fresh = await e2e.vault(PAN, { country: 'BR' });
    const bought = await purchase('json', fresh);
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`[*>] POST ${fake.url}/secure_payments\n`);
    expect(res.text).toContain('x-trans-key: [FILTERED]');
    expect(res.text).toContain('"status":"PAID"');
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(TRANS_KEY);
    expect(res.text).not.toContain(SECRET_KEY);
    expect(res.text).not.toMatch(/"cvv"\s*:\s*"737"/);
    expect(findCardData(res.text)).toEqual([]);
  });
});
