import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, expectFaultOutcomes, FORMATS, startGatewayE2e, transact, type GatewayE2e } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakeRedsys, type FakeRedsysCall } from '../fakes/fake-redsys.js';

/**
 * Coffer with a Redsys REST gateway end to end: a production environment, cards vaulted in it, every
 * operation through the v1 API in JSON and XML against a fake Redsys on 127.0.0.1
 * (COFFER_GATEWAY_ENDPOINTS) that verifies request signatures and signs its answers, asserting what
 * the API answers and what Redsys received.
 */

const MERCHANT_ID = '999008881';
const TERMINAL = '7';
const SECRET_KEY = Buffer.from('e2eRedsysMerchantKey-24b').toString('base64');
const PAN = '4035874000424977'; // a Luhn-valid Visa number that is not one of Coffer's own test cards

describe.each(storeKinds)('Redsys REST gateway end to end (%s)', (store) => {
  let fake: FakeRedsys;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The one call Redsys received for the order of this gateway_transaction_id, of this type. */
  function callOf(gatewayTransactionId: string, type: string): FakeRedsysCall {
    const calls = fake.callsFor(gatewayTransactionId.split('|')[0] as string).filter((call) => call.type === type);
    expect(calls).toHaveLength(1);
    return calls[0] as FakeRedsysCall;
  }

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'EUR', ...extra });

  beforeAll(async () => {
    fake = await FakeRedsys.start({ merchantId: MERCHANT_ID, terminal: TERMINAL, secretKey: SECRET_KEY });
    e2e = await startGatewayE2e('redsys_rest', fake.url, store);
    gateway = await e2e.createGateway({ merchant_id: MERCHANT_ID, terminal: TERMINAL, secret_key: SECRET_KEY, sandbox: true });
    card = await e2e.vault(PAN, { country: 'ES' });
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => {
    fake.server.setMode('normal');
    fake.forgeSignatures = false;
  });

  it('creates the gateway echoing merchant_id and terminal only; a missing or unknown credential is a 422 naming the field', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'redsys_rest', merchant_id: MERCHANT_ID, terminal: TERMINAL, secret_key: SECRET_KEY } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'redsys_rest', name: 'Redsys Rest', merchant_id: MERCHANT_ID, terminal: TERMINAL });
    expect(created.text).not.toContain(SECRET_KEY);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'redsys_rest', merchant_id: MERCHANT_ID } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'secret_key', message: "Secret key can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>redsys_rest</gateway_type><merchant_id>a</merchant_id><secret_key>b</secret_key><login>c</login></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('login');
  });

  it.each(FORMATS)('purchases in %s: signed parameters Redsys verified, succeeded with order|amount|currency', async (format) => {
    // A fresh card: Coffer hands a card's CVV to the first transaction only.
    const { status, t } = await purchase(format, await e2e.vault(PAN, { country: 'ES' }), { description: `Tea ${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({ state: 'succeeded', transaction_type: 'Purchase', gateway_type: 'redsys_rest', response: { success: true, message: 'Transaction approved', error_code: null } });
    const id = t.gateway_transaction_id as string;
    expect(id).toMatch(/^\d{4}[A-Za-z0-9]{8}\|1000\|978$/);
    expect(callOf(id, '0').parameters).toMatchObject({ DS_MERCHANT_AMOUNT: '1000', DS_MERCHANT_CURRENCY: '978', DS_MERCHANT_PAN: PAN, DS_MERCHANT_EXPIRYDATE: '3003', DS_MERCHANT_CVV2: '737', DS_MERCHANT_MERCHANTCODE: MERCHANT_ID, DS_MERCHANT_TERMINAL: TERMINAL, DS_MERCHANT_PRODUCTDESCRIPTION: `Tea ${format}` });
    expect(fake.orders.get(id.split('|')[0] as string)).toMatchObject({ status: 'paid', amount: 1000 });
  });

  it('sends JPY in whole yen', async () => {
    const { status, t } = await purchase('json', card, { amount: 1500, currency_code: 'JPY' });
    expect(status).toBe(200);
    expect(callOf(t.gateway_transaction_id as string, '0').parameters).toMatchObject({ DS_MERCHANT_AMOUNT: '1500', DS_MERCHANT_CURRENCY: '392' });
  });

  it.each([
    ['0116', 'insufficient_funds'],
    ['0129', 'incorrect_cvc'],
  ])('turns Ds_Response %s into 422 gateway_processing_failed (%s), JSON and XML', async (code, errorCode) => {
    const declining = await e2e.vault(PAN, { first_name: 'Reject', last_name: code, country: 'ES' });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: errorCode } });
    }
  });

  it('a repeated order number is refused by Redsys (SIS0051): the second purchase fails without a second charge', async () => {
    const first = await purchase('json', card, { order_id: '7788DUPL' });
    expect(first.status).toBe(200);
    expect(first.t.gateway_transaction_id).toBe('7788DUPL|1000|978');
    const second = await purchase('xml', card, { order_id: '7788DUPL' });
    expect(second.status).toBe(422);
    expect(second.t).toMatchObject({ state: 'gateway_processing_failed', response: { error_code: 'processing_error', message: 'SIS0051 ERROR' } });
    expect(fake.callsFor('7788DUPL')).toHaveLength(2);
    expect(fake.orders.get('7788DUPL')).toMatchObject({ status: 'paid', captured: 1000 });
  });

  it('authorizes, captures part, refunds part of it, and refuses a refund over what is left, in JSON and XML', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'EUR' });
    expect(auth.status).toBe(200);
    const authId = auth.t.gateway_transaction_id as string;
    expect(callOf(authId, '1').parameters).toMatchObject({ DS_MERCHANT_AMOUNT: '2500' });

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Refund / confirmation approved' } });
    expect(callOf(authId, '2').parameters).toMatchObject({ DS_MERCHANT_AMOUNT: '2000', DS_MERCHANT_CURRENCY: '978' });

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500 });
    expect(fake.orders.get(authId.split('|')[0] as string)).toMatchObject({ captured: 2000, refunded: 500 });

    // Over what is left to refund, Coffer refuses before calling Redsys.
    const over = await transact(e2e.live, 'xml', `transactions/${capture.t.token}/credit`, { amount: 1600 });
    expect(over.status).toBe(422);
    expect(fake.callsFor(authId.split('|')[0] as string).filter((call) => call.type === '3')).toHaveLength(1);
  });

  it('voids an authorization for its original amount, and verifies a card with amount 0', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'EUR' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Cancellation accepted' } });
    const authId = auth.t.gateway_transaction_id as string;
    expect(callOf(authId, '9').parameters).toMatchObject({ DS_MERCHANT_AMOUNT: '700', DS_MERCHANT_CURRENCY: '978' });
    expect(fake.orders.get(authId.split('|')[0] as string)?.status).toBe('cancelled');

    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card });
    expect(verified.status).toBe(200);
    expect(callOf(verified.t.gateway_transaction_id as string, '7').parameters).toMatchObject({ DS_MERCHANT_AMOUNT: '0', DS_MERCHANT_CURRENCY: '978' });
  });

  it('a forged answer signature is 422 processing_error; a hang is 408; 500 and garbage fail; a wrong secret key is a config_error', async () => {
    fake.forgeSignatures = true;
    const forged = await purchase('json', card);
    expect(forged.status).toBe(422);
    expect(forged.t).toMatchObject({ state: 'gateway_processing_failed', response: { error_code: 'processing_error', result_unknown: false } });
    fake.forgeSignatures = false;
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ merchant_id: MERCHANT_ID, terminal: TERMINAL, secret_key: Buffer.from('not-the-merchant-key-24b').toString('base64'), sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'SIS0042 ERROR' });
  });

  it('keeps no card data or secret key in the transcript, inside the Base64 parameters either', async () => {
    const fresh = await e2e.vault(PAN, { country: 'ES' });
    const bought = await purchase('json', fresh);
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`[*>] POST ${fake.url}/sis/rest/trataPeticionREST\n`);
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(SECRET_KEY);
    expect(findCardData(res.text)).toEqual([]);
    const decoded = [...res.text.matchAll(/"Ds_MerchantParameters"\s*:\s*"([^"]+)"/g)].map((match) => Buffer.from(match[1] as string, 'base64').toString('utf8'));
    expect(decoded).toHaveLength(2);
    expect(decoded.join('\n')).not.toContain(PAN);
    expect(JSON.parse(decoded[0] as string)).toMatchObject({ DS_MERCHANT_PAN: '[FILTERED]', DS_MERCHANT_CVV2: '[FILTERED]', DS_MERCHANT_EXPIRYDATE: '[FILTERED]', DS_MERCHANT_AMOUNT: '1000' });
  });
});
