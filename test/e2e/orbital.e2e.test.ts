import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, expectFaultOutcomes, FORMATS, startGatewayE2e, transact, type GatewayE2e } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakeOrbital } from '../fakes/fake-orbital.js';

/**
 * Coffer with a Chase Orbital gateway end to end: a production environment, cards vaulted in it,
 * every operation through the v1 API in JSON and XML against a fake Orbital XML interface on
 * 127.0.0.1 (COFFER_GATEWAY_ENDPOINTS), asserting what the API answers and what Orbital received,
 * including the retry-logic Trace-number recomputed here from the transaction token.
 */

const MERCHANT_ID = '041756';
const IP_MERCHANT_ID = '700000000000';
const LOGIN = 'CofferOrbitalUser';
const PASSWORD = 'E2E-orbital-connection-password';
const PAN = '4112344112344113';

function expectedTrace(token: string, suffix = ''): string {
  const hex = createHash('sha256').update(`${token}${suffix}`).digest('hex').slice(0, 32);
  return String((BigInt(`0x${hex}`) % 9_999_999_999_999_999n) + 1n);
}

describe.each(storeKinds)('Orbital gateway end to end (%s)', (store) => {
  let fake: FakeOrbital;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The one document Orbital received for this OrderID. */
  function sentFor(orderId: string): { kind: string; fields: Record<string, string>; headers: Record<string, string> } {
    const sent = fake.forOrder(orderId);
    expect(sent).toHaveLength(1);
    return sent[0] as { kind: string; fields: Record<string, string>; headers: Record<string, string> };
  }

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'USD', ...extra });

  beforeAll(async () => {
    fake = await FakeOrbital.start({ merchantId: MERCHANT_ID, login: LOGIN, password: PASSWORD, ipAuthenticated: [] });
    e2e = await startGatewayE2e('orbital', fake.url, store);
    gateway = await e2e.createGateway({ login: LOGIN, merchant_id: MERCHANT_ID, password: PASSWORD, sandbox: true });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => fake.server.setMode('normal'));

  it('creates a gateway in either mode, echoing login and merchant_id but never the password; a missing or unknown credential is a 422 naming it', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'orbital', login: LOGIN, merchant_id: MERCHANT_ID, password: PASSWORD } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'orbital', name: 'Orbital (Chase Paymentech)' });
    expect(created.text).toContain(LOGIN);
    expect(created.text).not.toContain(PASSWORD);

    const ipOnly = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>orbital</gateway_type><mode>merchant_id_only</mode><merchant_id>${IP_MERCHANT_ID}</merchant_id></gateway>`);
    expect(ipOnly.status).toBe(201);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'orbital', login: LOGIN, password: PASSWORD } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'merchant_id', message: "Merchant id can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>orbital</gateway_type><merchant_id>${MERCHANT_ID}</merchant_id><pin>x</pin></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('pin');
  });

  it.each(FORMATS)('purchases in %s: NewOrder AC with the card, succeeded with TxRefNum;OrderID, AVS, CVV and the Trace-number of the transaction token', async (format) => {
    const fresh = await e2e.vault(PAN); // the CVV is kept for one use only
    const { status, t } = await purchase(format, fresh, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({
      state: 'succeeded',
      transaction_type: 'Purchase',
      gateway_type: 'orbital',
      order_id: `order-${format}`,
      response: { success: true, message: 'Transaction approved', avs_code: 'Y', cvv_code: 'M', error_code: null },
    });
    const sent = sentFor(`order-${format}`);
    expect(sent.kind).toBe('NewOrder');
    expect(sent.fields).toMatchObject({ MessageType: 'AC', Amount: '1000', CurrencyCode: '840', CurrencyExponent: '2', AccountNum: PAN, Exp: '0330', CardSecVal: '737', AVSzip: 'SW1Y 4JH', OrbitalConnectionUsername: LOGIN });
    expect(sent.headers['trace-number']).toBe(expectedTrace(t.token));
    const [txRefNum, orderId] = (t.gateway_transaction_id as string).split(';');
    expect(orderId).toBe(`order-${format}`);
    expect(fake.txns.get(txRefNum as string)).toMatchObject({ messageType: 'AC', amount: 1000, captured: 1000 });
  });

  it.each([
    ['DECLINE', 'card_declined'],
    ['NSF', 'insufficient_funds'],
    ['CVV', 'incorrect_cvc'],
  ])('turns Orbital’s decline for holder %s into 422 gateway_processing_failed (%s), JSON and XML', async (lastName, errorCode) => {
    const declining = await e2e.vault(PAN, { last_name: lastName });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: errorCode } });
    }
  });

  it('authorizes, captures part with MarkForCapture, refunds part twice with NewOrder R, in JSON and XML', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'USD', order_id: 'auth-1' });
    expect(auth.status).toBe(200);
    expect(sentFor('auth-1').fields.MessageType).toBe('A');
    const [txRefNum] = (auth.t.gateway_transaction_id as string).split(';');

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Capture approved' } });
    expect(fake.received.at(-1)).toMatchObject({ kind: 'MarkForCapture', fields: { TxRefNum: txRefNum, OrderID: 'auth-1', Amount: '2000' } });

    for (const [format, amount] of [['json', 500], ['xml', 700]] as const) {
      const credit = await transact(e2e.live, format, `transactions/${capture.t.token}/credit`, { amount });
      expect(credit.status).toBe(200);
      expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount, response: { message: 'Refund approved' } });
      expect(fake.received.at(-1)).toMatchObject({ kind: 'NewOrder', fields: { MessageType: 'R', TxRefNum: txRefNum, OrderID: 'auth-1', Amount: String(amount) } });
    }
    expect(fake.txns.get(txRefNum as string)).toMatchObject({ captured: 2000, refunded: 1200 });

    // More than what is left is refused by Coffer before Orbital is asked.
    const received = fake.received.length;
    const tooMuch = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 900 });
    expect(tooMuch.status).toBe(422);
    expect(fake.received.length).toBe(received);
    const second = await transact(e2e.live, 'json', `transactions/${auth.t.token}/capture`, { amount: 100 });
    expect(second.status).toBe(422);
  });

  it('voids an authorization and a purchase with a Reversal', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'USD' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Transaction voided' } });
    const [authRef] = (auth.t.gateway_transaction_id as string).split(';');
    expect(fake.received.at(-1)).toMatchObject({ kind: 'Reversal', fields: { TxRefNum: authRef } });
    expect(fake.txns.get(authRef as string)?.voided).toBe(true);
    const sale = await purchase('json', card);
    const voidedSale = await transact(e2e.live, 'json', `transactions/${sale.t.token}/void`, null);
    expect(voidedSale.status).toBe(200);
    expect(fake.txns.get((sale.t.gateway_transaction_id as string).split(';')[0] as string)?.voided).toBe(true);
  });

  it('verifies with a zero-amount authorization, stores with TokenTxnType GT, then purchases with the Safetech token and no card number', async () => {
    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card });
    expect(verified.status).toBe(200);
    expect(verified.t.response).toMatchObject({ success: true, message: 'Card verified' });
    expect(fake.received.at(-1)?.fields).toMatchObject({ MessageType: 'A', Amount: '0' });

    const stored = await transact(e2e.live, 'xml', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    const token = stored.t.third_party_token as string;
    expect(token).toMatch(/^VI\d{16}$/);
    expect(fake.tokens.has(token.slice(2))).toBe(true);
    const bought = await purchase('json', stored.t.payment_method.token as string, { order_id: 'by-token' });
    expect(bought.status).toBe(200);
    const sent = sentFor('by-token').fields;
    expect(sent).toMatchObject({ CardBrand: 'VI', AccountNum: token.slice(2) });
    expect(sent).not.toHaveProperty('Exp');
  });

  it('answers a repeated Trace-number from Orbital’s retry logic without charging twice (idempotency_key); a merchant_id_only gateway whose source IP Orbital does not know is refused', async () => {
    const fields = { gateway_specific_fields: { orbital: { idempotency_key: '4242424242' } } };
    const first = await purchase('json', card, { ...fields, order_id: 'retry-1' });
    const before = fake.txns.size;
    const again = await purchase('xml', card, { ...fields, order_id: 'retry-1' });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(fake.replayed).toBe(1);
    expect(fake.txns.size).toBe(before);
    expect(again.t.gateway_transaction_id).toBe(first.t.gateway_transaction_id);

    const ipGateway = await e2e.createGateway({ mode: 'merchant_id_only', merchant_id: MERCHANT_ID, sandbox: true });
    const refused = await purchase('json', card, {}, ipGateway);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'Precondition Failed: Security Information - agent/chain/merchant is missing' });
  });

  it('records 408 result unknown when Orbital hangs, 422 on a 500 or garbage, and a config_error for a wrong password', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ login: LOGIN, merchant_id: MERCHANT_ID, password: 'not-the-password', sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error' });
  });

  it('keeps no card data, login, password or merchant id in the transcript', async () => {
    const bought = await purchase('json', await e2e.vault(PAN));
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`[*>] POST ${fake.url}/authorize\n`);
    for (const element of ['OrbitalConnectionUsername', 'OrbitalConnectionPassword', 'AccountNum', 'CardSecVal', 'MerchantID']) expect(res.text).toContain(`<${element}>[FILTERED]</${element}>`);
    for (const secret of [PAN, PASSWORD, LOGIN]) expect(res.text).not.toContain(secret);
    expect(findCardData(res.text)).toEqual([]);
  });
});
