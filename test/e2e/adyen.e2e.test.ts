import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, FORMATS, startGatewayE2e, transact, type GatewayE2e, expectFaultOutcomes } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakeAdyen } from '../fakes/fake-adyen.js';
import { jsonOf, type FakeRequest } from '../fakes/fake-gateway-server.js';

/**
 * Coffer with an Adyen gateway end to end: a production environment, cards vaulted in it, every
 * operation through the v1 API in JSON and XML against a fake Adyen Checkout API v71 on 127.0.0.1
 * (COFFER_GATEWAY_ENDPOINTS), asserting what the API answers and what Adyen received.
 */

const API_KEY = 'AQEyhmfxLI3MaBFLw0m/n3Q5qf3Ve55dHZxYTFdTxWq+l3JOk8J4BO7yyZBJ4pD1ArFaFXwQwV1bDb7kfNy1WIxIIkxgBw==-e2eKeyTail';
const PASSWORD = 'Web-Service-Passw0rd-e2e';
const MERCHANT = 'CofferECOM';
const PAN = '4988438843884305'; // Adyen's documented Visa test card

describe.each(storeKinds)('Adyen gateway end to end (%s)', (store) => {
  let fake: FakeAdyen;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The one request Adyen received with this Idempotency-Key (Coffer's transaction token). */
  function sentWith(token: string): FakeRequest {
    const sent = fake.server.requestsWith('idempotency-key', token);
    expect(sent).toHaveLength(1);
    return sent[0] as FakeRequest;
  }

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'EUR', ...extra });

  beforeAll(async () => {
    fake = await FakeAdyen.start({ merchantAccount: MERCHANT, apiKeys: [API_KEY, PASSWORD] });
    e2e = await startGatewayE2e('adyen', fake.url, store);
    gateway = await e2e.createGateway({ merchant_account: MERCHANT, api_key: API_KEY, sandbox: true });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => fake.server.setMode('normal'));

  it('creates gateways with either auth mode; a missing or unknown credential is a 422 naming the field, in JSON and XML', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'adyen', merchant_account: MERCHANT, username: 'ws@Company.Coffer', password: PASSWORD, subdomain: 'abc-Coffer' } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'adyen', name: 'Adyen' });
    expect(created.text).not.toContain(PASSWORD);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'adyen', merchant_account: MERCHANT, sandbox: true } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'api_key', message: "Api key can't be blank" }]);
    // A live gateway needs its live URL prefix.
    const live = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'adyen', merchant_account: MERCHANT, api_key: API_KEY } });
    expect(live.status).toBe(422);
    expect(live.json().errors).toEqual([{ key: 'errors.blank', attribute: 'subdomain', message: "Subdomain can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>adyen</gateway_type><sandbox>true</sandbox><merchant_account>${MERCHANT}</merchant_account><apikey>x</apikey><api_key>y</api_key></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('apikey');
  });

  it.each(FORMATS)('purchases in %s: the card goes to POST /v71/payments, succeeded with Adyen’s pspReference, AVS and CVC', async (format) => {
    const fresh = await e2e.vault(PAN);
    const { status, t } = await purchase(format, fresh, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({
      state: 'succeeded',
      transaction_type: 'Purchase',
      gateway_type: 'adyen',
      order_id: `order-${format}`,
      response: { success: true, message: 'Transaction approved', avs_code: 'D', cvv_code: 'M', error_code: null },
    });
    const sent = sentWith(t.token);
    expect(sent.path).toBe('/v71/payments');
    expect(sent.headers['x-api-key']).toBe(API_KEY);
    expect(jsonOf(sent)).toMatchObject({
      merchantAccount: MERCHANT,
      amount: { value: 1000, currency: 'EUR' },
      reference: `order-${format}`,
      paymentMethod: { type: 'scheme', number: PAN, expiryMonth: '03', expiryYear: '2030', holderName: 'Ada Lovelace', cvc: '737' },
      returnUrl: expect.stringMatching(/^https:\/\//),
      captureDelayHours: 0,
    });
    expect(fake.payments.get(t.gateway_transaction_id)).toMatchObject({ captured: 1000, manualCapture: false });
  });

  it.each([
    ['NOT_ENOUGH', 'BALANCE', 'insufficient_funds', 'Not enough balance'],
    ['CVC', 'DECLINED', 'incorrect_cvc', 'CVC Declined'],
  ])('turns Adyen’s refusal for holder %s %s into 422 gateway_processing_failed (%s), JSON and XML', async (first, last, errorCode, message) => {
    const declining = await e2e.vault(PAN, { first_name: first, last_name: last });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: errorCode, message } });
    }
  });

  it('authorizes, captures part, refunds part of the capture, in JSON and XML', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'EUR' });
    expect(auth.status).toBe(200);
    expect(jsonOf(sentWith(auth.t.token))).toMatchObject({ additionalData: { manualCapture: 'true' } });
    const psp = auth.t.gateway_transaction_id as string;

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Capture received' } });
    expect(sentWith(capture.t.token).path).toBe(`/v71/payments/${psp}/captures`);
    expect(capture.t.gateway_transaction_id).toMatch(new RegExp(`^${psp}#\\d{15}[A-Z]$`));

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500 });
    const refund = sentWith(credit.t.token);
    expect(refund.path).toBe(`/v71/payments/${psp}/refunds`);
    expect(jsonOf(refund)).toMatchObject({ amount: { value: 500, currency: 'EUR' }, capturePspReference: (capture.t.gateway_transaction_id as string).split('#')[1] });
    expect(fake.payments.get(psp)).toMatchObject({ captured: 2000, refunded: 500 });

    const second = await transact(e2e.live, 'json', `transactions/${auth.t.token}/capture`, { amount: 100 });
    expect(second.status).toBe(422);
  });

  it('voids an authorization at /cancels', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'EUR' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Cancellation received' } });
    expect(sentWith(voided.t.token).path).toBe(`/v71/payments/${auth.t.gateway_transaction_id}/cancels`);
    expect(fake.payments.get(auth.t.gateway_transaction_id)?.cancelled).toBe(true);
  });

  it('verifies with a zero-value authorization and sends JPY in whole yen', async () => {
    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card, currency_code: 'EUR' });
    expect(verified.status).toBe(200);
    expect(jsonOf(sentWith(verified.t.token)).amount).toEqual({ value: 0, currency: 'EUR' });
    const yen = await purchase('json', card, { amount: 1500, currency_code: 'JPY' });
    expect(yen.status).toBe(200);
    expect(jsonOf(sentWith(yen.t.token)).amount).toEqual({ value: 1500, currency: 'JPY' });
  });

  it('stores the card at Adyen and purchases with the stored token, sending no card number', async () => {
    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    expect(stored.t.third_party_token).toMatch(/^[A-Za-z0-9]+\|[0-9A-F]{16}$/);
    const [shopper, id] = (stored.t.third_party_token as string).split('|');
    expect(fake.stored.get(id as string)?.shopperReference).toBe(shopper);
    const bought = await purchase('xml', stored.t.payment_method.token as string);
    expect(bought.status).toBe(200);
    const sent = sentWith(bought.t.token);
    expect(jsonOf(sent)).toMatchObject({ paymentMethod: { type: 'scheme', storedPaymentMethodId: id }, shopperReference: shopper, shopperInteraction: 'ContAuth', recurringProcessingModel: 'UnscheduledCardOnFile' });
    expect(sent.rawBody).not.toContain(PAN);
  });

  it('records 408 result unknown when Adyen hangs, 422 on a 500 or garbage, and a config_error for a wrong key', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ merchant_account: MERCHANT, api_key: 'not-the-key', sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'HTTP Status Response - Unauthorized' });
  });

  it('keeps no card data or key in the transcript', async () => {
    const fresh = await e2e.vault(PAN);
    const bought = await purchase('json', fresh);
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`[*>] POST ${fake.url}/v71/payments\n`);
    expect(res.text).toContain('x-api-key: [FILTERED]');
    expect(res.text).toContain('"resultCode":"Authorised"');
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(API_KEY);
    expect(res.text).not.toMatch(/"cvc"\s*:\s*"737"/);
    expect(findCardData(res.text)).toEqual([]);
  });
});
