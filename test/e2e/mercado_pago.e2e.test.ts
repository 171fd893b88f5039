import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, FORMATS, startGatewayE2e, transact, type GatewayE2e, expectFaultOutcomes } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakeMercadoPago } from '../fakes/fake-mercado-pago.js';
import { jsonOf, type FakeRequest } from '../fakes/fake-gateway-server.js';

/**
 * Coffer with a Mercado Pago gateway end to end: a production environment, cards vaulted in it,
 * every operation through the v1 API in JSON and XML against a fake Payments API v1 on 127.0.0.1
 * (COFFER_GATEWAY_ENDPOINTS), asserting what the API answers and what Mercado Pago received.
 */

const ACCESS_TOKEN = 'APP_USR-6295877106812064-112321-e2eAccessTokenTail0000000-123456789';
const PAN = '4235647728025682'; // Mercado Pago's documented Visa test card (Brazil)

describe.each(storeKinds)('Mercado Pago gateway end to end (%s)', (store) => {
  let fake: FakeMercadoPago;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The one payment request Mercado Pago received with this X-Idempotency-Key (Coffer's transaction token). */
  function sentWith(token: string): FakeRequest {
    const sent = fake.server.requestsWith('x-idempotency-key', token);
    expect(sent).toHaveLength(1);
    return sent[0] as FakeRequest;
  }

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'BRL', ...extra });

  beforeAll(async () => {
    fake = await FakeMercadoPago.start(ACCESS_TOKEN);
    e2e = await startGatewayE2e('mercado_pago', fake.url, store);
    gateway = await e2e.createGateway({ access_token: ACCESS_TOKEN, country: 'BR' });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => fake.server.setMode('normal'));

  it('creates the gateway without echoing the access token; a missing or unknown credential is a 422 naming the field, in JSON and XML', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'mercado_pago', access_token: ACCESS_TOKEN, country: 'AR' } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'mercado_pago', name: 'Mercado Pago' });
    expect(created.text).not.toContain(ACCESS_TOKEN);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'mercado_pago', country: 'BR' } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'access_token', message: "Access token can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>mercado_pago</gateway_type><access_token>x</access_token><public_key>y</public_key></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('public_key');
  });

  it.each(FORMATS)('purchases in %s: the card is tokenized, then paid with the token; succeeded with Mercado Pago’s payment id', async (format) => {
    const { status, t } = await purchase(format, card, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({ state: 'succeeded', transaction_type: 'Purchase', gateway_type: 'mercado_pago', response: { success: true, message: 'Transaction approved', error_code: null } });
    const sent = sentWith(t.token);
    expect(sent.path).toBe('/v1/payments');
    expect(sent.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(jsonOf(sent)).toMatchObject({ transaction_amount: 10, installments: 1, payment_method_id: 'visa', payer: { email: 'ada@example.com' }, external_reference: `order-${format}`, capture: true, binary_mode: true });
    expect(fake.payments.get(Number(t.gateway_transaction_id))).toMatchObject({ status: 'approved', amount: 10 });
  });

  it.each([
    ['FUND', 'insufficient_funds', 'cc_rejected_insufficient_amount'],
    ['SECU', 'incorrect_cvc', 'cc_rejected_bad_filled_security_code'],
    ['CALL', 'call_issuer', 'cc_rejected_call_for_authorize'],
  ])('turns the test holder %s into 422 gateway_processing_failed (%s), JSON and XML', async (holder, errorCode, message) => {
    const declining = await e2e.vault(PAN, { first_name: holder, last_name: 'Test' });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: errorCode, message } });
    }
  });

  it('authorizes, captures part, refunds part, in JSON and XML', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'BRL' });
    expect(auth.status).toBe(200);
    expect(auth.t.response).toMatchObject({ message: 'Transaction authorized' });
    expect(jsonOf(sentWith(auth.t.token))).toMatchObject({ capture: false });
    const id = auth.t.gateway_transaction_id as string;

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Transaction captured' } });
    const captureSent = sentWith(capture.t.token);
    expect(captureSent).toMatchObject({ method: 'PUT', path: `/v1/payments/${id}` });
    expect(jsonOf(captureSent)).toEqual({ capture: true, transaction_amount: 20 });

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500, response: { message: 'Refund approved' } });
    expect(sentWith(credit.t.token).path).toBe(`/v1/payments/${id}/refunds`);
    expect(fake.payments.get(Number(id))).toMatchObject({ status: 'approved', amount: 20, refunded: 5 });

    const second = await transact(e2e.live, 'json', `transactions/${auth.t.token}/capture`, { amount: 100 });
    expect(second.status).toBe(422);
  });

  it('voids an authorization with status cancelled', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'BRL' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Transaction cancelled' } });
    expect(jsonOf(sentWith(voided.t.token))).toEqual({ status: 'cancelled' });
    expect(fake.payments.get(Number(auth.t.gateway_transaction_id))?.status).toBe('cancelled');
  });

  it('stores the card at Mercado Pago (customer and card) and purchases with the stored card, sending no card number', async () => {
    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status, JSON.stringify(stored.t.response)).toBe(200);
    const [customerId, cardId, methodId] = (stored.t.third_party_token as string).split('|');
    expect(fake.customers.get(customerId as string)?.cards.has(cardId as string)).toBe(true);
    expect(methodId).toBe('visa');
    const bought = await purchase('xml', stored.t.payment_method.token as string);
    expect(bought.status).toBe(200);
    const sent = sentWith(bought.t.token);
    expect(jsonOf(sent)).toMatchObject({ payer: { type: 'customer', id: customerId }, payment_method_id: 'visa' });
    expect(sent.rawBody).not.toContain(PAN);
    // A second store for the same email finds the customer instead of failing.
    const again = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(again.status).toBe(200);
    expect((again.t.third_party_token as string).split('|')[0]).toBe(customerId);
  });

  it('records 408 result unknown when Mercado Pago hangs, 422 on a 500 or garbage, and a config_error for a wrong token', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ access_token: 'APP_USR-not-the-token' });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'invalid access token' });
  });

  it('keeps no card data or access token in the transcript', async () => {
    const bought = await purchase('json', card);
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`[*>] POST ${fake.url}/v1/card_tokens\n`);
    expect(res.text).toContain(`[*>] POST ${fake.url}/v1/payments\n`);
    expect(res.text).toContain('authorization: Bearer [FILTERED]');
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(ACCESS_TOKEN);
    expect(res.text).not.toMatch(/"security_code"\s*:\s*"737"/);
    expect(findCardData(res.text)).toEqual([]);
  });
});
