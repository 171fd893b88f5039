import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { jsonOf, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { signatureProblem, startFakeCyberSource, type FakeCyberSource } from '../fakes/fake-cybersource.js';
import { errorKeys, FORMATS, startGatewayE2e, transact, type Format, type GatewayE2e } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';

/**
 * Coffer with a CyberSource REST gateway end to end: gateways created through the v1 API, cards
 * vaulted in a production environment, every operation in JSON and XML against the fake
 * CyberSource on 127.0.0.1 (COFFER_GATEWAY_ENDPOINTS), which checks each request's HTTP Signature.
 */

const MERCHANT_ID = 'coffer_e2e_merchant';
const KEY_ID = '6d75ffad-ed36-4a6d-85af-5609185494f4';
const SHARED_SECRET = 'c2hhcmVkLXNlY3JldC1vZi10aGUtZTJlLW1lcmNoYW50IQ==';
const PAN = '4242424242424242';

describe.each(storeKinds)('CyberSource REST gateway end to end (%s)', (store) => {
  let cs: FakeCyberSource;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The one request the fake received with Coffer's transaction token as clientReferenceInformation.transactionId. */
  function sentFor(token: string): FakeRequest & { json: Record<string, any> } {
    const sent = cs.fake.requests.filter((request) => request.rawBody.includes(`"transactionId":"${token}"`));
    expect(sent).toHaveLength(1);
    const request = sent[0] as FakeRequest;
    expect(signatureProblem(request, MERCHANT_ID, { [KEY_ID]: SHARED_SECRET })).toBeNull();
    return { ...request, json: jsonOf(request) };
  }

  const purchase = (format: Format, paymentMethod: string, on = gateway) => transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'USD' });

  beforeAll(async () => {
    cs = await startFakeCyberSource(MERCHANT_ID, { [KEY_ID]: SHARED_SECRET });
    e2e = await startGatewayE2e('cyber_source_rest', cs.url, store);
    gateway = await e2e.createGateway({ merchant_id: MERCHANT_ID, public_key: KEY_ID, private_key: SHARED_SECRET, sandbox: true });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await cs?.close();
  });

  beforeEach(() => cs.fake.setMode('normal'));

  it('is listed in gateways_options with its three credentials and what it implements', async () => {
    const res = await e2e.live.get('/v1/gateways_options.json', { auth: null });
    const entry = res.json().gateways.find((g: { gateway_type: string }) => g.gateway_type === 'cyber_source_rest');
    expect(entry).toMatchObject({ name: 'Cybersource REST', payment_methods: ['credit_card', 'third_party_token'], gateway_specific_fields: [] });
    expect(entry.auth_modes[0].credentials).toEqual([
      { name: 'merchant_id', label: 'Merchant ID', safe: true },
      { name: 'public_key', label: 'Key ID (shared secret key serial)', safe: false },
      { name: 'private_key', label: 'Shared Secret Key', safe: false },
    ]);
    const advertised = Object.entries(entry.characteristics as Record<string, boolean>).filter(([, on]) => on).map(([name]) => name);
    expect(advertised.sort()).toEqual(
      ['purchase', 'authorize', 'capture', 'credit', 'general_credit', 'void', 'verify', 'store', 'purchase_via_preauthorization'].map((name) => `supports_${name}`).sort(),
    );
  });

  it('creates the gateway echoing only the merchant id; missing or unknown credentials are 422 naming the field', async () => {
    const shown = await e2e.live.get(`/v1/gateways/${gateway}.json`);
    expect(shown.json().gateway).toMatchObject({ gateway_type: 'cyber_source_rest', name: 'Cybersource REST', merchant_id: MERCHANT_ID });
    expect(shown.text).not.toContain(KEY_ID);
    expect(shown.text).not.toContain(SHARED_SECRET);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'cyber_source_rest', merchant_id: MERCHANT_ID, public_key: KEY_ID } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([expect.objectContaining({ key: 'errors.blank', attribute: 'private_key' })]);
    const unknown = await e2e.live.sendXml(
      'POST',
      '/v1/gateways.xml',
      `<gateway><gateway_type>cyber_source_rest</gateway_type><merchant_id>m</merchant_id><public_key>k</public_key><private_key>${SHARED_SECRET}</private_key><secret_key>x</secret_key></gateway>`,
    );
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('secret_key');
  });

  it.each(FORMATS)('purchases in %s: a signed sale at /pts/v2/payments, AVS and CVV mapped', async (format) => {
    const fresh = await e2e.vault(PAN);
    const { status, t } = await purchase(format, fresh);
    expect(status).toBe(200);
    expect(t).toMatchObject({
      succeeded: true,
      state: 'succeeded',
      transaction_type: 'Purchase',
      amount: 1000,
      currency_code: 'USD',
      gateway_type: 'cyber_source_rest',
      response: { success: true, message: 'Transaction approved', avs_code: 'Y', cvv_code: 'M', error_code: null },
    });
    expect(t.gateway_transaction_id).toMatch(/^\d{22}$/);
    const sent = sentFor(t.token);
    expect(sent.path).toBe('/pts/v2/payments');
    expect(sent.headers['v-c-merchant-id']).toBe(MERCHANT_ID);
    expect(sent.json).toMatchObject({
      processingInformation: { capture: true },
      paymentInformation: { card: { number: PAN, securityCode: '737', expirationMonth: '03', expirationYear: '2030', type: '001' } },
      orderInformation: { amountDetails: { totalAmount: '10.00', currency: 'USD' }, billTo: { firstName: 'Ada', lastName: 'Lovelace', address1: '12 St James Sq', locality: 'London', country: 'GB', email: 'ada@example.com' } },
    });
    expect(cs.payments.get(t.gateway_transaction_id)?.captured).toBe(true);
  });

  it.each([
    ['4000000000000002', 'card_declined'],
    ['4000000000009995', 'insufficient_funds'],
  ])('a DECLINED answer for %s is 422 gateway_processing_failed with %s, in JSON and XML', async (number, errorCode) => {
    const declining = await e2e.vault(number);
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ succeeded: false, state: 'gateway_processing_failed', response: { success: false, error_code: errorCode } });
      expect(t.message).toMatch(/^Decline - /);
      expect(t.gateway_transaction_id).toMatch(/^\d{22}$/);
    }
  });

  it.each(FORMATS)('authorizes, captures part, refunds the capture in two steps (%s)', async (format) => {
    const auth = await transact(e2e.live, format, `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 1000, currency_code: 'USD' });
    expect(auth.status).toBe(200);
    expect(auth.t).toMatchObject({ state: 'succeeded', transaction_type: 'Authorization', response: { message: 'Transaction authorized' } });
    const id = auth.t.gateway_transaction_id as string;
    expect(sentFor(auth.t.token).json.processingInformation).toEqual({ capture: false });

    const capture = await transact(e2e.live, format, `transactions/${auth.t.token}/capture`, { amount: 600 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 600, response: { message: 'Transaction captured' } });
    const captureSent = sentFor(capture.t.token);
    expect(captureSent.path).toBe(`/pts/v2/payments/${id}/captures`);
    expect(captureSent.json.orderInformation).toEqual({ amountDetails: { totalAmount: '6.00', currency: 'USD' } });
    const captureId = capture.t.gateway_transaction_id as string;
    expect(captureId).not.toBe(id);

    const refund = await transact(e2e.live, format, `transactions/${capture.t.token}/credit`, { amount: 250 });
    expect(refund.status).toBe(200);
    expect(refund.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 250, response: { message: 'Transaction refunded' } });
    const refundSent = sentFor(refund.t.token);
    expect(refundSent.path).toBe(`/pts/v2/captures/${captureId}/refunds`);
    expect(refundSent.json.orderInformation).toEqual({ amountDetails: { totalAmount: '2.50', currency: 'USD' } });

    const rest = await transact(e2e.live, format, `transactions/${capture.t.token}/credit`, null);
    expect(rest.status).toBe(200);
    expect(rest.t.amount).toBe(350);
    expect(sentFor(rest.t.token).json.orderInformation.amountDetails.totalAmount).toBe('3.50');
  });

  it.each(FORMATS)('refunds a purchase at /pts/v2/payments/{id}/refunds (%s)', async (format) => {
    const bought = await purchase(format, card);
    const refund = await transact(e2e.live, format, `transactions/${bought.t.token}/credit`, { amount: 400 });
    expect(refund.status).toBe(200);
    expect(sentFor(refund.t.token).path).toBe(`/pts/v2/payments/${bought.t.gateway_transaction_id}/refunds`);
  });

  it.each(FORMATS)('voids an authorization by reversing it; a voided one cannot be captured (%s)', async (format) => {
    const auth = await transact(e2e.live, format, `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'USD' });
    const id = auth.t.gateway_transaction_id as string;
    const voided = await transact(e2e.live, format, `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', reference_token: auth.t.token, response: { success: true, cancelled: true, message: 'Transaction voided' } });
    const sent = sentFor(voided.t.token);
    expect(sent.path).toBe(`/pts/v2/payments/${id}/reversals`);
    expect(sent.json.reversalInformation).toEqual({ amountDetails: { totalAmount: '7.00', currency: 'USD' } });
    expect(cs.payments.get(id)?.reversed).toBe(true);

    const before = cs.fake.requests.length;
    const capture = await transact(e2e.live, format, `transactions/${auth.t.token}/capture`, null);
    expect(capture.status).toBe(422);
    expect(cs.fake.requests.length).toBe(before);
  });

  it('voids a purchase at /pts/v2/payments/{id}/voids', async () => {
    const bought = await purchase('json', card);
    const voided = await transact(e2e.live, 'xml', `transactions/${bought.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(sentFor(voided.t.token).path).toBe(`/pts/v2/payments/${bought.t.gateway_transaction_id}/voids`);
  });

  it.each(FORMATS)('sends a general credit to /pts/v2/credits and voids it (%s)', async (format) => {
    const credited = await transact(e2e.live, format, `gateways/${gateway}/general_credit`, { payment_method_token: card, amount: 1500, currency_code: 'USD' });
    expect(credited.status).toBe(200);
    expect(credited.t).toMatchObject({ state: 'succeeded', transaction_type: 'GeneralCredit', amount: 1500, response: { message: 'Transaction credited' } });
    const sent = sentFor(credited.t.token);
    expect(sent.path).toBe('/pts/v2/credits');
    expect(sent.json.paymentInformation.card.number).toBe(PAN);
    expect(sent.json.orderInformation.amountDetails).toEqual({ totalAmount: '15.00', currency: 'USD' });
    const voided = await transact(e2e.live, format, `transactions/${credited.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(sentFor(voided.t.token).path).toBe(`/pts/v2/credits/${credited.t.gateway_transaction_id}/voids`);
  });

  it('verifies with a zero authorization, stores in TMS and purchases with the stored card', async () => {
    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card });
    expect(verified.status).toBe(200);
    expect(verified.t).toMatchObject({ transaction_type: 'Verification', response: { message: 'Card verified' } });
    expect(sentFor(verified.t.token).json.orderInformation.amountDetails.totalAmount).toBe('0.00');

    const stored = await transact(e2e.live, 'xml', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    expect(stored.t).toMatchObject({ state: 'succeeded', transaction_type: 'Store', response: { message: 'Card stored' } });
    const token = stored.t.third_party_token as string;
    const [customer, instrument] = token.split('|');
    expect(sentFor(stored.t.token).json.processingInformation.actionList).toEqual(['TOKEN_CREATE']);

    const bought = await purchase('json', stored.t.payment_method.token as string);
    expect(bought.status).toBe(200);
    const sent = sentFor(bought.t.token);
    expect(sent.json.paymentInformation).toEqual({ customer: { id: customer }, paymentInstrument: { id: instrument } });
    expect(sent.rawBody).not.toContain(PAN);
  });

  it.each(FORMATS)('a wrong shared secret is refused by CyberSource (401): 422 with config_error (%s)', async (format) => {
    const wrong = await e2e.createGateway({ merchant_id: MERCHANT_ID, public_key: KEY_ID, private_key: Buffer.from('another secret entirely').toString('base64') });
    const refused = cs.refused.length;
    const { status, t } = await purchase(format, card, wrong);
    expect(status).toBe(422);
    expect(t).toMatchObject({ state: 'gateway_processing_failed', response: { success: false, error_code: 'config_error', message: 'Authentication Failed' } });
    expect(cs.refused.length).toBe(refused + 1);
  });

  it('records 408 gateway_processing_result_unknown when CyberSource hangs, and 422 on a 502', async () => {
    const faulty = await e2e.createGateway({ merchant_id: MERCHANT_ID, public_key: KEY_ID, private_key: SHARED_SECRET });
    cs.fake.setMode('hang');
    const hung = await purchase('json', card, faulty);
    expect(hung.status).toBe(408);
    expect(hung.t).toMatchObject({ state: 'gateway_processing_result_unknown', response: { result_unknown: true } });
    cs.fake.setMode('error500');
    const broken = await purchase('xml', card, faulty);
    expect(broken.status).toBe(422);
    expect(broken.t).toMatchObject({ state: 'gateway_processing_failed', response: { result_unknown: false } });
  });

  it('keeps the transcript free of the card, CVV, key id, secret and signature', async () => {
    const bought = await purchase('json', await e2e.vault(PAN));
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    const text = res.text;
    expect(text).toContain(`[*>] POST ${cs.url}/pts/v2/payments\n`);
    expect(text).toContain('"number":"[FILTERED]"');
    expect(text).toContain('"securityCode":"[FILTERED]"');
    expect(text).toContain('signature: [FILTERED]');
    expect(findCardData(text)).toEqual([]);
    for (const secret of [PAN, KEY_ID, SHARED_SECRET, '"737"']) expect(text).not.toContain(secret);
  });
});
