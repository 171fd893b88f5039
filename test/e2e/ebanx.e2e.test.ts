import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, expectFaultOutcomes, FORMATS, startGatewayE2e, transact, type GatewayE2e } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakeEbanx } from '../fakes/fake-ebanx.js';

/**
 * Coffer with an EBANX gateway end to end: a production environment, cards vaulted in it, every
 * operation through the v1 API in JSON and XML against a fake EBANX Direct API on 127.0.0.1
 * (COFFER_GATEWAY_ENDPOINTS), asserting what the API answers and what EBANX received.
 */

const INTEGRATION_KEY = 'e2e_ik_EbanxIntegrationKey_0123456789abcdef';
const PAN = '4035874000424977'; // a Luhn-valid Visa number that is not one of Coffer's own test cards

describe.each(storeKinds)('EBANX gateway end to end (%s)', (store) => {
  let fake: FakeEbanx;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The one /ws/direct payment EBANX received with this merchant_payment_code (Coffer's transaction token). */
  function paymentSent(token: string): Record<string, unknown> {
    const calls = fake.callsFor('direct', token);
    expect(calls).toHaveLength(1);
    return (calls[0] as { payment: Record<string, unknown> }).payment;
  }

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'USD', ...extra });

  beforeAll(async () => {
    fake = await FakeEbanx.start(INTEGRATION_KEY);
    e2e = await startGatewayE2e('ebanx', fake.url, store);
    gateway = await e2e.createGateway({ integration_key: INTEGRATION_KEY, sandbox: true });
    card = await e2e.vault(PAN, { country: 'BR' });
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => {
    fake.server.setMode('normal');
  });

  it('creates the gateway without echoing the integration key; a missing or unknown credential is a 422 naming the field', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'ebanx', integration_key: INTEGRATION_KEY } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'ebanx', name: 'EBANX' });
    expect(created.text).not.toContain(INTEGRATION_KEY);
    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'ebanx' } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'integration_key', message: "Integration key can't be blank" }]);
    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', '<gateway><gateway_type>ebanx</gateway_type><integration_key>a</integration_key><login>b</login></gateway>');
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('login');
  });

  it.each(FORMATS)('purchases in %s at /ws/direct: succeeded with the payment hash, the token as merchant_payment_code', async (format) => {
    const fresh = await e2e.vault(PAN, { country: 'BR' });
    const { status, t } = await purchase(format, fresh, { order_id: `order-${format}`, gateway_specific_fields: { ebanx: { document: '85351346893' } } });
    expect(status).toBe(200);
    expect(t).toMatchObject({ state: 'succeeded', transaction_type: 'Purchase', gateway_type: 'ebanx', response: { success: true, message: 'Accepted', error_code: null } });
    expect(paymentSent(t.token)).toMatchObject({ country: 'br', document: '85351346893', currency_code: 'USD', amount_total: 10, order_number: `order-${format}`, creditcard: { card_number: PAN, card_cvv: '737', card_due_date: '03/2030' } });
    expect(fake.payments.get(t.gateway_transaction_id as string)).toMatchObject({ status: 'CO', amount: 10, merchantPaymentCode: t.token });
  });

  it('sends CLP in whole pesos', async () => {
    const { status, t } = await purchase('json', card, { amount: 15000, currency_code: 'CLP' });
    expect(status).toBe(200);
    expect(paymentSent(t.token)).toMatchObject({ currency_code: 'CLP', amount_total: 15000 });
  });

  it.each([
    ['insufficientFunds', 'insufficient_funds'],
    ['cardExpired', 'expired_card'],
  ])('turns a decline for %s into 422 gateway_processing_failed (%s), JSON and XML', async (reason, errorCode) => {
    const declining = await e2e.vault(PAN, { first_name: 'Reject', last_name: reason, country: 'BR' });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: errorCode } });
    }
  });

  it('authorizes, captures part, refunds part twice with distinct merchant_refund_codes, in JSON and XML', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'USD' });
    expect(auth.status).toBe(200);
    const hash = auth.t.gateway_transaction_id as string;
    expect(paymentSent(auth.t.token)).toMatchObject({ creditcard: { auto_capture: false } });

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000 });
    expect(fake.callsFor('capture', hash)).toEqual([{ integration_key: INTEGRATION_KEY, hash, amount: '20.00', merchant_capture_code: capture.t.token }]);

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500, response: { message: 'Refund requested' } });
    const second = await transact(e2e.live, 'xml', `transactions/${capture.t.token}/credit`, { amount: 300 });
    expect(second.status).toBe(200);
    expect(fake.callsFor('refund', hash).map((sent) => [sent.amount, sent.merchant_refund_code])).toEqual([['5.00', credit.t.token], ['3.00', second.t.token]]);
    expect(fake.payments.get(hash)).toMatchObject({ captured: 20, refunded: 8 });
  });

  it('voids an authorization at /ws/cancel, and verifies a card at /ws/verifycard', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'USD' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Transaction cancelled' } });
    expect(fake.payments.get(auth.t.gateway_transaction_id as string)?.status).toBe('CA');

    const before = fake.calls.length;
    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card });
    expect(verified.status).toBe(200);
    expect(fake.calls.slice(before).map((call) => call.operation)).toEqual(['verifycard']);
  });

  it('stores the card at /ws/token and purchases with the EBANX token, sending no card number', async () => {
    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    const token = stored.t.third_party_token as string;
    expect(fake.tokens.has(token)).toBe(true);
    const bought = await purchase('xml', stored.t.payment_method.token as string, { gateway_specific_fields: { ebanx: { country: 'BR', customer_name: 'Ada Lovelace' } } });
    expect(bought.status).toBe(200);
    expect(paymentSent(bought.t.token)).toMatchObject({ country: 'br', name: 'Ada Lovelace', creditcard: { token } });
    expect(JSON.stringify(paymentSent(bought.t.token))).not.toContain(PAN);
  });

  it('a hang is 408, a 500 or garbage fail; a wrong integration key is a config_error', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ integration_key: 'not-the-integration-key', sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'Invalid integration key' });
  });

  it('keeps no card data or integration key in the transcript, inside the URL-encoded request_body either', async () => {
    const fresh = await e2e.vault(PAN, { country: 'BR' });
    const bought = await purchase('json', fresh);
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`[*>] POST ${fake.url}/ws/direct\n`);
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(INTEGRATION_KEY);
    expect(findCardData(res.text)).toEqual([]);
    const body = decodeURIComponent((/request_body=([^&\s]+)/.exec(res.text)?.[1] ?? '').replace(/\+/g, ' '));
    expect(JSON.parse(body)).toMatchObject({ integration_key: '[FILTERED]', payment: { creditcard: { card_number: '[FILTERED]', card_cvv: '[FILTERED]', card_due_date: '[FILTERED]' } } });
  });
});
