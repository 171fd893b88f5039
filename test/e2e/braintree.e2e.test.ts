import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BRAINTREE_VERSION } from '../../src/gateways/braintree/braintree-api.js';
import { FakeBraintree } from '../fakes/fake-braintree.js';
import { errorKeys, FORMATS, startGatewayE2e, transact, type Format, type GatewayE2e } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';

/**
 * Coffer with a Braintree gateway through its v1 API, against the fake Braintree GraphQL API on
 * 127.0.0.1 (COFFER_GATEWAY_ENDPOINTS), in JSON and XML: purchase, decline, authorize → capture →
 * credit, void, store then purchase with the third-party token, faults, and gateway creation errors.
 */

const PUBLIC_KEY = 'cofferE2ePublicKey01';
const PRIVATE_KEY = 'cofferE2ePrivateKey0000000000001';
const CREDENTIALS = { merchant_id: 'cofferMerchantE2e', public_key: PUBLIC_KEY, private_key: PRIVATE_KEY };
const PAN = '4242424242424242';

describe.each(storeKinds)('Braintree gateway end to end (%s)', (store) => {
  let fake: FakeBraintree;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  const purchase = (format: Format, paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'USD', ...extra });

  /** The mutations Braintree received for one Coffer transaction (its token is the clientMutationId). */
  const mutationsOf = (token: string) => fake.requestsFor(token).map((entry) => entry.mutation);

  beforeAll(async () => {
    fake = await FakeBraintree.start(PUBLIC_KEY, PRIVATE_KEY);
    e2e = await startGatewayE2e('braintree', fake.url, store);
    gateway = await e2e.createGateway(CREDENTIALS);
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => {
    fake.server.setMode('normal');
    fake.settleImmediately = true;
  });

  it('shows the gateway with its safe credentials only', async () => {
    const res = await e2e.live.get(`/v1/gateways/${gateway}.json`);
    expect(res.status).toBe(200);
    expect(res.json().gateway).toMatchObject({ gateway_type: 'braintree', name: 'Braintree', merchant_id: 'cofferMerchantE2e', public_key: PUBLIC_KEY });
    expect(res.text).not.toContain(PRIVATE_KEY);
  });

  it.each(FORMATS)('purchases in %s: tokenize + chargePaymentMethod, 200 succeeded', async (format) => {
    // A fresh card: Coffer sends the CVV with a card's first transaction only.
    const fresh = await e2e.vault(PAN);
    const { status, t } = await purchase(format, fresh, { order_id: `order-${format}`, email: 'buyer@example.com' });
    expect(status).toBe(200);
    expect(t).toMatchObject({
      succeeded: true,
      state: 'succeeded',
      transaction_type: 'Purchase',
      amount: 1000,
      currency_code: 'USD',
      gateway_type: 'braintree',
      response: { success: true, message: 'Transaction approved', avs_code: 'M', cvv_code: 'M', error_code: null },
    });
    expect(fake.transactions.get(t.gateway_transaction_id)?.status).toBe('SETTLED');
    expect(mutationsOf(t.token)).toEqual(['tokenizeCreditCard', 'chargePaymentMethod']);
    const [tokenize, charge] = fake.requestsFor(t.token);
    expect(tokenize?.request.headers['braintree-version']).toBe(BRAINTREE_VERSION);
    expect(tokenize?.input.creditCard).toMatchObject({ number: PAN, cvv: '737', expirationMonth: '03', expirationYear: '2030', cardholderName: 'Ada Lovelace' });
    expect(charge?.input.transaction).toEqual({ amount: '10.00', orderId: `order-${format}`, customerDetails: { email: 'buyer@example.com' } });
  });

  it.each(FORMATS)('a processor decline is 422 gateway_processing_failed with the mapped code (%s)', async (format) => {
    const { status, t } = await purchase(format, card, { amount: 200100 });
    expect(status).toBe(422);
    expect(t).toMatchObject({ succeeded: false, state: 'gateway_processing_failed', response: { success: false, message: '2001 Insufficient Funds', error_code: 'insufficient_funds' } });
    expect(fake.transactions.get(t.gateway_transaction_id)?.status).toBe('PROCESSOR_DECLINED');
  });

  it('a refused card number is a decline, and nothing is charged', async () => {
    const fraud = await e2e.vault('4000111111111511');
    const { status, t } = await purchase('json', fraud);
    expect(status).toBe(422);
    expect(t.response).toMatchObject({ error_code: 'card_declined', message: 'Transaction declined - gateway rejected (fraud)' });
  });

  it.each(FORMATS)('authorizes, captures part, then refunds part of the capture (%s)', async (format) => {
    const auth = await transact(e2e.live, format, `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 1000, currency_code: 'USD' });
    expect(auth.status).toBe(200);
    expect(auth.t).toMatchObject({ state: 'succeeded', transaction_type: 'Authorization', response: { message: 'Transaction authorized' } });
    const id = auth.t.gateway_transaction_id as string;
    expect(mutationsOf(auth.t.token)).toEqual(['tokenizeCreditCard', 'authorizePaymentMethod']);

    const capture = await transact(e2e.live, format, `transactions/${auth.t.token}/capture`, { amount: 600, currency_code: 'USD' });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 600, gateway_transaction_id: id });
    expect(fake.requestsFor(capture.t.token).map((entry) => [entry.mutation, entry.input.transactionId, entry.input.transaction])).toEqual([['captureTransaction', id, { amount: '6.00' }]]);

    const refund = await transact(e2e.live, format, `transactions/${capture.t.token}/credit`, { amount: 250 });
    expect(refund.status).toBe(200);
    expect(refund.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 250, response: { message: 'Transaction refunded' } });
    expect(fake.requestsFor(refund.t.token)[0]?.input).toMatchObject({ transactionId: id, refund: { amount: '2.50' } });
    expect(fake.transactions.get(refund.t.gateway_transaction_id)).toMatchObject({ kind: 'refund', amount: 250 });

    // A capture is final at Braintree: Coffer refuses a second one without calling it.
    const before = fake.requests.length;
    const again = await transact(e2e.live, format, `transactions/${auth.t.token}/capture`, { amount: 100 });
    expect(again.status).toBe(422);
    expect(fake.requests.length).toBe(before);
  });

  it.each(FORMATS)('authorizes then voids with reverseTransaction (%s)', async (format) => {
    fake.settleImmediately = false;
    const auth = await transact(e2e.live, format, `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'USD' });
    const voided = await transact(e2e.live, format, `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { success: true, message: 'Transaction voided' } });
    expect(fake.requestsFor(voided.t.token).map((entry) => [entry.mutation, entry.input.transactionId])).toEqual([['reverseTransaction', auth.t.gateway_transaction_id]]);
    expect(fake.transactions.get(auth.t.gateway_transaction_id)?.status).toBe('VOIDED');
  });

  it('verifies a card without leaving it in the Braintree vault', async () => {
    const { status, t } = await transact(e2e.live, 'xml', `gateways/${gateway}/verify`, { payment_method_token: card });
    expect(status).toBe(200);
    expect(t).toMatchObject({ state: 'succeeded', transaction_type: 'Verification', response: { message: 'Card verified' } });
    expect(mutationsOf(t.token)).toEqual(['tokenizeCreditCard', 'vaultPaymentMethod', 'deletePaymentMethodFromVault']);
  });

  it.each(FORMATS)('stores the card at Braintree and purchases with the third-party token (%s)', async (format) => {
    const stored = await transact(e2e.live, format, `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    expect(stored.t).toMatchObject({ state: 'succeeded', transaction_type: 'Store', response: { message: 'Card stored' } });
    const token = stored.t.third_party_token as string;
    expect(fake.vaulted.has(token)).toBe(true);
    expect(stored.t.payment_method).toMatchObject({ payment_method_type: 'third_party_token', third_party_token: token });

    const bought = await purchase(format, stored.t.payment_method.token as string);
    expect(bought.status).toBe(200);
    expect(fake.requestsFor(bought.t.token).map((entry) => [entry.mutation, entry.input.paymentMethodId])).toEqual([['chargePaymentMethod', token]]);
  });

  it('sends a JPY amount in whole yen', async () => {
    const { status, t } = await purchase('json', card, { amount: 1500, currency_code: 'JPY' });
    expect(status).toBe(200);
    expect(fake.requestsFor(t.token)[1]?.input.transaction.amount).toBe('1500');
  });

  it('records 408 result unknown when Braintree hangs, and gateway_processing_failed on a 500', async () => {
    fake.server.setMode('hang');
    const hung = await purchase('json', card);
    expect(hung.status).toBe(408);
    expect(hung.t).toMatchObject({ state: 'gateway_processing_result_unknown', response: { result_unknown: true } });
    fake.server.setMode('error500');
    const broken = await purchase('xml', card);
    expect(broken.status).toBe(422);
    expect(broken.t).toMatchObject({ state: 'gateway_processing_failed', response: { result_unknown: false } });
  });

  it('refused API keys fail the transaction as a gateway fault, not a card decline', async () => {
    const wrong = await e2e.createGateway({ ...CREDENTIALS, private_key: 'not-the-private-key-0001' });
    const { status, t } = await purchase('json', card, {}, wrong);
    expect(status).toBe(422);
    expect(t).toMatchObject({ state: 'gateway_processing_failed', response: { success: false, error_code: 'processing_error' } });
  });

  it('keeps the PAN, CVV and keys out of the transcript', async () => {
    const { t } = await purchase('json', card);
    const res = await e2e.live.get(`/v1/transactions/${t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain('/graphql');
    expect(findCardData(res.text, [PAN, PRIVATE_KEY, Buffer.from(`${PUBLIC_KEY}:${PRIVATE_KEY}`).toString('base64')])).toEqual([]);
  });

  it.each(FORMATS)('refuses a gateway without a private key, or with an unknown field, naming it (%s)', async (format) => {
    const missing =
      format === 'json'
        ? await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'braintree', merchant_id: 'm', public_key: 'p' } })
        : await e2e.live.sendXml('POST', '/v1/gateways.xml', '<gateway><gateway_type>braintree</gateway_type><merchant_id>m</merchant_id><public_key>p</public_key></gateway>');
    expect(missing.status).toBe(422);
    expect(errorKeys(format, missing)).toEqual(['errors.blank']);
    expect(missing.text).toContain('private_key');

    const unknown =
      format === 'json'
        ? await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'braintree', ...CREDENTIALS, login: 'x' } })
        : await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>braintree</gateway_type><merchant_id>m</merchant_id><public_key>p</public_key><private_key>k</private_key><login>x</login></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys(format, unknown)).toEqual(['errors.invalid']);
    expect(unknown.text).toContain('login');
  });

  it('accepts Spreedly’s blue-mode fields (mode, merchant_account_id) and sends the merchant account', async () => {
    const withAccount = await e2e.createGateway({ ...CREDENTIALS, mode: 'blue', merchant_account_id: 'coffer_usd' });
    const { status, t } = await purchase('json', card, {}, withAccount);
    expect(status).toBe(200);
    expect(fake.requestsFor(t.token)[1]?.input.transaction.merchantAccountId).toBe('coffer_usd');
    const overridden = await purchase('json', card, { gateway_specific_fields: { braintree: { merchant_account_id: 'coffer_eur' } } }, withAccount);
    expect(fake.requestsFor(overridden.t.token)[1]?.input.transaction.merchantAccountId).toBe('coffer_eur');
  });
});
