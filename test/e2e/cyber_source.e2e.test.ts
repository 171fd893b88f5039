import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, expectFaultOutcomes, FORMATS, startGatewayE2e, transact, type GatewayE2e } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakeCyberSourceSoap } from '../fakes/fake-cybersource-soap.js';

/**
 * Coffer with a CyberSource (SOAP Toolkit) gateway end to end: a production environment, cards
 * vaulted in it, every operation through the v1 API in JSON and XML against a fake Simple Order
 * API on 127.0.0.1 (COFFER_GATEWAY_ENDPOINTS) that checks the WS-Security UsernameToken, the
 * namespace and the element order, asserting what the API answers and what CyberSource received.
 */

const MERCHANT_ID = 'coffer_e2e';
const KEY = 'E2EkeyQ8W2mZ0tUe7Tq1xJk9VhR3yL5bN6cD4fG8hJ2kL0mN4pQ6rS8tU0vW2xY4zA6bC8dE0fG2hJ4kL6mN8pQ==';
const PAN = '4000000000000002';

describe.each(storeKinds)('CyberSource SOAP gateway end to end (%s)', (store) => {
  let fake: FakeCyberSourceSoap;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The one requestMessage CyberSource received for this merchantReferenceCode. */
  function sentFor(orderId: string): Record<string, any> {
    const sent = fake.received.filter((message) => message.merchantReferenceCode === orderId);
    expect(sent).toHaveLength(1);
    return sent[0] as Record<string, any>;
  }

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'USD', ...extra });

  beforeAll(async () => {
    fake = await FakeCyberSourceSoap.start({ merchantId: MERCHANT_ID, transactionKey: KEY });
    e2e = await startGatewayE2e('cyber_source', fake.url, store);
    gateway = await e2e.createGateway({ user_name: MERCHANT_ID, transaction_key: KEY, sandbox: true });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => fake.server.setMode('normal'));

  it('creates a gateway echoing user_name but never the transaction key; a missing or unknown credential is a 422 naming it, in JSON and XML', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'cyber_source', user_name: MERCHANT_ID, transaction_key: KEY } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'cyber_source', name: 'CyberSource' });
    expect(created.text).toContain(MERCHANT_ID);
    expect(created.text).not.toContain(KEY);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'cyber_source', user_name: MERCHANT_ID } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'transaction_key', message: "Transaction key can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>cyber_source</gateway_type><user_name>${MERCHANT_ID}</user_name><transaction_key>x</transaction_key><password>y</password></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('password');
  });

  it.each(FORMATS)('purchases in %s: ccAuthService and ccCaptureService with the card, succeeded with requestID;requestToken, AVS and CVN', async (format) => {
    const fresh = await e2e.vault(PAN); // the CVV is kept for one use only
    const { status, t } = await purchase(format, fresh, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({
      state: 'succeeded',
      transaction_type: 'Purchase',
      gateway_type: 'cyber_source',
      order_id: `order-${format}`,
      response: { success: true, message: 'Transaction approved', avs_code: 'Y', cvv_code: 'M', error_code: null },
    });
    const sent = sentFor(`order-${format}`);
    expect(sent).toMatchObject({ purchaseTotals: { currency: 'USD', grandTotalAmount: '10.00' }, card: { accountNumber: PAN, expirationMonth: '03', expirationYear: '2030', cvNumber: '737' }, billTo: { postalCode: 'SW1Y 4JH' } });
    expect(sent).toHaveProperty('ccCaptureService');
    const [requestId] = String(t.gateway_transaction_id).split(';');
    expect(fake.requests.get(requestId as string)).toMatchObject({ kind: 'sale', amount: '10.00' });
  });

  it.each([
    ['DECLINE', 'card_declined', 'General decline of the card'],
    ['NSF', 'insufficient_funds', 'Insufficient funds in the account'],
    ['CVV', 'incorrect_cvc', 'Declined by CyberSource: the card verification check failed'],
    ['EXPIRED', 'expired_card', 'Expired card'],
  ])('turns CyberSource’s decline for holder %s into 422 gateway_processing_failed (%s), JSON and XML', async (lastName, errorCode, message) => {
    const declining = await e2e.vault(PAN, { last_name: lastName });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: errorCode, message } });
    }
  });

  it('authorizes, captures part with ccCaptureService, refunds part with ccCreditService, in JSON and XML', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'USD', order_id: 'auth-1' });
    expect(auth.status).toBe(200);
    expect(sentFor('auth-1')).not.toHaveProperty('ccCaptureService');
    const [authId] = String(auth.t.gateway_transaction_id).split(';');

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Transaction captured' } });
    expect(fake.received.at(-1)).toMatchObject({ purchaseTotals: { grandTotalAmount: '20.00' }, ccCaptureService: { authRequestID: authId } });

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500, response: { message: 'Transaction refunded' } });
    const [captureId] = String(capture.t.gateway_transaction_id).split(';');
    expect(fake.received.at(-1)).toMatchObject({ purchaseTotals: { grandTotalAmount: '5.00' }, ccCreditService: { captureRequestID: captureId } });
    expect(fake.requests.get(authId as string)).toMatchObject({ captured: 20 });
    expect(fake.requests.get(captureId as string)).toMatchObject({ credited: 5 });

    const second = await transact(e2e.live, 'json', `transactions/${auth.t.token}/capture`, { amount: 100 });
    expect(second.status).toBe(422);
  });

  it('reverses an authorization for its full amount and voids a purchase with voidService', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'EUR' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Transaction voided' } });
    const [authId] = String(auth.t.gateway_transaction_id).split(';');
    expect(fake.received.at(-1)).toMatchObject({ purchaseTotals: { currency: 'EUR', grandTotalAmount: '7.00' }, ccAuthReversalService: { authRequestID: authId } });
    expect(fake.requests.get(authId as string)?.voided).toBe(true);

    const sale = await purchase('json', card);
    const voidedSale = await transact(e2e.live, 'json', `transactions/${sale.t.token}/void`, null);
    expect(voidedSale.status).toBe(200);
    const [saleId] = String(sale.t.gateway_transaction_id).split(';');
    expect(fake.received.at(-1)).toMatchObject({ voidService: { voidRequestID: saleId } });
    expect(fake.requests.get(saleId as string)?.voided).toBe(true);
  });

  it('verifies with a zero authorization, stores a profile, then purchases with its subscriptionID and no card number', async () => {
    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card });
    expect(verified.status).toBe(200);
    expect(verified.t.response).toMatchObject({ success: true, message: 'Card verified' });
    expect(fake.received.at(-1)).toMatchObject({ purchaseTotals: { grandTotalAmount: '0.00' } });

    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    const token = stored.t.third_party_token as string;
    expect(fake.profiles.has(token)).toBe(true);
    const bought = await purchase('xml', stored.t.payment_method.token as string, { order_id: 'by-profile' });
    expect(bought.status).toBe(200);
    const sent = sentFor('by-profile');
    expect(sent.recurringSubscriptionInfo).toEqual({ subscriptionID: token });
    expect(sent).not.toHaveProperty('card');
  });

  it('credits a card without a reference (general credit)', async () => {
    const credited = await transact(e2e.live, 'json', `gateways/${gateway}/general_credit`, { payment_method_token: card, amount: 300, currency_code: 'USD', order_id: 'payout-1' });
    expect(credited.status).toBe(200);
    expect(credited.t).toMatchObject({ state: 'succeeded', transaction_type: 'GeneralCredit', response: { message: 'Transaction credited' } });
    expect(sentFor('payout-1')).toMatchObject({ ccCreditService: { '@_run': 'true' }, purchaseTotals: { grandTotalAmount: '3.00' } });
  });

  it('records 408 result unknown when CyberSource hangs, 422 on a 500 or garbage, and a config_error for a wrong transaction key', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ user_name: MERCHANT_ID, transaction_key: 'not-the-key', sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'Security Data : UsernameToken authentication failed.' });
  });

  it('keeps no card data or transaction key in the transcript', async () => {
    const bought = await purchase('json', await e2e.vault(PAN));
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`[*>] POST ${fake.url}/commerce/1.x/transactionProcessor\n`);
    expect(res.text).toMatch(/<wsse:Password Type="[^"]+">\[FILTERED\]<\/wsse:Password>/);
    expect(res.text).toContain('<accountNumber>[FILTERED]</accountNumber>');
    expect(res.text).toContain('<cvNumber>[FILTERED]</cvNumber>');
    expect(res.text).toContain('<c:decision>ACCEPT</c:decision>');
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(KEY);
    expect(findCardData(res.text)).toEqual([]);
  });
});
