import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, FORMATS, startGatewayE2e, transact, type GatewayE2e, expectFaultOutcomes } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakeRealex } from '../fakes/fake-realex.js';

/**
 * Coffer with a Global Payments (Realex) gateway end to end: a production environment, cards
 * vaulted in it, every operation through the v1 API in JSON and XML against a fake e-commerce XML
 * API on 127.0.0.1 (COFFER_GATEWAY_ENDPOINTS) that checks each request's sha1hash and signs its
 * answers, asserting what the API answers and what the fake received.
 */

const MERCHANT = 'cofferltd';
const SECRET = 'E2e-Shared-Secret-Po8lRRT67a';
const REBATE = 'E2e-Rebate-Password';
const PAN = '4263970000005262';

describe.each(storeKinds)('Global Payments (Realex) gateway end to end (%s)', (store) => {
  let fake: FakeRealex;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'EUR', ...extra });

  beforeAll(async () => {
    fake = await FakeRealex.start({ merchantId: MERCHANT, secret: SECRET, rebatePassword: REBATE });
    e2e = await startGatewayE2e('realex', fake.url, store);
    gateway = await e2e.createGateway({ login: MERCHANT, password: SECRET, account: 'internet', rebate_secret: REBATE, sandbox: true });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => fake.server.setMode('normal'));

  it('creates a gateway echoing login and account but never the secrets; a missing or unknown credential is a 422 naming it, in JSON and XML', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'realex', login: MERCHANT, password: SECRET, rebate_secret: REBATE } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'realex', name: 'Global Payments (Realex)' });
    expect(created.text).toContain(MERCHANT);
    expect(created.text).not.toContain(SECRET);
    expect(created.text).not.toContain(REBATE);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'realex', login: MERCHANT } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'password', message: "Password can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>realex</gateway_type><login>${MERCHANT}</login><password>x</password><shared_secret>y</shared_secret></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('shared_secret');
  });

  it.each(FORMATS)('purchases in %s: a signed auth with autosettle 1, succeeded with orderid;pasref;authcode, AVS and CVV', async (format) => {
    const fresh = await e2e.vault(PAN); // the CVV is kept for one use only
    const { status, t } = await purchase(format, fresh, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({
      state: 'succeeded',
      transaction_type: 'Purchase',
      gateway_type: 'realex',
      order_id: `order-${format}`,
      response: { success: true, message: 'Transaction approved', avs_code: 'M', cvv_code: 'M', error_code: null },
    });
    expect(t.gateway_transaction_id).toMatch(new RegExp(`^order-${format};\\d{17};\\d{6}$`));
    expect(fake.last()).toMatchObject({ '@_type': 'auth', orderid: `order-${format}`, autosettle: { '@_flag': '1' }, card: { number: PAN, cvn: { number: '737', presind: '1' } } });
    expect(fake.orders.get(`order-${format}`)).toMatchObject({ amount: 1000, settled: 1000 });
  });

  it.each([
    ['DECLINE', 'card_declined', '[ test system ] DECLINED'],
    ['REFERRAL', 'call_issuer', '[ test system ] REFERRAL B'],
  ])('turns the answer for holder %s into 422 gateway_processing_failed (%s), JSON and XML', async (lastName, errorCode, message) => {
    const declining = await e2e.vault(PAN, { last_name: lastName });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: errorCode, message } });
    }
  });

  it('authorizes, settles part, rebates part of the settle, in JSON and XML', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'EUR' });
    expect(auth.status).toBe(200);
    const [orderId] = (auth.t.gateway_transaction_id as string).split(';');
    expect(fake.orders.get(orderId as string)).toMatchObject({ autosettle: false, settled: 0 });

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Capture approved' } });
    expect(fake.last()).toMatchObject({ '@_type': 'settle', orderid: orderId, amount: { '#text': '2000', '@_currency': 'EUR' } });

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500, response: { message: 'Refund approved' } });
    expect(fake.last()).toMatchObject({ '@_type': 'rebate', orderid: orderId, amount: { '#text': '500' } });
    expect(fake.orders.get(orderId as string)).toMatchObject({ settled: 2000, rebated: 500 });

    const second = await transact(e2e.live, 'json', `transactions/${auth.t.token}/capture`, { amount: 100 });
    expect(second.status).toBe(422);
  });

  it('voids an authorization', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'EUR' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Transaction voided' } });
    expect(fake.last()['@_type']).toBe('void');
    expect(fake.orders.get((auth.t.gateway_transaction_id as string).split(';')[0] as string)?.voided).toBe(true);
  });

  it('verifies with otb, stores in RealVault and purchases with receipt-in, sending no card number', async () => {
    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card });
    expect(verified.status).toBe(200);
    expect(fake.last()['@_type']).toBe('otb');

    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    const token = stored.t.third_party_token as string;
    expect(fake.cards.has(token)).toBe(true);
    const bought = await purchase('xml', stored.t.payment_method.token as string, { amount: 1500, currency_code: 'JPY' });
    expect(bought.status).toBe(200);
    expect(fake.last()).toMatchObject({ '@_type': 'receipt-in', payerref: token.split('|')[0], paymentmethod: token.split('|')[1], amount: { '#text': '1500', '@_currency': 'JPY' } });
    expect(fake.last()).not.toHaveProperty('card');
  });

  it('records 408 result unknown when the gateway hangs, 422 on a 500 or garbage, and a failure for a wrong secret', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ login: MERCHANT, password: 'not-the-secret', sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ success: false, message: 'SHA1 hash incorrect' });
  });

  it('keeps no card data or secret in the transcript', async () => {
    const bought = await purchase('json', await e2e.vault(PAN));
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`[*>] POST ${fake.url}/epage-remote.cgi\n`);
    expect(res.text).toContain('<number>[FILTERED]</number>');
    expect(res.text).toContain('[ test system ] AUTHORISED');
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(SECRET);
    expect(res.text).not.toContain('<number>737</number>');
    expect(findCardData(res.text)).toEqual([]);
  });
});
