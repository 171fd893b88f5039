import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, FORMATS, startGatewayE2e, transact, type GatewayE2e, expectFaultOutcomes } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakeElavon } from '../fakes/fake-elavon.js';

/**
 * Coffer with an Elavon Converge gateway end to end: a production environment, cards vaulted in it,
 * every operation through the v1 API in JSON and XML against a fake Converge XML API on 127.0.0.1
 * (COFFER_GATEWAY_ENDPOINTS), asserting what the API answers and what Converge received.
 */

const MERCHANT_ID = '0019595';
const USER = 'webpage';
const PIN = 'E2E0PIN5R0Q0T2YKH9L9HHDNS6D2OEZKW8WV9VGYZ8XUQ6KQ3RMHJ9IY1YP0PZZ';
const PAN = '4000000000000002';

describe.each(storeKinds)('Elavon gateway end to end (%s)', (store) => {
  let fake: FakeElavon;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The one request Converge received for this order id (ssl_invoice_number). */
  function sentFor(orderId: string): Record<string, string> {
    const sent = fake.received.filter((fields) => fields.ssl_invoice_number === orderId);
    expect(sent).toHaveLength(1);
    return sent[0] as Record<string, string>;
  }

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'USD', ...extra });

  beforeAll(async () => {
    fake = await FakeElavon.start({ merchantId: MERCHANT_ID, user: USER, pin: PIN });
    e2e = await startGatewayE2e('elavon', fake.url, store);
    gateway = await e2e.createGateway({ merchant_id: MERCHANT_ID, user: USER, pin: PIN, sandbox: true });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => fake.server.setMode('normal'));

  it('creates a gateway echoing merchant_id and user but never the pin; a missing or unknown credential is a 422 naming it, in JSON and XML', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'elavon', merchant_id: MERCHANT_ID, user: USER, pin: PIN, multi_currency: 'true' } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'elavon', name: 'Elavon' });
    expect(created.text).toContain(USER);
    expect(created.text).not.toContain(PIN);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'elavon', merchant_id: MERCHANT_ID, user: USER } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'pin', message: "Pin can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>elavon</gateway_type><merchant_id>${MERCHANT_ID}</merchant_id><user>${USER}</user><pin>x</pin><password>y</password></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('password');
  });

  it.each(FORMATS)('purchases in %s: ccsale with the card, succeeded with Converge’s ssl_txn_id, AVS and CVV', async (format) => {
    const fresh = await e2e.vault(PAN); // the CVV is kept for one use only
    const { status, t } = await purchase(format, fresh, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({
      state: 'succeeded',
      transaction_type: 'Purchase',
      gateway_type: 'elavon',
      order_id: `order-${format}`,
      response: { success: true, message: 'Transaction approved', avs_code: 'Y', cvv_code: 'M', error_code: null },
    });
    expect(sentFor(`order-${format}`)).toMatchObject({ ssl_transaction_type: 'ccsale', ssl_amount: '10.00', ssl_card_number: PAN, ssl_exp_date: '0330', ssl_cvv2cvc2: '737', ssl_avs_zip: 'SW1Y4JH' });
    expect(fake.txns.get(t.gateway_transaction_id)).toMatchObject({ type: 'ccsale', amount: '10.00' });
  });

  it.each([
    ['DECLINE', 'card_declined', 'DECLINED'],
    ['NSF', 'insufficient_funds', 'DECLINED'],
    ['CVV', 'incorrect_cvc', 'DECLINED CVV2'],
  ])('turns Converge’s decline for holder %s into 422 gateway_processing_failed (%s), JSON and XML', async (lastName, errorCode, message) => {
    const declining = await e2e.vault(PAN, { last_name: lastName });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: errorCode, message } });
    }
  });

  it('authorizes, captures part with cccomplete, refunds part with ccreturn, in JSON and XML', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'USD', order_id: 'auth-1' });
    expect(auth.status).toBe(200);
    expect(sentFor('auth-1').ssl_transaction_type).toBe('ccauthonly');
    const txnId = auth.t.gateway_transaction_id as string;

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Capture approved' } });
    expect(fake.received.at(-1)).toMatchObject({ ssl_transaction_type: 'cccomplete', ssl_txn_id: txnId, ssl_amount: '20.00' });

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500, response: { message: 'Refund approved' } });
    expect(fake.received.at(-1)).toMatchObject({ ssl_transaction_type: 'ccreturn', ssl_txn_id: capture.t.gateway_transaction_id, ssl_amount: '5.00' });
    expect(fake.txns.get(txnId)).toMatchObject({ completed: '20.00', returned: 5 });

    const second = await transact(e2e.live, 'json', `transactions/${auth.t.token}/capture`, { amount: 100 });
    expect(second.status).toBe(422);
  });

  it('voids an authorization with ccdelete and a purchase with ccvoid', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'USD' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Transaction voided' } });
    expect(fake.received.at(-1)).toMatchObject({ ssl_transaction_type: 'ccdelete', ssl_txn_id: auth.t.gateway_transaction_id });
    const sale = await purchase('json', card);
    const voidedSale = await transact(e2e.live, 'json', `transactions/${sale.t.token}/void`, null);
    expect(voidedSale.status).toBe(200);
    expect(fake.received.at(-1)).toMatchObject({ ssl_transaction_type: 'ccvoid', ssl_txn_id: sale.t.gateway_transaction_id });
    expect(fake.txns.get(sale.t.gateway_transaction_id)?.voided).toBe(true);
  });

  it('verifies with ccverify and stores with ccgettoken, then purchases with the token and no card number', async () => {
    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card });
    expect(verified.status).toBe(200);
    expect(verified.t.response).toMatchObject({ success: true, message: 'Card verified' });
    expect(fake.received.at(-1)?.ssl_transaction_type).toBe('ccverify');

    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    const token = stored.t.third_party_token as string;
    expect(token).toMatch(/^\d{16}$/);
    expect(fake.tokens.has(token)).toBe(true);
    const bought = await purchase('xml', stored.t.payment_method.token as string, { order_id: 'by-token' });
    expect(bought.status).toBe(200);
    const sent = sentFor('by-token');
    expect(sent.ssl_token).toBe(token);
    expect(sent).not.toHaveProperty('ssl_card_number');
  });

  it('records 408 result unknown when Converge hangs, 422 on a 500 or garbage, and a config_error for a wrong pin', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ merchant_id: MERCHANT_ID, user: USER, pin: 'not-the-pin', sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'The credentials supplied in the authorization request are invalid.' });
  });

  it('keeps no card data or pin in the transcript', async () => {
    const bought = await purchase('json', await e2e.vault(PAN));
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`[*>] POST ${fake.url}/VirtualMerchantDemo/processxml.do\n`);
    expect(res.text).toContain('%3Cssl_pin%3E[FILTERED]%3C%2Fssl_pin%3E');
    expect(res.text).toContain('<ssl_result_message>APPROVAL</ssl_result_message>');
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(PIN);
    expect(res.text).toContain('%3Cssl_cvv2cvc2%3E[FILTERED]%3C%2Fssl_cvv2cvc2%3E');
    expect(findCardData(res.text)).toEqual([]);
  });
});
