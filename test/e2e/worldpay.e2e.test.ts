import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, FORMATS, startGatewayE2e, transact, type GatewayE2e, expectFaultOutcomes } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakeWorldpay } from '../fakes/fake-worldpay.js';
import type { FakeRequest } from '../fakes/fake-gateway-server.js';

/**
 * Coffer with a Worldpay gateway end to end: a production environment, cards vaulted in it, every
 * operation through the v1 API in JSON and XML against a fake Worldpay XML Direct API on 127.0.0.1
 * (COFFER_GATEWAY_ENDPOINTS), asserting what the API answers and what Worldpay received.
 */

const MERCHANT = 'COFFERECOM';
const PASSWORD = 'Xml-Passw0rd-e2e-secret';
const PAN = '4444333322221111'; // Worldpay's test Visa

describe.each(storeKinds)('Worldpay gateway end to end (%s)', (store) => {
  let fake: FakeWorldpay;
  let e2e: GatewayE2e;
  let gateway: string;

  /** The requests Worldpay received for this order code. */
  function sentFor(orderCode: string): FakeRequest[] {
    return fake.server.requests.filter((request) => request.rawBody.includes(`orderCode="${orderCode}"`));
  }

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'GBP', ...extra });

  beforeAll(async () => {
    fake = await FakeWorldpay.start({ merchantCode: MERCHANT, password: PASSWORD });
    e2e = await startGatewayE2e('worldpay', fake.url, store);
    gateway = await e2e.createGateway({ login: MERCHANT, password: PASSWORD, sandbox: true });
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => fake.server.setMode('normal'));

  it('creates a gateway with login and password; missing or unknown credentials are a 422 naming the field, in JSON and XML', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'worldpay', login: MERCHANT, password: PASSWORD } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'worldpay', name: 'WorldPay' });
    expect(created.text).not.toContain(PASSWORD);
    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'worldpay', password: PASSWORD } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'login', message: "Login can't be blank" }]);
    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>worldpay</gateway_type><login>${MERCHANT}</login><password>x</password><hmac_secret>y</hmac_secret></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('hmac_secret');
  });

  it.each(FORMATS)('purchases in %s: submit/order with CARD-SSL then a capture of the order', async (format) => {
    const card = await e2e.vault(PAN);
    const { status, t } = await purchase(format, card, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({
      state: 'succeeded',
      transaction_type: 'Purchase',
      gateway_type: 'worldpay',
      gateway_transaction_id: `order-${format}`,
      response: { success: true, message: 'Transaction approved', avs_code: 'M', cvv_code: 'M', error_code: null },
    });
    const [order, capture] = sentFor(`order-${format}`);
    expect(order?.rawBody).toContain('<CARD-SSL><cardNumber>4444333322221111</cardNumber><expiryDate><date month="03" year="2030"/></expiryDate><cardHolderName>Ada Lovelace</cardHolderName><cvc>737</cvc>');
    expect(order?.rawBody).toContain('<amount value="1000" currencyCode="GBP" exponent="2"/>');
    expect(capture?.rawBody).toContain('<capture>');
    expect(fake.orders.get(`order-${format}`)).toMatchObject({ lastEvent: 'CAPTURED', captured: 1000 });
  });

  it.each([
    ['REFUSED', 'card_declined', 'REFUSED'],
    ['REFERRED', 'call_issuer', 'REFERRED'],
    ['ERROR', 'processing_error', 'ERROR'],
  ])('turns the magic holder name %s into 422 gateway_processing_failed (%s), JSON and XML, without a capture', async (name, errorCode, message) => {
    const declining = await e2e.vault(PAN, { first_name: name, last_name: 'Lovelace' });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: errorCode, message } });
      expect(sentFor(t.gateway_transaction_id)).toHaveLength(1);
    }
  });

  it('authorizes, captures part, refunds part, in JSON and XML', async () => {
    const card = await e2e.vault(PAN);
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'EUR' });
    expect(auth.status).toBe(200);
    const code = auth.t.gateway_transaction_id as string;
    expect(code).toBe(auth.t.token);
    expect(fake.orders.get(code)?.lastEvent).toBe('AUTHORISED');

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, gateway_transaction_id: code, response: { message: 'Capture received' } });

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500, response: { message: 'Refund received' } });
    expect(sentFor(code).at(-1)?.rawBody).toContain('<refund><amount value="500" currencyCode="EUR" exponent="2" debitCreditIndicator="credit"/></refund>');
    expect(fake.orders.get(code)).toMatchObject({ captured: 2000, refunded: 500 });


    // One capture per authorization.
    expect((await transact(e2e.live, 'json', `transactions/${auth.t.token}/capture`, { amount: 100 })).status).toBe(422);
  });

  it('voids an authorization with cancel', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: await e2e.vault(PAN), amount: 700, currency_code: 'GBP' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Cancellation received' } });
    expect(fake.orders.get(auth.t.gateway_transaction_id)?.lastEvent).toBe('CANCELLED');
  });

  it('verifies with an authorization of 1.00 that is cancelled, and sends JPY with exponent 0', async () => {
    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: await e2e.vault(PAN), currency_code: 'GBP' });
    expect(verified.status).toBe(200);
    expect(fake.orders.get(verified.t.gateway_transaction_id)).toMatchObject({ amount: 100, lastEvent: 'CANCELLED' });
    const yen = await purchase('json', await e2e.vault(PAN), { amount: 1500, currency_code: 'JPY' });
    expect(yen.status).toBe(200);
    expect(sentFor(yen.t.gateway_transaction_id)[0]?.rawBody).toContain('<amount value="1500" currencyCode="JPY" exponent="0"/>');
  });

  it('stores the card as a shopper token and purchases with it, sending no card number', async () => {
    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: await e2e.vault(PAN) });
    expect(stored.status).toBe(200);
    const [shopper, tokenId] = (stored.t.third_party_token as string).split('|');
    expect(shopper).toBe(stored.t.token);
    expect(fake.tokens.get(tokenId as string)).toMatchObject({ shopper, card: { cardNumber: PAN } });
    const bought = await purchase('xml', stored.t.payment_method.token as string);
    expect(bought.status).toBe(200);
    const [order] = sentFor(bought.t.gateway_transaction_id);
    expect(order?.rawBody).toContain(`<TOKEN-SSL tokenScope="shopper"><paymentTokenID>${tokenId}</paymentTokenID></TOKEN-SSL>`);
    expect(order?.rawBody).toContain(`<authenticatedShopperID>${shopper}</authenticatedShopperID>`);
    expect(order?.rawBody).not.toContain(PAN);
  });

  it('records 408 result unknown when Worldpay hangs, 422 on a 500 or garbage, and a config_error for a wrong password', async () => {
    const card = await e2e.vault(PAN);
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ login: MERCHANT, password: 'not-the-password', sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'Invalid credentials' });
  });

  it('keeps no card data or password in the transcript', async () => {
    const bought = await purchase('json', await e2e.vault(PAN));
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`[*>] POST ${fake.url}/jsp/merchant/xml/paymentService.jsp\n`);
    expect(res.text).toContain('authorization: Basic [FILTERED]');
    expect(res.text).toContain('<lastEvent>AUTHORISED</lastEvent>');
    expect(res.text).toContain('captureReceived');
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(PASSWORD);
    expect(res.text).not.toContain('<cvc>737</cvc>');
    expect(findCardData(res.text)).toEqual([]);
  });
});
