import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, expectFaultOutcomes, FORMATS, startGatewayE2e, transact, type GatewayE2e } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakeLitle } from '../fakes/fake-litle.js';

/**
 * Coffer with a Worldpay eCommerce (Vantiv/Litle) gateway end to end: a production environment,
 * cards vaulted in it, every operation through the v1 API in JSON and XML against a fake cnpAPI
 * endpoint on 127.0.0.1 (COFFER_GATEWAY_ENDPOINTS). The fake's litleTxnIds all pass the Luhn check,
 * so every reference operation here also proves Coffer's ids survive its card-number scrubbing.
 */

const MERCHANT_ID = '1288791';
const USER = 'CofferCnpUser';
const PASSWORD = 'E2E-cnp-password-7f1';
const PAN = '4457010000000009';

describe.each(storeKinds)('Worldpay eCommerce (litle) gateway end to end (%s)', (store) => {
  let fake: FakeLitle;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  const litleTxnId = (gatewayTransactionId: string) => gatewayTransactionId.slice(1);
  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'USD', ...extra });

  beforeAll(async () => {
    fake = await FakeLitle.start({ merchantId: MERCHANT_ID, user: USER, password: PASSWORD });
    e2e = await startGatewayE2e('litle', fake.url, store);
    gateway = await e2e.createGateway({ user: USER, password: PASSWORD, merchant_id: MERCHANT_ID, sandbox: true });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => fake.server.setMode('normal'));

  it('creates a gateway echoing user and merchant_id but never the password; a missing or unknown credential is a 422 naming it', async () => {
    const created = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>litle</gateway_type><user>${USER}</user><password>${PASSWORD}</password><merchant_id>${MERCHANT_ID}</merchant_id></gateway>`);
    expect(created.status).toBe(201);
    expect(created.text).toContain(USER);
    expect(created.text).toContain('Vantiv eCommerce (formerly Litle)');
    expect(created.text).not.toContain(PASSWORD);
    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'litle', user: USER, merchant_id: MERCHANT_ID } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'password', message: "Password can't be blank" }]);
    const unknown = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'litle', user: USER, password: PASSWORD, merchant_id: MERCHANT_ID, login: 'x' } });
    expect(unknown.status).toBe(422);
    expect(errorKeys('json', unknown)).toEqual(['errors.invalid']);
  });

  it.each(FORMATS)('purchases in %s: a sale with the card, its id the transaction token, succeeded with the litleTxnId, AVS and CVV', async (format) => {
    const fresh = await e2e.vault(PAN);
    const { status, t } = await purchase(format, fresh, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({ state: 'succeeded', transaction_type: 'Purchase', gateway_type: 'litle', response: { success: true, message: 'Transaction approved', avs_code: 'Y', cvv_code: 'M', error_code: null } });
    expect(t.gateway_transaction_id).toMatch(/^S\d{18}$/);
    const sent = fake.received.at(-1);
    expect(sent).toMatchObject({ kind: 'sale', id: (t.token as string).slice(0, 25), fields: { orderId: `order-${format}`, amount: '1000', orderSource: 'ecommerce', card: { type: 'VI', number: PAN, expDate: '0330', cardValidationNum: '737' } } });
    expect(fake.txns.get(litleTxnId(t.gateway_transaction_id))).toMatchObject({ kind: 'sale', amount: 1000 });
  });

  it.each([
    ['DECLINE', 'card_declined', 'Do Not Honor'],
    ['NSF', 'insufficient_funds', 'Insufficient Funds'],
    ['CVV', 'incorrect_cvc', 'Decline CVV2/CID Fail'],
  ])('turns the decline for holder %s into 422 gateway_processing_failed (%s), JSON and XML', async (lastName, errorCode, message) => {
    const declining = await e2e.vault(PAN, { last_name: lastName });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', response: { success: false, error_code: errorCode, message } });
    }
  });

  it('authorizes, captures part, refunds part twice, by Luhn-valid litleTxnIds, in JSON and XML', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'USD' });
    expect(auth.status).toBe(200);
    expect(auth.t.gateway_transaction_id).toMatch(/^A\d{18}$/);
    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Capture approved' } });
    expect(fake.received.at(-1)).toMatchObject({ kind: 'capture', fields: { litleTxnId: litleTxnId(auth.t.gateway_transaction_id), amount: '2000' } });
    for (const [format, amount] of [['json', 500], ['xml', 700]] as const) {
      const credit = await transact(e2e.live, format, `transactions/${capture.t.token}/credit`, { amount });
      expect(credit.status).toBe(200);
      expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount, response: { message: 'Refund approved' } });
      expect(fake.received.at(-1)).toMatchObject({ kind: 'credit', fields: { litleTxnId: litleTxnId(capture.t.gateway_transaction_id), amount: String(amount) } });
    }
    expect(fake.txns.get(litleTxnId(capture.t.gateway_transaction_id))).toMatchObject({ captured: 2000, refunded: 1200 });
  });

  it('voids an authorization with authReversal and a sale with void', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'USD' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Transaction voided' } });
    expect(fake.received.at(-1)).toMatchObject({ kind: 'authReversal', fields: { litleTxnId: litleTxnId(auth.t.gateway_transaction_id) } });
    const sale = await purchase('json', card);
    const voidedSale = await transact(e2e.live, 'json', `transactions/${sale.t.token}/void`, null);
    expect(voidedSale.status).toBe(200);
    expect(fake.received.at(-1)?.kind).toBe('void');
    expect(fake.txns.get(litleTxnId(sale.t.gateway_transaction_id))?.voided).toBe(true);
  });

  it('verifies with a zero-amount authorization, stores with registerTokenRequest, then buys with the token and no card number', async () => {
    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card });
    expect(verified.status).toBe(200);
    expect(verified.t.response).toMatchObject({ success: true, message: 'Card verified' });
    expect(fake.received.at(-1)).toMatchObject({ kind: 'authorization', fields: { amount: '0' } });
    const stored = await transact(e2e.live, 'xml', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    const token = stored.t.third_party_token as string;
    expect(token).toMatch(/^T\d{16};0330$/);
    const bought = await purchase('json', stored.t.payment_method.token as string, { order_id: 'by-token' });
    expect(bought.status).toBe(200);
    const sent = fake.received.at(-1)?.fields as Record<string, unknown>;
    expect(sent.token).toEqual({ litleToken: token.slice(1).split(';')[0], expDate: '0330' });
    expect(sent).not.toHaveProperty('card');
  });

  it('records 408 result unknown when Vantiv hangs, 422 on a 500 or garbage, and a config_error for a wrong password', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ user: USER, password: 'not-the-password', merchant_id: MERCHANT_ID, sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error' });
  });

  it('keeps no card data, user or password in the transcript', async () => {
    const bought = await purchase('json', await e2e.vault(PAN));
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`[*>] POST ${fake.url}/sandbox/communicator/online\n`);
    for (const element of ['user', 'password', 'number', 'cardValidationNum']) expect(res.text).toContain(`<${element}>[FILTERED]</${element}>`);
    for (const secret of [PAN, PASSWORD, USER]) expect(res.text).not.toContain(secret);
    expect(findCardData(res.text)).toEqual([]);
  });
});
