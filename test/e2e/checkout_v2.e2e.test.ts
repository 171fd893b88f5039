import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { errorKeys, FORMATS, startGatewayE2e, transact, type GatewayE2e, expectFaultOutcomes } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { FakeCheckout } from '../fakes/fake-checkout.js';
import { jsonOf, type FakeRequest } from '../fakes/fake-gateway-server.js';

/**
 * Coffer with a Checkout.com gateway end to end: a production environment, cards vaulted in it,
 * every operation through the v1 API in JSON and XML against a fake Checkout.com unified payments
 * API on 127.0.0.1 (COFFER_GATEWAY_ENDPOINTS), asserting what the API answers and what Checkout.com
 * received.
 */

const SECRET = 'sk_sbox_e2e3dzbpy7cf3gfd46xr4yj5xo4e';
const PAN = '4242424242424242'; // Checkout.com's documented Visa test card

describe.each(storeKinds)('Checkout.com gateway end to end (%s)', (store) => {
  let fake: FakeCheckout;
  let e2e: GatewayE2e;
  let gateway: string;
  let card: string;

  /** The one request Checkout.com received with this Cko-Idempotency-Key (Coffer's transaction token). */
  function sentWith(token: string): FakeRequest {
    const sent = fake.server.requestsWith('cko-idempotency-key', token);
    expect(sent).toHaveLength(1);
    return sent[0] as FakeRequest;
  }

  const purchase = (format: 'json' | 'xml', paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(e2e.live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'EUR', ...extra });

  beforeAll(async () => {
    fake = await FakeCheckout.start({ secretKey: SECRET });
    e2e = await startGatewayE2e('checkout_v2', fake.url, store);
    gateway = await e2e.createGateway({ secret_key: SECRET, sandbox: true });
    card = await e2e.vault(PAN);
  });

  afterAll(async () => {
    await e2e?.close();
    await fake?.close();
  });

  beforeEach(() => fake.server.setMode('normal'));

  it('creates a gateway with secret_key (public_key optional); a missing or unknown credential is a 422 naming the field, in JSON and XML', async () => {
    const created = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'checkout_v2', secret_key: SECRET, public_key: 'pk_sbox_xyz' } });
    expect(created.status).toBe(201);
    expect(created.json().gateway).toMatchObject({ gateway_type: 'checkout_v2', name: 'Checkout.com' });
    expect(created.text).not.toContain(SECRET);

    const missing = await e2e.live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'checkout_v2', public_key: 'pk_sbox_xyz' } });
    expect(missing.status).toBe(422);
    expect(missing.json().errors).toEqual([{ key: 'errors.blank', attribute: 'secret_key', message: "Secret key can't be blank" }]);

    const unknown = await e2e.live.sendXml('POST', '/v1/gateways.xml', `<gateway><gateway_type>checkout_v2</gateway_type><secret_key>${SECRET}</secret_key><secretkey>x</secretkey></gateway>`);
    expect(unknown.status).toBe(422);
    expect(errorKeys('xml', unknown)).toEqual(['errors.invalid']);
    expect(unknown.xml().errors.error['@_attribute']).toBe('secretkey');
  });

  it.each(FORMATS)('purchases in %s: the card goes to POST /payments with capture true, succeeded with the payment id, AVS and CVV', async (format) => {
    // A fresh card: Coffer keeps the CVV for one transaction only.
    const fresh = await e2e.vault(PAN);
    const { status, t } = await purchase(format, fresh, { order_id: `order-${format}` });
    expect(status).toBe(200);
    expect(t).toMatchObject({
      state: 'succeeded',
      transaction_type: 'Purchase',
      gateway_type: 'checkout_v2',
      order_id: `order-${format}`,
      response: { success: true, message: 'Transaction approved', avs_code: 'Y', cvv_code: 'M', error_code: null },
    });
    expect(t.gateway_transaction_id).toMatch(/^pay_[a-z2-7]{26}$/);
    const sent = sentWith(t.token);
    expect(sent.path).toBe('/payments');
    expect(sent.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(jsonOf(sent)).toMatchObject({
      source: { type: 'card', number: PAN, expiry_month: 3, expiry_year: 2030, name: 'Ada Lovelace', cvv: '737', billing_address: { address_line1: '12 St James Sq', city: 'London', zip: 'SW1Y 4JH', country: 'GB' } },
      amount: 1000,
      currency: 'EUR',
      reference: `order-${format}`,
      capture: true,
    });
    expect(fake.payments.get(t.gateway_transaction_id)).toMatchObject({ captured: 1000 });
  });

  it.each([
    [1005, 'card_declined', 'Declined - Do not honour'],
    [1051, 'insufficient_funds', 'Insufficient Funds'],
    [1054, 'expired_card', 'Expired Card'],
  ])('turns a decline for amount %i into 422 gateway_processing_failed (%s), JSON and XML', async (amount, errorCode, message) => {
    for (const format of FORMATS) {
      const { status, t } = await purchase(format, card, { amount });
      expect(status).toBe(422);
      expect(t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, response: { success: false, error_code: errorCode, message } });
    }
  });

  it('authorizes, captures part, captures the rest, refunds part of a capture, in JSON and XML', async () => {
    const auth = await transact(e2e.live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 2500, currency_code: 'EUR' });
    expect(auth.status).toBe(200);
    expect(auth.t).toMatchObject({ state: 'succeeded', response: { message: 'Transaction authorized' } });
    expect(jsonOf(sentWith(auth.t.token))).toMatchObject({ capture: false, amount: 2500 });
    const payment = auth.t.gateway_transaction_id as string;

    const capture = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/capture`, { amount: 2000 });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', amount: 2000, response: { message: 'Capture accepted' } });
    const captureSent = sentWith(capture.t.token);
    expect(captureSent.path).toBe(`/payments/${payment}/captures`);
    expect(jsonOf(captureSent)).toEqual({ reference: capture.t.token, amount: 2000 });
    expect(capture.t.gateway_transaction_id).toMatch(new RegExp(`^${payment}#act_[a-z2-7]{26}$`));

    const credit = await transact(e2e.live, 'json', `transactions/${capture.t.token}/credit`, { amount: 500 });
    expect(credit.status).toBe(200);
    expect(credit.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', amount: 500, response: { message: 'Refund accepted' } });
    expect(sentWith(credit.t.token).path).toBe(`/payments/${payment}/refunds`);
    expect(fake.payments.get(payment)).toMatchObject({ captured: 2000, refunded: 500 });

    // Checkout.com takes several partial captures up to the authorized amount.
    const rest = await transact(e2e.live, 'json', `transactions/${auth.t.token}/capture`, { amount: 500 });
    expect(rest.status).toBe(200);
    expect(fake.payments.get(payment)).toMatchObject({ captured: 2500, refunded: 500 });
  });

  it('voids an authorization at /voids, in XML', async () => {
    const auth = await transact(e2e.live, 'xml', `gateways/${gateway}/authorize`, { payment_method_token: card, amount: 700, currency_code: 'EUR' });
    const voided = await transact(e2e.live, 'xml', `transactions/${auth.t.token}/void`, null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', response: { message: 'Void accepted' } });
    expect(sentWith(voided.t.token).path).toBe(`/payments/${auth.t.gateway_transaction_id}/voids`);
    expect(fake.payments.get(auth.t.gateway_transaction_id)?.voided).toBe(true);
  });

  it('verifies with an amount-0 card verification and sends JPY in whole yen, KWD in thousandths', async () => {
    const verified = await transact(e2e.live, 'json', `gateways/${gateway}/verify`, { payment_method_token: card, currency_code: 'EUR' });
    expect(verified.status).toBe(200);
    expect(verified.t.response).toMatchObject({ message: 'Card verified' });
    expect(jsonOf(sentWith(verified.t.token))).toMatchObject({ amount: 0, currency: 'EUR' });
    const yen = await purchase('json', card, { amount: 1500, currency_code: 'JPY' });
    expect(yen.status).toBe(200);
    expect(jsonOf(sentWith(yen.t.token))).toMatchObject({ amount: 1500, currency: 'JPY' });
    const dinar = await purchase('json', card, { amount: 1250, currency_code: 'KWD' });
    expect(dinar.status).toBe(200);
    expect(jsonOf(sentWith(dinar.t.token))).toMatchObject({ amount: 1250, currency: 'KWD' });
  });

  it('stores the card as its source id and purchases with it, sending no card number', async () => {
    const stored = await transact(e2e.live, 'json', `gateways/${gateway}/store`, { payment_method_token: card });
    expect(stored.status).toBe(200);
    expect(stored.t.third_party_token).toMatch(/^src_[a-z2-7]{26}$/);
    const bought = await purchase('xml', stored.t.payment_method.token as string);
    expect(bought.status).toBe(200);
    const sent = sentWith(bought.t.token);
    expect(jsonOf(sent).source).toEqual({ type: 'id', id: stored.t.third_party_token });
    expect(sent.rawBody).not.toContain(PAN);
  });

  it('records 408 result unknown when Checkout.com hangs, 422 on a 500 or garbage, and a config_error for a wrong key', async () => {
    await expectFaultOutcomes(fake.server, (format) => purchase(format, card));
    const wrong = await e2e.createGateway({ secret_key: 'sk_sbox_not_the_key', sandbox: true });
    const refused = await purchase('xml', card, {}, wrong);
    expect(refused.status).toBe(422);
    expect(refused.t.response).toMatchObject({ error_code: 'config_error', message: 'Checkout.com refused the secret key (401 Unauthorized).' });
  });

  it('keeps no card data or key in the transcript', async () => {
    const bought = await purchase('json', card);
    const res = await e2e.live.get(`/v1/transactions/${bought.t.token}/transcript`);
    expect(res.status).toBe(200);
    expect(res.text).toContain(`[*>] POST ${fake.url}/payments\n`);
    expect(res.text).toContain('"status":"Captured"');
    expect(res.text).not.toContain(PAN);
    expect(res.text).not.toContain(SECRET);
    expect(res.text).not.toMatch(/"cvv"\s*:\s*"737"/);
    expect(findCardData(res.text)).toEqual([]);
  });
});
