import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, FORMATS, startGatewayE2e, transact, type GatewayE2e, expectFaultOutcomes } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakePayPal } from '../fakes/fake-paypal.js';
import { jsonOf, type FakeRequest } from '../fakes/fake-gateway-server.js';

/**
 * Coffer with a PayPal Commerce Platform gateway end to end: a production environment, cards vaulted
 * in it, every operation through the v1 API in JSON and XML against a fake PayPal REST API on
 * 127.0.0.1 (COFFER_GATEWAY_ENDPOINTS), asserting what the API answers and what PayPal received.
 */

const CLIENT_ID = 'AeA1QIZXiflr1_-e2e-client';
const SECRET = 'EGnHDxD_qRPdaLdZz8iCr8N7_MzF-e2e-secret';
const PAN = '4032039317984658'; // PayPal's sandbox Visa

describe.each(storeKinds)('PayPal gateway end to end (%s)', (store) => {
  let fake: FakePayPal;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The one request PayPal received with this PayPal-Request-Id (Coffer's transaction token). */
  function sentWith(token: string): FakeRequest {
    const sent = fake.server.requestsWith('paypal-request-id', token);
    expect(sent).toHaveLength(1);
    return sent[0] as FakeRequest;
  }

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'USD', ...extra });

  beforeAll(async () => {
    fake = await FakePayPal.start({ clientId: CLIENT_ID, secret: SECRET });
    e2e = await startGatewayE2e('paypal_commerce_platform', fake.url, store);
    gateway = await e2e.createGateway({ login: CLIENT_ID, password: SECRET, sandbox: true });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => fake.server.setMode('normal'));

  it('creates a gateway with login and password; missing or unknown credentials are a 422 naming the field, in JSON and XML', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'paypal_commerce_platform', login: CLIENT_ID, password: SECRET } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'paypal_commerce_platform', name: 'PayPal Commerce Platform' });
    expect(created.text).not.toContain(SECRET);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'paypal_commerce_platform', login: CLIENT_ID } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'password', message: "Password can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>paypal_commerce_platform</gateway_type><login>${CLIENT_ID}</login><password>x</password><client_secret>y</client_secret></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('client_secret');
  });

  it.each(FORMATS)('purchases in %s: an order with intent CAPTURE and the card, succeeded with the capture id, AVS and CVV', async (format) => {
    const fresh = await e2e.vault(PAN); // the CVV goes with a card's first use only
    const { status, t } = await purchase(format, fresh, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({
      state: 'succeeded',
      transaction_type: 'Purchase',
      gateway_type: 'paypal_commerce_platform',
      order_id: `order-${format}`,
      response: { success: true, message: 'Transaction approved', avs_code: 'Y', cvv_code: 'M', error_code: null },
    });
    const sent = sentWith(t.token);
    expect(sent.path).toBe('/v2/checkout/orders');
    expect(sent.headers.authorization).toMatch(/^Bearer A21AA/);
    expect(jsonOf(sent)).toMatchObject({
      intent: 'CAPTURE',
      purchase_units: [{ amount: { currency_code: 'USD', value: '10.00' }, custom_id: `order-${format}` }],
      payment_source: { card: { number: PAN, expiry: '2030-03', security_code: '737', name: 'Ada Lovelace' } },
    });
    expect(fake.payments.get(t.gateway_transaction_id)).toMatchObject({ kind: 'capture', captured: 1000 });
  });

  it('fetches one OAuth token and reuses it; after PayPal revokes it, fetches a new one once', async () => {
    const before = fake.tokensIssued;
    await purchase('json', card);
    await purchase('json', card);
    expect(fake.tokensIssued).toBe(before);
    fake.revokeTokens();
    const after = await purchase('xml', card);
    expect(after.status).toBe(200);
    expect(fake.tokensIssued).toBe(before + 1);
    expect(fake.server.requestsWith('paypal-request-id', after.t.token)).toHaveLength(2);
  });

  it.each([
    ['CCREJECT-IF', 'insufficient_funds'],
    ['CCREJECT-EC', 'expired_card'],
    ['CCREJECT-REFUSED', 'card_declined'],
  ])('turns the sandbox trigger %s into 422 gateway_processing_failed (%s), JSON and XML', async (trigger, errorCode) => {
    const declining = await e2e.vault(PAN, { first_name: trigger, last_name: 'Lovelace' });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: errorCode, avs_code: 'N', cvv_code: 'N' } });
    }
  });

  it('authorizes, captures part, refunds part of the capture, in JSON and XML', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'USD' });
    expect(auth.status).toBe(200);
    expect(jsonOf(sentWith(auth.t.token))).toMatchObject({ intent: 'AUTHORIZE' });
    const authorization = auth.t.gateway_transaction_id as string;

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Capture completed' } });
    const captureSent = sentWith(capture.t.token);
    expect(captureSent.path).toBe(`/v2/payments/authorizations/${authorization}/capture`);
    expect(jsonOf(captureSent)).toEqual({ amount: { currency_code: 'USD', value: '20.00' }, final_capture: true });

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500, response: { message: 'Refund completed' } });
    expect(sentWith(credit.t.token).path).toBe(`/v2/payments/captures/${capture.t.gateway_transaction_id}/refund`);
    expect(fake.payments.get(capture.t.gateway_transaction_id)).toMatchObject({ captured: 2000, refunded: 500 });

    // A second capture of the authorization is refused (captures are final).
    expect((await transact(e2e.live, 'json', `transactions/${auth.t.token}/capture`, { amount: 100 })).status).toBe(422);
  });

  it('refunds a purchase in full through its capture', async () => {
    const bought = await purchase('json', card, { amount: 1200 });
    const credit = await transact(e2e.live, 'xml', `transactions/${bought.t.token}/credit`, null);
    expect(credit.status).toBe(200);
    expect(jsonOf(sentWith(credit.t.token))).toEqual({ amount: { currency_code: 'USD', value: '12.00' } });
    expect(fake.payments.get(bought.t.gateway_transaction_id)?.refunded).toBe(1200);
  });

  it('voids an authorization', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'USD' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Authorization voided' } });
    expect(sentWith(voided.t.token).path).toBe(`/v2/payments/authorizations/${auth.t.gateway_transaction_id}/void`);
    expect(fake.payments.get(auth.t.gateway_transaction_id)?.status).toBe('VOIDED');
  });

  it('stores the card in PayPal’s vault and purchases with the payment token, sending no card number', async () => {
    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: await e2e.vault(PAN) });
    expect(stored.status).toBe(200);
    const token = stored.t.third_party_token as string;
    expect(fake.vault.get(token)).toMatchObject({ number: PAN });
    expect(fake.server.requestsWith('paypal-request-id', stored.t.token).map((request) => request.path)).toEqual(['/v3/vault/setup-tokens']);
    const bought = await purchase('xml', stored.t.payment_method.token as string);
    expect(bought.status).toBe(200);
    const sent = sentWith(bought.t.token);
    expect(jsonOf(sent).payment_source).toEqual({ card: { vault_id: token } });
    expect(sent.rawBody).not.toContain(PAN);
  });

  it('records 408 result unknown when PayPal hangs, 422 on a 500 or garbage, and a config_error for a wrong secret', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ login: CLIENT_ID, password: 'not-the-secret', sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'Client Authentication failed' });
  });

  it('keeps no card data, secret or access token in the transcript', async () => {
    fake.revokeTokens(); // the transcript then holds the token exchange too
    const fresh = await e2e.vault(PAN);
    const bought = await purchase('json', fresh);
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`[*>] POST ${fake.url}/v1/oauth2/token\n`);
    expect(res.text).toContain(`[*>] POST ${fake.url}/v2/checkout/orders\n`);
    expect(res.text).toContain('authorization: Bearer [FILTERED]');
    expect(res.text).toContain('"access_token":"[FILTERED]"');
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(SECRET);
    expect(res.text).not.toMatch(/A21AA[\w-]{10,}/);
    expect(res.text).not.toMatch(/"security_code"\s*:\s*"737"/);
    expect(findCardData(res.text)).toEqual([]);
  });
});
