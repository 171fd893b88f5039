import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, expectFaultOutcomes, FORMATS, startGatewayE2e, transact, type GatewayE2e } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { connectSignature, FakeGlobalCollect } from '../fakes/fake-global-collect.js';
import { jsonOf, type FakeRequest } from '../fakes/fake-gateway-server.js';

/**
 * Coffer with a Worldline Connect (GlobalCollect) gateway end to end: a production environment,
 * cards vaulted in it, every operation through the v1 API in JSON and XML against a fake Connect
 * server API on 127.0.0.1 that checks every v1HMAC signature, asserting what the API answers and
 * what Connect received.
 */

const CREDENTIALS = { merchantId: '1428', apiKeyId: 'e2e96f16a4189056', secretApiKey: 'e2eConnectSecret+abcdef0123456789=' };
const GATEWAY_FIELDS = { merchant_id: CREDENTIALS.merchantId, api_key_id: CREDENTIALS.apiKeyId, secret_api_key: CREDENTIALS.secretApiKey };
const PAN = '4035874000424977'; // a Luhn-valid Visa number that is not one of Coffer's own test cards

describe.each(storeKinds)('Worldline Connect (global_collect) gateway end to end (%s)', (store) => {
  let fake: FakeGlobalCollect;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The requests Connect received with this idempotence key (Coffer's transaction token). */
  function sentWith(token: string): FakeRequest {
    const sent = fake.server.requestsWith('x-gcs-idempotence-key', token);
    expect(sent).toHaveLength(1);
    return sent[0] as FakeRequest;
  }

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 4005, currency_code: 'USD', ...extra });

  beforeAll(async () => {
    fake = await FakeGlobalCollect.start(CREDENTIALS);
    e2e = await startGatewayE2e('global_collect', fake.url, store);
    gateway = await e2e.createGateway({ ...GATEWAY_FIELDS, sandbox: true });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => {
    fake.server.setMode('normal');
    fake.alwaysRequireApproval = false;
  });

  it('creates the gateway echoing merchant id and API key id only; a missing or unknown credential is a 422 naming the field', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'global_collect', ...GATEWAY_FIELDS } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'global_collect', merchant_id: CREDENTIALS.merchantId, api_key_id: CREDENTIALS.apiKeyId });
    expect(created.text).not.toContain(CREDENTIALS.secretApiKey);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'global_collect', merchant_id: 'm', api_key_id: 'k' } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'secret_api_key', message: "Secret api key can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>global_collect</gateway_type><merchant_id>a</merchant_id><api_key_id>b</api_key_id><secret_api_key>c</secret_api_key><password>d</password></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('password');
  });

  it.each(FORMATS)('purchases in %s: one signed POST /v1/1428/payments, succeeded with Connect’s payment id', async (format) => {
    const { status, t } = await purchase(format, card, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({ state: 'succeeded', transaction_type: 'Purchase', gateway_type: 'global_collect', response: { success: true, message: 'Transaction approved', error_code: null, avs_code: 'Y', cvv_code: 'M' } });
    const sent = sentWith(t.token);
    expect(sent.path).toBe('/v1/1428/payments');
    expect(sent.headers.authorization).toBe(`GCS v1HMAC:${CREDENTIALS.apiKeyId}:${connectSignature(CREDENTIALS.secretApiKey, 'POST', 'application/json', sent.headers.date as string, sent.headers, sent.path)}`);
    expect(jsonOf(sent)).toMatchObject({ order: { amountOfMoney: { amount: 4005, currencyCode: 'USD' }, references: { merchantReference: `order-${format}` } }, cardPaymentMethodSpecificInput: { paymentProductId: 1, requiresApproval: false, card: { cardNumber: PAN } } });
    expect(fake.payments.get(t.gateway_transaction_id)).toMatchObject({ status: 'CAPTURE_REQUESTED', captured: 4005 });
  });

  it('approves a purchase that Connect holds for approval, under a second idempotence key', async () => {
    fake.alwaysRequireApproval = true;
    const { status, t } = await purchase('json', card);
    expect(status).toBe(200);
    expect(fake.server.requestsWith('x-gcs-idempotence-key', `${t.token}-approve`)).toHaveLength(1);
    expect(fake.payments.get(t.gateway_transaction_id)).toMatchObject({ status: 'CAPTURE_REQUESTED' });
  });

  it.each([
    ['430360', 'insufficient_funds'],
    ['430306', 'expired_card'],
  ])('turns a 402 rejection with error %s into 422 gateway_processing_failed (%s), JSON and XML', async (code, errorCode) => {
    const declining = await e2e.vault(PAN, { last_name: `Decline ${code}` });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: errorCode } });
      expect(fake.payments.get(t.gateway_transaction_id)?.status).toBe('REJECTED');
    }
  });

  it('authorizes, captures part with approve, refunds part; a second capture is refused', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'EUR' });
    expect(auth.status).toBe(200);
    expect(jsonOf(sentWith(auth.t.token)).cardPaymentMethodSpecificInput).toMatchObject({ requiresApproval: true });

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Transaction captured' } });
    expect(sentWith(capture.t.token).path).toBe(`/v1/1428/payments/${auth.t.gateway_transaction_id}/approve`);
    expect(jsonOf(sentWith(capture.t.token))).toEqual({ amount: 2000 });

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500, response: { message: 'Refund requested' } });
    expect(jsonOf(sentWith(credit.t.token))).toMatchObject({ amountOfMoney: { amount: 500, currencyCode: 'EUR' } });
    expect(fake.payments.get(auth.t.gateway_transaction_id)).toMatchObject({ captured: 2000, refunded: 500 });

    const second = await transact(e2e.live, 'json', `transactions/${auth.t.token}/capture`, { amount: 100 });
    expect(second.status).toBe(422);
  });

  it('voids an authorization with /cancel, and verifies a card with a zero amount', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'USD' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Transaction cancelled' } });
    expect(sentWith(voided.t.token).path).toBe(`/v1/1428/payments/${auth.t.gateway_transaction_id}/cancel`);
    expect(fake.payments.get(auth.t.gateway_transaction_id)?.status).toBe('CANCELLED');

    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card, currency_code: 'USD' });
    expect(verified.status).toBe(200);
    expect(verified.t.response).toMatchObject({ success: true, message: 'Card verified' });
    expect(jsonOf(sentWith(verified.t.token)).order).toMatchObject({ amountOfMoney: { amount: 0 } });
  });

  it('stores the card as a Connect token and purchases with it, sending no card number', async () => {
    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    const token = stored.t.third_party_token as string;
    expect(fake.tokens.has(token)).toBe(true);
    expect(sentWith(stored.t.token).path).toBe('/v1/1428/tokens');
    const bought = await purchase('xml', stored.t.payment_method.token as string, { gateway_specific_fields: { global_collect: { payment_product_id: '1' } } });
    expect(bought.status).toBe(200);
    const sent = sentWith(bought.t.token);
    expect(jsonOf(sent).cardPaymentMethodSpecificInput).toMatchObject({ token, paymentProductId: 1 });
    expect(sent.rawBody).not.toContain(PAN);
  });

  it('a hang is 408, a 500 or garbage 422 processing_error; a wrong secret API key a config_error', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ ...GATEWAY_FIELDS, secret_api_key: 'not-the-secret', sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'MISSING_OR_INVALID_AUTHORIZATION' });
  });

  it('keeps no card data, secret API key or signature in the transcript', async () => {
    const fresh = await e2e.vault(PAN);
    const bought = await purchase('json', fresh);
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    // Credentials declared safe (the merchant id, shown back on the gateway) stay readable; secret ones are masked by value.
    expect(res.text).toContain(`[*>] POST ${fake.url}/v1/${CREDENTIALS.merchantId}/payments\n`);
    expect(res.text).toMatch(/authorization: \[FILTERED\]/);
    expect(res.text).toContain('"status":"CAPTURE_REQUESTED"');
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(CREDENTIALS.secretApiKey);
    expect(res.text).not.toContain(sentWith(bought.t.token).headers.authorization as string);
    expect(res.text).not.toMatch(/"cvv"\s*:\s*"737"/);
    expect(findCardData(res.text)).toEqual([]);
  });
});
