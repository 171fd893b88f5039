import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, FORMATS, startGatewayE2e, transact, type GatewayE2e, expectFaultOutcomes } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakeAuthorizeNet } from '../fakes/fake-authorize-net.js';

/**
 * Coffer with an Authorize.Net gateway end to end: a production environment, cards vaulted in it,
 * every operation through the v1 API in JSON and XML against a fake Authorize.Net JSON API on
 * 127.0.0.1 (COFFER_GATEWAY_ENDPOINTS), asserting what the API answers and what Authorize.Net received.
 */

const LOGIN = 'e2eApiLogin9x';
const TRANSACTION_KEY = 'e2eTransKey4hTG2zz';
const PAN = '4007000000027'; // Authorize.Net's documented Visa test card

describe.each(storeKinds)('Authorize.Net gateway end to end (%s)', (store) => {
  let fake: FakeAuthorizeNet;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  const lastSent = () => FakeAuthorizeNet.transactionOf(fake.server.lastRequest());
  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'USD', ...extra });

  beforeAll(async () => {
    fake = await FakeAuthorizeNet.start({ login: LOGIN, transactionKey: TRANSACTION_KEY });
    e2e = await startGatewayE2e('authorize_net', fake.url, store);
    gateway = await e2e.createGateway({ login: LOGIN, password: TRANSACTION_KEY, sandbox: true });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => fake.server.setMode('normal'));

  it('creates the gateway; a missing or unknown credential is a 422 naming the field, in JSON and XML', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'authorize_net', login: LOGIN, password: TRANSACTION_KEY } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'authorize_net', name: 'Authorize.Net' });
    expect(created.text).not.toContain(TRANSACTION_KEY);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'authorize_net', login: LOGIN } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'password', message: "Password can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>authorize_net</gateway_type><login>a</login><password>b</password><api_key>y</api_key></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('api_key');
  });

  it.each(FORMATS)('purchases in %s: authCaptureTransaction with the card, succeeded with transId#last4, AVS and CVV', async (format) => {
    const fresh = await e2e.vault(PAN, { address1: '888 Test St' });
    const { status, t } = await purchase(format, fresh, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({
      state: 'succeeded',
      transaction_type: 'Purchase',
      gateway_type: 'authorize_net',
      order_id: `order-${format}`,
      response: { success: true, message: 'This transaction has been approved', avs_code: 'Y', cvv_code: 'M', error_code: null },
    });
    expect(t.gateway_transaction_id).toMatch(/^\d+#0027#purchase$/);
    expect(fake.server.lastRequest().path).toBe('/xml/v1/request.api');
    expect(lastSent()).toMatchObject({
      transactionType: 'authCaptureTransaction',
      amount: '10.00',
      currencyCode: 'USD',
      payment: { creditCard: { cardNumber: PAN, expirationDate: '2030-03', cardCode: '737' } },
      order: { invoiceNumber: `order-${format}` },
      billTo: { firstName: 'Ada', lastName: 'Lovelace', address: '888 Test St', zip: 'SW1Y 4JH' },
    });
  });

  it('turns a decline (zip 46282) into 422 gateway_processing_failed with card_declined, JSON and XML', async () => {
    const declining = await e2e.vault(PAN, { zip: '46282' });
    for (const format of FORMATS) {
      const res = await purchase(format, declining);
      expect(res.status).toBe(422);
      expect(res.t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: 'card_declined', message: 'This transaction has been declined' } });
    }
  });

  it('authorizes, captures part, refunds part of it with the last four', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'USD' });
    expect(auth.status).toBe(200);
    expect(lastSent()).toMatchObject({ transactionType: 'authOnlyTransaction', amount: '25.00' });
    const transId = (auth.t.gateway_transaction_id as string).split('#')[0] as string;

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000 });
    expect(lastSent()).toEqual({ transactionType: 'priorAuthCaptureTransaction', amount: '20.00', refTransId: transId });

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500 });
    expect(lastSent()).toEqual({ transactionType: 'refundTransaction', amount: '5.00', payment: { creditCard: { cardNumber: '0027', expirationDate: 'XXXX' } }, refTransId: transId });
    expect(fake.transactions.get(transId)).toMatchObject({ captured: 20, refunded: 5 });

    const whole = await transact(e2e.live, 'xml', `transactions/${capture.t.token}/credit`, null);
    expect(whole.status).toBe(200);
    expect(fake.transactions.get(transId)).toMatchObject({ refunded: 20 });
  });

  it('voids an authorization in XML', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'USD' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void' });
    const transId = (auth.t.gateway_transaction_id as string).split('#')[0] as string;
    expect(lastSent()).toEqual({ transactionType: 'voidTransaction', refTransId: transId });
    expect(fake.transactions.get(transId)?.voided).toBe(true);
  });

  it('verifies with a $0 authOnlyTransaction', async () => {
    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card });
    expect(verified.status).toBe(200);
    expect(verified.t).toMatchObject({ state: 'succeeded', transaction_type: 'Verification' });
    expect(lastSent()).toMatchObject({ transactionType: 'authOnlyTransaction', amount: '0.00' });
  });

  it('stores the card as a customer profile and purchases with it, sending no card number', async () => {
    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    const token = stored.t.third_party_token as string;
    expect(token).toMatch(/^\d+\|\d+$/);
    expect(fake.profiles.has(token)).toBe(true);
    const [customerProfileId, paymentProfileId] = token.split('|');
    const bought = await purchase('xml', stored.t.payment_method.token as string);
    expect(bought.status).toBe(200);
    expect(bought.t).toMatchObject({ state: 'succeeded', response: { success: true } });
    const sentNow = lastSent();
    expect(sentNow).toMatchObject({ transactionType: 'authCaptureTransaction', profile: { customerProfileId, paymentProfile: { paymentProfileId } } });
    expect(sentNow).not.toHaveProperty('payment');
    expect(fake.server.lastRequest().rawBody).not.toContain(PAN);
  });

  it('records 408 result unknown when Authorize.Net hangs, 422 on a 500 or garbage, and config_error for wrong credentials', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ login: LOGIN, password: 'not-the-key', sandbox: true });
    const refused = await purchase('xml', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'User authentication failed due to invalid authentication values' });
  });

  it('keeps no card data or transaction key in the transcript', async () => {
    const fresh = await e2e.vault(PAN);
    const bought = await purchase('json', fresh);
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`POST ${fake.url}/xml/v1/request.api`);
    expect(res.text).toContain('"transactionKey":"[FILTERED]"');
    expect(res.text).toContain('This transaction has been approved.');
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(TRANSACTION_KEY);
    expect(res.text).not.toContain('"cardCode":"737"');
    expect(findCardData(res.text)).toEqual([]);
  });
});
