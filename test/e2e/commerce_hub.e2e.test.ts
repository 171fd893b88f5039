import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, expectFaultOutcomes, FORMATS, startGatewayE2e, transact, type GatewayE2e } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { commerceHubSignature, FakeCommerceHub } from '../fakes/fake-commerce-hub.js';
import { jsonOf, type FakeRequest } from '../fakes/fake-gateway-server.js';

/**
 * Coffer with a Commerce Hub gateway end to end: a production environment, cards vaulted in it,
 * every operation through the v1 API in JSON and XML against a fake, signature-checking Commerce
 * Hub on 127.0.0.1 (COFFER_GATEWAY_ENDPOINTS), asserting what the API answers and what Commerce
 * Hub received.
 */

const CREDENTIALS = { apiKey: 'e2eCommerceHubApiKey0001', apiSecret: 'e2eCommerceHubSecret-abcdef-0123', merchantId: '100008000003683', terminalId: '10000001' };
const GATEWAY_FIELDS = { api_key: CREDENTIALS.apiKey, api_secret: CREDENTIALS.apiSecret, merchant_id: CREDENTIALS.merchantId, terminal_id: CREDENTIALS.terminalId };
const PAN = '4035874000424977'; // a Luhn-valid Visa number that is not one of Coffer's own test cards

describe.each(storeKinds)('Commerce Hub gateway end to end (%s)', (store) => {
  let fake: FakeCommerceHub;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The one request Commerce Hub received with this Client-Request-Id (Coffer's transaction token). */
  function sentWith(token: string): FakeRequest {
    const sent = fake.server.requestsWith('client-request-id', token);
    expect(sent).toHaveLength(1);
    return sent[0] as FakeRequest;
  }

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1204, currency_code: 'USD', ...extra });

  beforeAll(async () => {
    fake = await FakeCommerceHub.start(CREDENTIALS);
    e2e = await startGatewayE2e('commerce_hub', fake.url, store);
    gateway = await e2e.createGateway({ ...GATEWAY_FIELDS, sandbox: true });
    card = await e2e.vault(PAN, { country: 'US' });
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => fake.server.setMode('normal'));

  it('creates the gateway echoing merchant and terminal id only; a missing or unknown credential is a 422 naming the field', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'commerce_hub', ...GATEWAY_FIELDS } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'commerce_hub', name: 'CommerceHub', merchant_id: CREDENTIALS.merchantId, terminal_id: CREDENTIALS.terminalId });
    expect(created.text).not.toContain(CREDENTIALS.apiKey);
    expect(created.text).not.toContain(CREDENTIALS.apiSecret);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'commerce_hub', api_key: 'a', merchant_id: 'm', terminal_id: 't' } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'api_secret', message: "Api secret can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>commerce_hub</gateway_type><api_key>a</api_key><api_secret>b</api_secret><merchant_id>c</merchant_id><terminal_id>d</terminal_id><login>e</login></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('login');
  });

  it.each(FORMATS)('purchases in %s: a signed POST /ch/payments/v1/charges, succeeded with Commerce Hub’s transaction id', async (format) => {
    const { status, t } = await purchase(format, card, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({ state: 'succeeded', transaction_type: 'Purchase', gateway_type: 'commerce_hub', response: { success: true, message: 'Transaction approved', error_code: null, avs_code: 'Y', cvv_code: 'M' } });
    const sent = sentWith(t.token);
    expect(sent.path).toBe('/ch/payments/v1/charges');
    expect(sent.headers.authorization).toBe(commerceHubSignature(CREDENTIALS.apiSecret, CREDENTIALS.apiKey, t.token, sent.headers.timestamp as string, sent.rawBody));
    expect(jsonOf(sent)).toMatchObject({ amount: { total: 12.04, currency: 'USD' }, source: { sourceType: 'PaymentCard', card: { cardData: PAN } }, transactionDetails: { captureFlag: true, merchantOrderId: `order-${format}` } });
    expect(fake.charges.get(t.gateway_transaction_id)).toMatchObject({ state: 'CAPTURED', total: 12.04 });
  });

  it.each([
    ['116', 'insufficient_funds', 'Not sufficient funds'],
    ['517', 'incorrect_cvc', 'CVV2 Declined'],
  ])('turns a decline with response code %s into 422 gateway_processing_failed (%s), JSON and XML', async (code, errorCode, message) => {
    const declining = await e2e.vault(PAN, { first_name: 'Ada', last_name: `Decline ${code}`, country: 'US' });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: errorCode, message } });
    }
  });

  it('authorizes, captures part, refunds part of the capture; a second capture is refused', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'USD' });
    expect(auth.status).toBe(200);
    expect(jsonOf(sentWith(auth.t.token)).transactionDetails).toMatchObject({ captureFlag: false });

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Transaction captured' } });
    expect(jsonOf(sentWith(capture.t.token))).toMatchObject({ amount: { total: 20, currency: 'USD' }, transactionDetails: { captureFlag: true }, referenceTransactionDetails: { referenceTransactionId: auth.t.gateway_transaction_id } });

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500, response: { message: 'Refund approved' } });
    expect(jsonOf(sentWith(credit.t.token))).toMatchObject({ amount: { total: 5, currency: 'USD' }, referenceTransactionDetails: { referenceTransactionId: capture.t.gateway_transaction_id, referenceTransactionType: 'CHARGES' } });
    expect(fake.charges.get(capture.t.gateway_transaction_id)).toMatchObject({ captured: 20, refunded: 5 });

    const second = await transact(e2e.live, 'json', `transactions/${auth.t.token}/capture`, { amount: 100 });
    expect(second.status).toBe(422);
  });

  it('voids an authorization at /ch/payments/v1/cancels, and verifies a card', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'USD' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Transaction cancelled' } });
    expect(sentWith(voided.t.token).path).toBe('/ch/payments/v1/cancels');
    expect(fake.charges.get(auth.t.gateway_transaction_id)?.state).toBe('CANCELLED');

    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card });
    expect(verified.status).toBe(200);
    expect(verified.t.response).toMatchObject({ success: true, message: 'Card verified' });
    expect(sentWith(verified.t.token).path).toBe('/ch/payments-vas/v1/accounts/verification');
  });

  it('stores the card at Commerce Hub and purchases with its token, sending no card number', async () => {
    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    const token = stored.t.third_party_token as string;
    expect(fake.tokens.has(token)).toBe(true);
    expect(sentWith(stored.t.token).path).toBe('/ch/payments-vas/v1/tokens');
    const bought = await purchase('xml', stored.t.payment_method.token as string, { gateway_specific_fields: { commerce_hub: { card_expiration_month: '03', card_expiration_year: '2030' } } });
    expect(bought.status).toBe(200);
    const sent = sentWith(bought.t.token);
    expect(jsonOf(sent).source).toEqual({ sourceType: 'PaymentToken', tokenData: token, tokenSource: 'TRANSARMOR', card: { expirationMonth: '03', expirationYear: '2030' } });
    expect(sent.rawBody).not.toContain(PAN);
  });

  it('a hang is 408, a 500 or garbage 422 processing_error; a wrong API secret a config_error', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ ...GATEWAY_FIELDS, api_secret: 'not-the-secret', sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'HMAC signature mismatch' });
  });

  it('keeps no card data, API key, API secret or signature in the transcript', async () => {
    const fresh = await e2e.vault(PAN, { country: 'US' });
    const bought = await purchase('json', fresh);
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`[*>] POST ${fake.url}/ch/payments/v1/charges\n`);
    expect(res.text).toMatch(/api-key: \[FILTERED\]/);
    expect(res.text).toMatch(/authorization: \[FILTERED\]/);
    expect(res.text).toContain('"transactionState":"CAPTURED"');
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(CREDENTIALS.apiKey);
    expect(res.text).not.toContain(CREDENTIALS.apiSecret);
    expect(res.text).not.toContain(sentWith(bought.t.token).headers.authorization as string);
    expect(res.text).not.toMatch(/"securityCode"\s*:\s*"737"/);
    expect(findCardData(res.text)).toEqual([]);
  });
});
