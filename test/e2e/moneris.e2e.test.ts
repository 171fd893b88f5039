import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, FORMATS, startGatewayE2e, transact, type GatewayE2e, expectFaultOutcomes } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakeMoneris } from '../fakes/fake-moneris.js';

/**
 * Coffer with a Moneris gateway end to end: a production environment, cards vaulted in it, every
 * operation through the v1 API in JSON and XML against a fake Moneris XML gateway on 127.0.0.1
 * (COFFER_GATEWAY_ENDPOINTS), asserting what the API answers and what Moneris received.
 */

const STORE_ID = 'store5';
const API_TOKEN = 'yesguy-e2e-api-token';
const PAN = '5454545454545454'; // Moneris's documented Mastercard test card (its Visa 4242… is one of Coffer's own test cards)

describe.each(storeKinds)('Moneris gateway end to end (%s)', (store) => {
  let fake: FakeMoneris;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The transaction element of the last request Moneris received. */
  const lastSent = () => FakeMoneris.transactionOf(fake.server.lastRequest());

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'CAD', ...extra });

  beforeAll(async () => {
    fake = await FakeMoneris.start({ storeId: STORE_ID, apiToken: API_TOKEN });
    e2e = await startGatewayE2e('moneris', fake.url, store);
    gateway = await e2e.createGateway({ store_id: STORE_ID, api_token: API_TOKEN, sandbox: true });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => fake.server.setMode('normal'));

  it('creates gateways; a missing or unknown credential is a 422 naming the field, in JSON and XML; the token is never echoed', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'moneris', store_id: STORE_ID, api_token: API_TOKEN, avs_enabled: 'true' } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'moneris', name: 'Moneris' });
    expect(created.text).not.toContain(API_TOKEN);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'moneris', store_id: STORE_ID } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'api_token', message: "Api token can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>moneris</gateway_type><store_id>s</store_id><api_token>t</api_token><login>x</login></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('login');
  });

  it.each(FORMATS)('purchases in %s: <purchase> with the card, succeeded with TransID;ReceiptId and the CVD result', async (format) => {
    const fresh = await e2e.vault(PAN);
    const { status, t } = await purchase(format, fresh, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({
      state: 'succeeded',
      transaction_type: 'Purchase',
      gateway_type: 'moneris',
      order_id: `order-${format}`,
      gateway_transaction_id: expect.stringMatching(new RegExp(`^\\d+-0_11;order-${format}$`)),
      response: { success: true, message: 'Transaction approved', cvv_code: 'M', error_code: null },
    });
    expect(fake.server.lastRequest().path).toBe('/gateway2/servlet/MpgRequest');
    expect(lastSent()).toEqual({
      kind: 'purchase',
      fields: { order_id: `order-${format}`, cust_id: 'Ada Lovelace', amount: '10.00', pan: PAN, expdate: '3003', crypt_type: '7', cvd_info: { cvd_indicator: '1', cvd_value: '737' } },
    });
  });

  it('turns Moneris’s declines into 422 gateway_processing_failed with the standard code, JSON and XML', async () => {
    for (const format of FORMATS) {
      const declined = await purchase(format, card, { amount: 1005 });
      expect(declined.status).toBe(422);
      expect(declined.t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: 'card_declined', message: 'DECLINED' } });
      const low = await purchase(format, card, { amount: 1076 });
      expect(low.t.response).toMatchObject({ error_code: 'insufficient_funds', message: 'DECLINED LOW FUNDS' });
    }
  });

  it('preauthorizes, completes part, refunds part of the completion', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'CAD' });
    expect(auth.status).toBe(200);
    expect(lastSent()).toMatchObject({ kind: 'preauth', fields: { amount: '25.00' } });
    const [txn, orderId] = (auth.t.gateway_transaction_id as string).split(';');

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Capture approved' } });
    expect(lastSent()).toEqual({ kind: 'completion', fields: { order_id: orderId, comp_amount: '20.00', txn_number: txn, crypt_type: '7' } });

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500, response: { message: 'Refund approved' } });
    expect(lastSent()).toEqual({ kind: 'refund', fields: { order_id: orderId, amount: '5.00', txn_number: (capture.t.gateway_transaction_id as string).split(';')[0], crypt_type: '7' } });
    expect(fake.transactions.get(txn as string)).toMatchObject({ completed: 20 });
  });

  it('voids a preauth with a 0.00 completion and a purchase with purchasecorrection', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'CAD' });
    const reversed = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(reversed.status).toBe(200);
    expect(reversed.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Authorization reversed' } });
    expect(lastSent()).toMatchObject({ kind: 'completion', fields: { comp_amount: '0.00' } });

    const bought = await purchase('json', card);
    const corrected = await transact(e2e.live, 'json', `transactions/${bought.t.token}/void`, null);
    expect(corrected.status).toBe(200);
    expect(corrected.t.response).toMatchObject({ message: 'Transaction voided' });
    expect(lastSent().kind).toBe('purchasecorrection');
    expect(fake.transactions.get((bought.t.gateway_transaction_id as string).split(';')[0] as string)?.corrected).toBe(true);
  });

  it('verifies with <card_verification>; refuses JPY before sending (a Moneris store charges CAD or USD)', async () => {
    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card });
    expect(verified.status).toBe(200);
    expect(verified.t.response).toMatchObject({ message: 'Card verified' });
    expect(lastSent().kind).toBe('card_verification');
    expect(lastSent().fields).not.toHaveProperty('amount');
    const before = fake.server.requests.length;
    const yen = await purchase('json', card, { amount: 1500, currency_code: 'JPY' });
    expect(yen.status).toBe(422);
    expect(yen.t.response).toMatchObject({ error_code: 'invalid_amount' });
    expect(fake.server.requests.length).toBe(before);
  });

  it('stores the card in the Moneris Vault and purchases with res_purchase_cc, sending no card number', async () => {
    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    expect(lastSent()).toMatchObject({ kind: 'res_add_cc', fields: { pan: PAN, expdate: '3003' } });
    const dataKey = stored.t.third_party_token as string;
    expect(fake.vault.has(dataKey)).toBe(true);
    const bought = await purchase('xml', stored.t.payment_method.token as string);
    expect(bought.status).toBe(200);
    expect(lastSent()).toMatchObject({ kind: 'res_purchase_cc', fields: { data_key: dataKey, amount: '10.00', crypt_type: '7' } });
    expect(fake.server.lastRequest().rawBody).not.toContain(PAN);
  });

  it('records 408 result unknown when Moneris hangs, 422 on a 500 or garbage, and config_error for a wrong token', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ store_id: STORE_ID, api_token: 'not-the-token', sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'API token mismatch' });
  });

  it('keeps no card data or token in the transcript', async () => {
    const fresh = await e2e.vault(PAN);
    const bought = await purchase('json', fresh);
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`POST ${fake.url}/gateway2/servlet/MpgRequest`);
    expect(res.text).toContain('<api_token>[FILTERED]</api_token>');
    expect(res.text).toContain('<ResponseCode>027</ResponseCode>');
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(API_TOKEN);
    expect(res.text).not.toContain('<cvd_value>737');
    expect(findCardData(res.text)).toEqual([]);
  });
});
