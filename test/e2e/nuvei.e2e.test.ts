import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, FORMATS, startGatewayE2e, transact, type GatewayE2e } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { containsCardLike } from '../../src/domain/scrubbing/card-like.js';
import { FakeNuvei } from '../fakes/fake-nuvei.js';
import { jsonOf, type FakeRequest } from '../fakes/fake-gateway-server.js';

/**
 * Coffer with a Nuvei gateway end to end: a production environment, cards vaulted in it, every
 * operation through the v1 API in JSON and XML against a fake, checksum-verifying Nuvei REST API
 * 1.0 on 127.0.0.1 (COFFER_GATEWAY_ENDPOINTS), asserting what the API answers and what Nuvei
 * received.
 */

const MERCHANT_ID = '5524516963854600967';
const SITE_ID = '255390';
const SECRET_KEY = 'e2eNuveiSecret-abcdef-0123456789';
const PAN = '4035874000424977'; // a Luhn-valid Visa number that is not one of Coffer's own test cards

describe.each(storeKinds)('Nuvei gateway end to end (%s)', (store) => {
  let fake: FakeNuvei;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The one money request Nuvei received with this clientRequestId (Coffer's transaction token). */
  function sentWith(token: string): FakeRequest {
    const sent = fake.server.requests.filter((request) => request.rawBody.includes(`"clientRequestId":"${token}"`));
    expect(sent).toHaveLength(1);
    return sent[0] as FakeRequest;
  }

  /**
   * Nuvei's transactionId of a Coffer gateway_transaction_id: `N` glued to the 19 digits, which the
   * fake makes Luhn-valid on purpose (docs/gateways/nuvei.md), so each id here would be masked bare.
   */
  function nuveiId(id: unknown): string {
    expect(id).toMatch(/^N\d{19}$/);
    const digits = (id as string).slice(1);
    expect(containsCardLike(digits)).toBe(true);
    return digits;
  }

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'USD', ip: '192.0.2.7', ...extra });

  beforeAll(async () => {
    fake = await FakeNuvei.start({ merchantId: MERCHANT_ID, merchantSiteId: SITE_ID, secretKey: SECRET_KEY });
    e2e = await startGatewayE2e('nuvei', fake.url, store);
    gateway = await e2e.createGateway({ merchant_id: MERCHANT_ID, merchant_site_id: SITE_ID, secret_key: SECRET_KEY, sandbox: true });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => {
    fake.server.setMode('normal');
  });

  it('creates the gateway echoing the merchant ids only; a missing or unknown credential is a 422 naming the field, in JSON and XML', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'nuvei', merchant_id: MERCHANT_ID, merchant_site_id: SITE_ID, secret_key: SECRET_KEY } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'nuvei', name: 'Nuvei', merchant_id: MERCHANT_ID, merchant_site_id: SITE_ID });
    expect(created.text).not.toContain(SECRET_KEY);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'nuvei', merchant_id: MERCHANT_ID, merchant_site_id: SITE_ID } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'secret_key', message: "Secret key can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>nuvei</gateway_type><merchant_id>a</merchant_id><merchant_site_id>b</merchant_site_id><secret_key>c</secret_key><client_password>d</client_password></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('client_password');
  });

  it.each(FORMATS)('purchases in %s: a session, then a checksummed Sale, succeeded with Nuvei’s transaction id', async (format) => {
    const { status, t } = await purchase(format, card, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({ state: 'succeeded', transaction_type: 'Purchase', gateway_type: 'nuvei', response: { success: true, message: 'Transaction approved', error_code: null, avs_code: 'Y', cvv_code: 'M' } });
    const sent = jsonOf(sentWith(t.token));
    const expected = createHash('sha256').update(`${MERCHANT_ID}${SITE_ID}${t.token}10.00USD${String(sent.timeStamp)}${SECRET_KEY}`).digest('hex');
    expect(sent).toMatchObject({ transactionType: 'Sale', amount: '10.00', currency: 'USD', clientUniqueId: `order-${format}`, checksum: expected, deviceDetails: { ipAddress: '192.0.2.7' }, paymentOption: { card: { cardNumber: PAN } } });
    expect(fake.transactions.get(nuveiId(t.gateway_transaction_id))).toMatchObject({ type: 'Sale', status: 'APPROVED', amount: 10 });
  });

  it.each([
    ['51', 'insufficient_funds', 'Insufficient Funds'],
    ['54', 'expired_card', 'Expired Card'],
  ])('turns a decline with issuerDeclineCode %s into 422 gateway_processing_failed (%s), JSON and XML', async (code, errorCode, message) => {
    const declining = await e2e.vault(PAN, { first_name: 'Reject', last_name: code });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: errorCode, message } });
    }
  });

  it('authorizes, captures part twice, refunds part of a capture, in JSON and XML', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'USD' });
    expect(auth.status).toBe(200);
    expect(jsonOf(sentWith(auth.t.token))).toMatchObject({ transactionType: 'Auth', amount: '25.00' });

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Transaction captured' } });
    expect(jsonOf(sentWith(capture.t.token))).toMatchObject({ relatedTransactionId: nuveiId(auth.t.gateway_transaction_id), amount: '20.00', currency: 'USD' });

    const rest = await transact(e2e.live, 'json', `transactions/${auth.t.token}/capture`, { amount: 500 });
    expect(rest.status).toBe(200);
    expect(fake.transactions.get(nuveiId(auth.t.gateway_transaction_id))).toMatchObject({ settled: 25 });

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500, response: { message: 'Transaction refunded' } });
    expect(jsonOf(sentWith(credit.t.token))).toMatchObject({ relatedTransactionId: nuveiId(capture.t.gateway_transaction_id), amount: '5.00' });
    expect(fake.transactions.get(nuveiId(capture.t.gateway_transaction_id))).toMatchObject({ settled: 20, refunded: 5 });
  });

  it('voids an authorization with its amount, and verifies a card with a zero-amount Auth', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'USD' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Transaction voided' } });
    expect(jsonOf(sentWith(voided.t.token))).toMatchObject({ relatedTransactionId: nuveiId(auth.t.gateway_transaction_id), amount: '7.00', currency: 'USD' });
    expect(fake.transactions.get(nuveiId(auth.t.gateway_transaction_id))?.status).toBe('VOIDED');

    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card, currency_code: 'USD' });
    expect(verified.status).toBe(200);
    expect(jsonOf(sentWith(verified.t.token))).toMatchObject({ amount: '0.00', transactionType: 'Auth', authenticationOnlyType: 'ACCOUNTVERIFICATION' });
  });

  it.each(FORMATS)('pays out with general credit in %s at /payout.do, checksummed, with the card as cardData', async (format) => {
    const credited = await transact(e2e.live, format, `gateways/${gateway}/general_credit`, { payment_method_token: card, amount: 1500, currency_code: 'EUR', gateway_specific_fields: { nuvei: { user_token_id: 'user-77' } } });
    expect(credited.status).toBe(200);
    expect(credited.t).toMatchObject({ state: 'succeeded', transaction_type: 'GeneralCredit', amount: 1500, response: { message: 'Transaction credited' } });
    const sent = sentWith(credited.t.token);
    expect(sent.path).toBe('/ppp/api/v1/payout.do');
    expect(jsonOf(sent)).toMatchObject({ userTokenId: 'user-77', amount: '15.00', currency: 'EUR', cardData: { cardNumber: PAN } });
    expect(fake.transactions.get(nuveiId(credited.t.gateway_transaction_id))).toMatchObject({ type: 'Credit', amount: 15, currency: 'EUR' });
  });

  it('stores the card as a Nuvei payment option and purchases with it, sending no card number', async () => {
    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    const token = stored.t.third_party_token as string;
    // The userPaymentOptionId is Luhn-valid (the fake's choice) and kept with a P glued on.
    expect(token).toMatch(/^[A-Za-z0-9]+\|P9\d{12}$/);
    const upo = token.split('|')[1]?.slice(1) as string;
    expect(containsCardLike(upo)).toBe(true);
    expect(jsonOf(sentWith(stored.t.token))).toMatchObject({ savePM: 'true', authenticationOnlyType: 'ADDCARD', amount: '0.00' });
    const bought = await purchase('xml', stored.t.payment_method.token as string, { gateway_specific_fields: { nuvei: { country: 'GB' } } });
    expect(bought.status).toBe(200);
    const sent = sentWith(bought.t.token);
    expect(jsonOf(sent)).toMatchObject({ userTokenId: token.split('|')[0], paymentOption: { userPaymentOptionId: upo } });
    expect(sent.rawBody).not.toContain(PAN);
  });

  it('no answer to the payment is 408; a hang, 500 or garbage on the session is 422 processing_error; a wrong secret key is a config_error with no payment sent', async () => {
    fake.hangPayments = true;
    const hung = await purchase('json', card);
    fake.hangPayments = false;
    expect(hung.status).toBe(408);
    expect(hung.t).toMatchObject({ state: 'gateway_processing_result_unknown', response: { result_unknown: true } });
    for (const mode of ['hang', 'error500', 'garbage'] as const) {
      fake.server.setMode(mode);
      const failed = await purchase('xml', card);
      expect(failed.status).toBe(422);
      expect(failed.t).toMatchObject({ state: 'gateway_processing_failed', response: { error_code: 'processing_error', result_unknown: false } });
    }
    fake.server.setMode('normal');
    const wrong = await e2e.createGateway({ merchant_id: MERCHANT_ID, merchant_site_id: SITE_ID, secret_key: 'not-the-secret', sandbox: true });
    const before = fake.server.requests.length;
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'Invalid checksum' });
    expect(fake.server.requests.slice(before).map((request) => request.path)).toEqual(['/ppp/api/v1/getSessionToken.do']);
  });

  it('keeps no card data, CVV, session token or secret key in the transcript', async () => {
    const fresh = await e2e.vault(PAN);
    const bought = await purchase('json', fresh);
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`POST ${fake.url}/ppp/api/v1/getSessionToken.do\n`);
    expect(res.text).toContain(`POST ${fake.url}/ppp/api/v1/payment.do\n`);
    expect(res.text).toContain('"sessionToken":"[FILTERED]"');
    expect(res.text).toContain('"transactionStatus":"APPROVED"');
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(SECRET_KEY);
    expect(res.text).not.toMatch(/"CVV"\s*:\s*"737"/);
    expect(findCardData(res.text)).toEqual([]);
  });
});
