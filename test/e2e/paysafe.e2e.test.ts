import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, expectFaultOutcomes, FORMATS, startGatewayE2e, transact, type GatewayE2e } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakePaysafe } from '../fakes/fake-paysafe.js';

/**
 * Coffer with a Paysafe gateway end to end: a production environment, cards vaulted in it, every
 * operation through the v1 API in JSON and XML against a fake Card Payments and Customer Vault API
 * on 127.0.0.1 (COFFER_GATEWAY_ENDPOINTS) that checks Basic credentials, the account id and
 * duplicate merchantRefNums, asserting what the API answers and what Paysafe received.
 */

const USERNAME = 'coffer-e2e';
const PASSWORD = 'B-qa2-0-E2E0a3b5-0-302d0215008a8b5c0c8e34f5e12cc0f7a7b3c8f2c';
const ACCOUNT = '1002158490';
const PAN = '4000000000000002';

describe.each(storeKinds)('Paysafe gateway end to end (%s)', (store) => {
  let fake: FakePaysafe;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  const last = () => fake.received.at(-1) as { method: string; path: string; body: Record<string, any> };
  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'USD', ...extra });

  beforeAll(async () => {
    fake = await FakePaysafe.start({ username: USERNAME, password: PASSWORD, accountId: ACCOUNT });
    e2e = await startGatewayE2e('paysafe', fake.url, store);
    gateway = await e2e.createGateway({ username: USERNAME, password: PASSWORD, account_id: ACCOUNT, sandbox: true });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => fake.server.setMode('normal'));

  it('creates a gateway echoing username and account_id but never the password; a missing or unknown credential is a 422 naming it, in JSON and XML', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'paysafe', username: USERNAME, password: PASSWORD, account_id: ACCOUNT } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'paysafe', name: 'Paysafe' });
    expect(created.text).toContain(USERNAME);
    expect(created.text).toContain(ACCOUNT);
    expect(created.text).not.toContain(PASSWORD);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'paysafe', username: USERNAME, password: PASSWORD } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'account_id', message: "Account id can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>paysafe</gateway_type><username>${USERNAME}</username><password>x</password><account_id>${ACCOUNT}</account_id><api_key>y</api_key></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('api_key');
  });

  it.each(FORMATS)('purchases in %s: an auth with settleWithAuth, amount in minor units, succeeded with Paysafe’s id, AVS and CVV', async (format) => {
    const fresh = await e2e.vault(PAN); // the CVV is kept for one use only
    const { status, t } = await purchase(format, fresh, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({
      state: 'succeeded',
      transaction_type: 'Purchase',
      gateway_type: 'paysafe',
      order_id: `order-${format}`,
      response: { success: true, message: 'Transaction approved', avs_code: 'Y', cvv_code: 'M', error_code: null },
    });
    expect(last()).toMatchObject({ method: 'POST', path: `/cardpayments/v1/accounts/${ACCOUNT}/auths` });
    expect(last().body).toMatchObject({ merchantRefNum: t.token, dupCheck: true, amount: 1000, settleWithAuth: true, description: `order-${format}`, card: { cardNum: PAN, cvv: '737', cardExpiry: { month: 3, year: 2030 } } });
    expect(fake.records.get(t.gateway_transaction_id)).toMatchObject({ kind: 'auth', amount: 1000 });
  });

  it.each([
    ['DECLINE', 'card_declined', 'Your request has been declined by the issuing bank.'],
    ['NSF', 'insufficient_funds', 'The card has been declined due to insufficient funds.'],
    ['CVV', 'incorrect_cvc', 'Your request has failed the CVV check.'],
    ['EXPIRED', 'expired_card', 'You submitted an expired credit card number with your request.'],
  ])('turns Paysafe’s decline for holder %s into 422 gateway_processing_failed (%s), JSON and XML', async (lastName, errorCode, message) => {
    const declining = await e2e.vault(PAN, { last_name: lastName });
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, declining);
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: errorCode, message } });
    }
  });

  it('sends a zero-decimal currency in whole units and a three-decimal one in thousandths', async () => {
    const yen = await purchase('json', card, { amount: 1500, currency_code: 'JPY' });
    expect(yen.status).toBe(200);
    expect(last().body.amount).toBe(1500);
    const dinar = await purchase('xml', card, { amount: 1234, currency_code: 'KWD' });
    expect(dinar.status).toBe(200);
    expect(last().body.amount).toBe(1234);
  });

  it('authorizes, settles part, refunds part of the settlement, in JSON and XML', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'USD' });
    expect(auth.status).toBe(200);
    expect(last().body.settleWithAuth).toBe(false);
    const authId = auth.t.gateway_transaction_id as string;

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Transaction captured' } });
    expect(last()).toMatchObject({ path: `/cardpayments/v1/accounts/${ACCOUNT}/auths/${authId}/settlements`, body: { amount: 2000, merchantRefNum: capture.t.token } });

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500, response: { message: 'Transaction refunded' } });
    expect(last()).toMatchObject({ path: `/cardpayments/v1/accounts/${ACCOUNT}/settlements/${capture.t.gateway_transaction_id}/refunds`, body: { amount: 500 } });
    expect(fake.records.get(authId)).toMatchObject({ available: 500 });
    expect(fake.records.get(`settlement:${capture.t.gateway_transaction_id}`)).toMatchObject({ available: 1500 });

  });

  it('refunds a purchase by its own id (a sale’s settlement has the authorization’s id)', async () => {
    const sale = await purchase('json', card);
    const refund = await transact(e2e.live, 'json', `transactions/${sale.t.token}/credit`, { amount: 300 });
    expect(refund.status).toBe(200);
    expect(last().path).toBe(`/cardpayments/v1/accounts/${ACCOUNT}/settlements/${sale.t.gateway_transaction_id}/refunds`);
  });

  it('reverses an authorization with voidauths and cancels a purchase’s pending settlement', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'USD' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Transaction voided' } });
    expect(last()).toMatchObject({ path: `/cardpayments/v1/accounts/${ACCOUNT}/auths/${auth.t.gateway_transaction_id}/voidauths`, body: { amount: 700 } });
    expect(fake.records.get(auth.t.gateway_transaction_id)?.status).toBe('CANCELLED');

    const sale = await purchase('json', card);
    const cancelled = await transact(e2e.live, 'json', `transactions/${sale.t.token}/void`, null);
    expect(cancelled.status).toBe(200);
    expect(last()).toMatchObject({ method: 'PUT', path: `/cardpayments/v1/accounts/${ACCOUNT}/settlements/${sale.t.gateway_transaction_id}`, body: { status: 'CANCELLED' } });
    expect(fake.records.get(`settlement:${sale.t.gateway_transaction_id}`)?.status).toBe('CANCELLED');
  });

  it('verifies, stores a Customer Vault profile, then purchases with its paymentToken and no card number', async () => {
    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card });
    expect(verified.status).toBe(200);
    expect(verified.t.response).toMatchObject({ success: true, message: 'Card verified' });
    expect(last().path).toBe(`/cardpayments/v1/accounts/${ACCOUNT}/verifications`);

    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    const token = stored.t.third_party_token as string;
    const [paymentToken, profileId] = token.split('|');
    expect(fake.profiles.get(profileId as string)?.card.paymentToken).toBe(paymentToken);
    expect(last().body.card).not.toHaveProperty('cvv');
    const bought = await purchase('xml', stored.t.payment_method.token as string);
    expect(bought.status).toBe(200);
    expect(last().body.card).toEqual({ paymentToken });
  });

  it('credits a card without a reference (stand-alone credit)', async () => {
    const credited = await transact(e2e.live, 'json', `gateways/${gateway}/general_credit`, { payment_method_token: card, amount: 300, currency_code: 'USD' });
    expect(credited.status).toBe(200);
    expect(credited.t).toMatchObject({ state: 'succeeded', transaction_type: 'GeneralCredit', response: { message: 'Transaction credited' } });
    expect(last()).toMatchObject({ path: `/cardpayments/v1/accounts/${ACCOUNT}/standalonecredits`, body: { amount: 300 } });
  });

  it('records 408 result unknown when Paysafe hangs, 422 on a 500 or garbage, and a config_error for a wrong password', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ username: USERNAME, password: 'not-the-password', account_id: ACCOUNT, sandbox: true });
    const refused = await purchase('json', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'The authentication credentials are invalid.' });
  });

  it('keeps no card data or password in the transcript', async () => {
    const bought = await purchase('json', await e2e.vault(PAN));
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    // The account id is a safe credential (shown back on the gateway): it stays readable in the path.
    expect(res.text).toContain(`[*>] POST ${fake.url}/cardpayments/v1/accounts/${ACCOUNT}/auths\n`);
    expect(res.text).toContain('"cardNum":"[FILTERED]"');
    expect(res.text).toContain('"cvv":"[FILTERED]"');
    expect(res.text).toMatch(/authorization: Basic \[FILTERED\]/i);
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(PASSWORD);
    expect(res.text).not.toContain(Buffer.from(`${USERNAME}:${PASSWORD}`).toString('base64'));
    expect(findCardData(res.text)).toEqual([]);
  });
});
