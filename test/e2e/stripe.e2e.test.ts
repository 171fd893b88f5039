import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/client.js';
import { errorKeys, FORMATS, transact, type Format } from '../helpers/gateway-e2e.js';
import { findCardData } from '../helpers/leak-scan.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { startFakeStripe, type FakeStripe, type RecordedRequest } from '../fakes/fake-stripe.js';

/**
 * Coffer with a Stripe gateway, end to end over HTTPS: a production environment, cards vaulted
 * in it, every operation in JSON and XML against the fake Stripe on 127.0.0.1
 * (COFFER_GATEWAY_ENDPOINTS), asserting both what the API answers and what Stripe received.
 */

const LIVE_KEY = 'sk_live_CofferE2eFakeKey0000000001';
const REVOKED_KEY = 'sk_live_CofferE2eRevokedKey00000002';
const PAN = '4242424242424242';
const CVV = '739';
/** The only request Stripe received with this Idempotency-Key. */
function sentWith(fake: FakeStripe, key: string): RecordedRequest {
  const sent = fake.requestsWithKey(key);
  expect(sent).toHaveLength(1);
  return sent[0] as RecordedRequest;
}

describe.each(storeKinds)('Stripe gateway end to end over HTTPS (%s)', (store) => {
  let fake: FakeStripe;
  let server: TestServer;
  let live: ApiClient;
  let gateway: string;

  async function createGateway(login: string): Promise<string> {
    const res = await live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login } });
    expect(res.status).toBe(201);
    return res.json().gateway.token;
  }

  /** Vaults a card (cached) in the production environment; a real card for Coffer unless listed in test-cards.ts. */
  async function vault(number = PAN, cvv: string | null = CVV): Promise<string> {
    const res = await live.sendJson('POST', '/v1/payment_methods.json', {
      payment_method: {
        email: 'ada@example.com',
        credit_card: {
          first_name: 'Ada',
          last_name: 'Lovelace',
          number,
          ...(cvv === null ? {} : { verification_value: cvv }),
          month: 12,
          year: 2034,
          address1: '12 St James Sq',
          city: 'London',
          zip: 'SW1Y 4JH',
          country: 'GB',
        },
      },
    });
    expect(res.status).toBe(201);
    return res.json().transaction.payment_method.token;
  }

  const purchase = (format: Format, paymentMethod: string, extra: Record<string, unknown> = {}, on = gateway) =>
    transact(live, format, `gateways/${on}/purchase`, { payment_method_token: paymentMethod, amount: 1000, currency_code: 'USD', ...extra });

  // A card whose CVV went with its first transaction: reused by the tests that do not look at the CVV.
  let workhorse: string;

  beforeAll(async () => {
    fake = await startFakeStripe([LIVE_KEY]);
    server = await startServer({
      store,
      env: { COFFER_GATEWAY_ENDPOINTS: JSON.stringify({ stripe: fake.url }), COFFER_EGRESS_ALLOW: '127.0.0.1', COFFER_GATEWAY_TIMEOUTS: JSON.stringify({ stripe: 2 }) },
    });
    const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
    gateway = await createGateway(LIVE_KEY);
    workhorse = await vault();
  });

  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  beforeEach(() => fake.setMode('normal'));

  it.each(FORMATS)('purchases in %s: 200, succeeded, pi_ id, CVV and AVS results', async (format) => {
    const card = await vault();
    const { status, t, res } = await purchase(format, card, { order_id: `order-${format}`, description: 'Tea' });
    expect(status).toBe(200);
    expect(res.headers['content-type']).toMatch(format === 'json' ? /^application\/json/ : /^application\/xml/);
    expect(t).toMatchObject({
      on_test_gateway: false,
      succeeded: true,
      state: 'succeeded',
      transaction_type: 'Purchase',
      order_id: `order-${format}`,
      amount: 1000,
      currency_code: 'USD',
      message: 'Succeeded!',
      gateway_token: gateway,
      gateway_type: 'stripe',
      payment_method_added: false,
      response: { success: true, message: 'Transaction approved', avs_code: 'Y', cvv_code: 'M', pending: false, result_unknown: false, error_code: null, cancelled: false },
      payment_method: { token: card, number: 'XXXX-XXXX-XXXX-4242', last_four_digits: '4242' },
    });
    expect(t.gateway_transaction_id).toMatch(/^pi_[A-Za-z0-9]+$/);
    expect(t.gateway_specific_response_fields).toEqual({ stripe: { status: 'succeeded' } });
    if (format === 'xml') expect(res.text).toContain(`<gateway_transaction_id>${t.gateway_transaction_id}</gateway_transaction_id>`);

    const sent = sentWith(fake, t.token);
    expect(sent.path).toBe('/v1/payment_intents');
    expect(sent.headers.authorization).toBe(`Bearer ${LIVE_KEY}`);
    expect(sent.headers['stripe-version']).toBe('2024-06-20');
    expect(sent.form).toMatchObject({
      amount: '1000',
      currency: 'usd',
      capture_method: 'automatic',
      confirm: 'true',
      description: 'Tea',
      'metadata[order_id]': `order-${format}`,
      'payment_method_data[card][number]': PAN,
      'payment_method_data[card][cvc]': CVV,
      'payment_method_data[card][exp_month]': '12',
      'payment_method_data[card][exp_year]': '2034',
      'payment_method_data[billing_details][name]': 'Ada Lovelace',
      'expand[]': 'latest_charge',
    });
    expect(fake.intents.get(t.gateway_transaction_id)?.json).toMatchObject({ status: 'succeeded', amount: 1000, livemode: true });
  });

  it('sends the CVV with the first transaction of a card only', async () => {
    const card = await vault();
    const before = await live.get(`/v1/payment_methods/${card}.json`);
    expect(before.json().payment_method.verification_value).toBe('XXX');
    const first = await purchase('json', card);
    expect(first.status).toBe(200);
    expect(sentWith(fake, first.t.token).form['payment_method_data[card][cvc]']).toBe(CVV);
    const second = await purchase('xml', card);
    expect(second.status).toBe(200);
    const form = sentWith(fake, second.t.token).form;
    expect(form['payment_method_data[card][number]']).toBe(PAN);
    expect(form).not.toHaveProperty('payment_method_data[card][cvc]');
    expect(second.t.response.cvv_code).toBeNull();
    const after = await live.get(`/v1/payment_methods/${card}.json`);
    expect(after.json().payment_method.verification_value).toBe('');
  });

  it.each(FORMATS)('authorizes, captures part, then refunds the capture in two steps (%s)', async (format) => {
    const auth = await transact(live, format, `gateways/${gateway}/authorize`, { payment_method_token: workhorse, amount: 1000, currency_code: 'USD' });
    expect(auth.status).toBe(200);
    expect(auth.t).toMatchObject({ state: 'succeeded', transaction_type: 'Authorization', response: { message: 'Transaction authorized' } });
    const intent = auth.t.gateway_transaction_id as string;
    expect(sentWith(fake, auth.t.token).form.capture_method).toBe('manual');
    expect(fake.intents.get(intent)?.json).toMatchObject({ status: 'requires_capture', amount_capturable: 1000 });

    const capture = await transact(live, format, `transactions/${auth.t.token}/capture`, { amount: 600, currency_code: 'USD' });
    expect(capture.status).toBe(200);
    expect(capture.t).toMatchObject({ state: 'succeeded', transaction_type: 'Capture', reference_token: auth.t.token, amount: 600, gateway_transaction_id: intent });
    const captureSent = sentWith(fake, capture.t.token);
    expect(captureSent.path).toBe(`/v1/payment_intents/${intent}/capture`);
    expect(captureSent.form).toEqual({ amount_to_capture: '600', 'expand[]': 'latest_charge' });

    const refund = await transact(live, format, `transactions/${capture.t.token}/credit`, { amount: 250 });
    expect(refund.status).toBe(200);
    expect(refund.t).toMatchObject({ state: 'succeeded', transaction_type: 'Credit', reference_token: capture.t.token, amount: 250, response: { message: 'Transaction refunded' } });
    expect(refund.t.gateway_transaction_id).toMatch(/^re_/);
    const refundSent = sentWith(fake, refund.t.token);
    expect(refundSent.path).toBe('/v1/refunds');
    expect(refundSent.form).toEqual({ payment_intent: intent, amount: '250' });

    // No amount: the rest of the capture (350).
    const rest = await transact(live, format, `transactions/${capture.t.token}/credit`, null);
    expect(rest.status).toBe(200);
    expect(rest.t.amount).toBe(350);
    expect(sentWith(fake, rest.t.token).form).toEqual({ payment_intent: intent, amount: '350' });
    expect(fake.charges.get(fake.intents.get(intent)?.json.latest_charge as string)).toMatchObject({ amount_refunded: 600, refunded: true });

    // Nothing left: refused by Coffer, nothing sent.
    const sentBefore = fake.requests.length;
    const more = await transact(live, format, `transactions/${capture.t.token}/credit`, { amount: 1 });
    expect(more.status).toBe(422);
    expect(errorKeys(format, more.res)).toEqual(['errors.invalid_amount']);
    expect(fake.requests.length).toBe(sentBefore);
  });

  // A Stripe capture (without multicapture) is final: Stripe releases the rest. So Coffer allows a
  // partial capture but refuses a second one itself, before anything is sent.
  it('captures part of an authorization once; a second capture is refused without calling Stripe', async () => {
    const auth = await transact(live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: workhorse, amount: 1000, currency_code: 'USD' });
    const part = await transact(live, 'json', `transactions/${auth.t.token}/capture`, { amount: 600 });
    expect(part.status).toBe(200);
    expect(part.t.amount).toBe(600);
    const sentBefore = fake.requests.length;
    const rest = await live.request('POST', `/v1/transactions/${auth.t.token}/capture.xml`);
    expect(rest.status).toBe(422);
    expect(rest.xml().errors.error['@_key']).toBe('errors.reference_transaction_already_settled');
    expect(fake.requests.length).toBe(sentBefore);
  });

  it.each(FORMATS)('authorizes then voids: the PaymentIntent is canceled (%s)', async (format) => {
    const auth = await transact(live, format, `gateways/${gateway}/authorize`, { payment_method_token: workhorse, amount: 700, currency_code: 'USD' });
    expect(auth.status).toBe(200);
    const intent = auth.t.gateway_transaction_id as string;
    const voided = await transact(live, format, `transactions/${auth.t.token}/void`, format === 'json' ? { description: 'changed mind' } : null);
    expect(voided.status).toBe(200);
    expect(voided.t).toMatchObject({ state: 'succeeded', transaction_type: 'Void', reference_token: auth.t.token, gateway_transaction_id: intent, response: { success: true, cancelled: true, message: 'Transaction voided' } });
    const sent = sentWith(fake, voided.t.token);
    expect(sent.path).toBe(`/v1/payment_intents/${intent}/cancel`);
    expect(sent.rawBody).toBe('');
    expect(fake.intents.get(intent)?.json.status).toBe('canceled');

    // A voided authorization cannot be captured: refused by Coffer, nothing sent to Stripe.
    const sentBefore = fake.requests.length;
    const capture = await transact(live, format, `transactions/${auth.t.token}/capture`, null);
    expect(capture.status).toBe(422);
    expect(errorKeys(format, capture.res)).toHaveLength(1);
    expect(errorKeys(format, capture.res)[0]).toMatch(/^errors\.(reference_transaction_already_settled|invalid_amount)$/);
    expect(fake.requests.length).toBe(sentBefore);
  });

  it.each(FORMATS)('verifies with a confirmed SetupIntent (%s)', async (format) => {
    const { status, t } = await transact(live, format, `gateways/${gateway}/verify`, { payment_method_token: workhorse });
    expect(status).toBe(200);
    expect(t).toMatchObject({ state: 'succeeded', transaction_type: 'Verification', amount: null, response: { success: true, message: 'Card verified' } });
    expect(t.gateway_transaction_id).toMatch(/^seti_/);
    const sent = sentWith(fake, t.token);
    expect(sent.path).toBe('/v1/setup_intents');
    expect(sent.form).toMatchObject({ confirm: 'true', usage: 'off_session', 'payment_method_data[card][number]': PAN });
    expect(fake.setupIntents.get(t.gateway_transaction_id)?.status).toBe('succeeded');
  });

  it.each(FORMATS)('stores the card at Stripe (cus|pm) and purchases with the third-party token (%s)', async (format) => {
    const stored = await transact(live, format, `gateways/${gateway}/store`, { payment_method_token: workhorse });
    expect(stored.status).toBe(200);
    expect(stored.t).toMatchObject({ state: 'succeeded', transaction_type: 'Store', response: { message: 'Card stored' } });
    expect(stored.t.third_party_token).toMatch(/^cus_[A-Za-z0-9]+\|pm_[A-Za-z0-9]+$/);
    const [cus, pm] = (stored.t.third_party_token as string).split('|');
    expect(stored.t.payment_method).toMatchObject({ payment_method_type: 'third_party_token', storage_state: 'retained', third_party_token: stored.t.third_party_token });
    expect(stored.t.basis_payment_method.token).toBe(workhorse);
    expect(sentWith(fake, stored.t.token)).toMatchObject({ path: '/v1/payment_methods', form: { type: 'card', 'card[number]': PAN } });
    expect(sentWith(fake, `${stored.t.token}-customer`)).toMatchObject({ path: '/v1/customers', form: { payment_method: pm } });
    expect(fake.paymentMethods.get(pm as string)?.customer).toBe(cus);

    const thirdParty = stored.t.payment_method.token as string;
    const bought = await purchase(format, thirdParty);
    expect(bought.status).toBe(200);
    expect(bought.t).toMatchObject({ state: 'succeeded', payment_method: { token: thirdParty } });
    const sent = sentWith(fake, bought.t.token);
    expect(sent.form).toMatchObject({ customer: cus, payment_method: pm });
    expect(Object.keys(sent.form).filter((name) => name.startsWith('payment_method_data'))).toEqual([]);
    expect(sent.rawBody).not.toContain(PAN);
  });

  it.each([
    ['4000000000000002', 'card_declined', 'Your card was declined.'],
    ['4000000000009995', 'insufficient_funds', 'Your card has insufficient funds.'],
  ])('turns Stripe’s 402 for %s into 422 gateway_processing_failed (%s), JSON and XML', async (number, errorCode, message) => {
    const card = await vault(number);
    for (const format of FORMATS) {
      const { status, t, res } = await purchase(format, card);
      expect(status).toBe(422);
      expect(t).toMatchObject({ succeeded: false, state: 'gateway_processing_failed', message, response: { success: false, message, error_code: errorCode } });
      expect(t.gateway_transaction_id).toMatch(/^pi_/);
      expect(sentWith(fake, t.token).form['payment_method_data[card][number]']).toBe(number);
      if (format === 'xml') {
        expect(res.text).toContain(`<message>${message.replace("'", '&apos;')}</message>`);
        expect(res.text).not.toMatch(/<errors>\s*<error/);
      } else {
        expect(res.json().transaction.message_key).toBeNull();
      }
    }
  });

  it.each(FORMATS)('fails with config_error when Stripe refuses the secret key (%s)', async (format) => {
    const revoked = await createGateway(REVOKED_KEY);
    const { status, t } = await purchase(format, workhorse, {}, revoked);
    expect(status).toBe(422);
    expect(t).toMatchObject({ state: 'gateway_processing_failed', response: { success: false, error_code: 'config_error' } });
    expect(t.response.message).toMatch(/^Invalid API Key provided/);
    expect(sentWith(fake, t.token).headers.authorization).toBe(`Bearer ${REVOKED_KEY}`);
  });

  it.each(FORMATS)('refuses a Coffer test card on the Stripe gateway with 402 errors.account_inactive (%s)', async (format) => {
    const testCard = await vault('4111111111111111');
    const before = fake.requests.length;
    const { status, res } = await purchase(format, testCard);
    expect(status).toBe(402);
    expect(errorKeys(format, res)).toEqual(['errors.account_inactive']);
    expect(fake.requests.length).toBe(before);
  });

  it('finishes a 3-D Secure purchase with complete', async () => {
    const card = await vault('4000002500003155');
    const pending = await purchase('json', card, { attempt_3dsecure: true });
    expect(pending.status).toBe(200);
    expect(pending.t).toMatchObject({ state: 'pending', succeeded: false, message: 'Pending', response: { pending: true } });
    expect(sentWith(fake, pending.t.token).form['payment_method_options[card][request_three_d_secure]']).toBe('any');
    const intent = pending.t.gateway_transaction_id as string;

    fake.authenticate(intent);
    const before = fake.requests.length;
    const done = await transact(live, 'xml', `transactions/${pending.t.token}/complete`, null);
    expect(done.status).toBe(200);
    expect(done.t).toMatchObject({ token: pending.t.token, state: 'succeeded', succeeded: true, gateway_transaction_id: intent });
    expect(fake.requests.slice(before)).toMatchObject([{ method: 'GET', path: `/v1/payment_intents/${intent}` }]);
  });

  it('records 408 gateway_processing_result_unknown when Stripe hangs, and 422 on a Stripe 500', async () => {
    const faulty = await createGateway(LIVE_KEY);
    fake.setMode('hang');
    const hung = await purchase('json', workhorse, {}, faulty);
    expect(hung.status).toBe(408);
    expect(hung.t).toMatchObject({ state: 'gateway_processing_result_unknown', response: { result_unknown: true, success: false } });
    fake.setMode('error500');
    const broken = await purchase('xml', workhorse, {}, faulty);
    expect(broken.status).toBe(422);
    expect(broken.t).toMatchObject({ state: 'gateway_processing_failed', response: { error_code: 'processing_error', result_unknown: false } });
    expect(fake.requestsWithKey(hung.t.token)).toHaveLength(1);
    expect(fake.requestsWithKey(broken.t.token)).toHaveLength(1);
  });

  describe('transcripts', () => {
    async function transcriptOf(token: string): Promise<string> {
      const res = await live.get(`/v1/transactions/${token}/transcript`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/plain/);
      return res.text;
    }

    function expectNoSecrets(text: string): void {
      expect(text).not.toContain(PAN);
      expect(findCardData(text)).toEqual([]);
      expect(text).not.toContain(LIVE_KEY);
      expect(text).not.toMatch(/sk_live_[A-Za-z0-9]{4,}/);
    }

    it('shows the scrubbed exchange of a purchase, a decline, a capture and a store', async () => {
      const bought = await purchase('json', workhorse);
      const text = await transcriptOf(bought.t.token);
      expect(text).toContain(`[*>] POST ${fake.url}/v1/payment_intents\n`);
      expect(text).toContain('authorization: Bearer [FILTERED]');
      expect(text).toContain(`idempotency-key: ${bought.t.token}`);
      expect(text).toContain('payment_method_data%5Bcard%5D%5Bnumber%5D=[FILTERED]');
      expect(text).toContain('amount=1000&currency=usd');
      expect(text).toMatch(/\[<\*\] Response 200 received in \d+ms/);
      expect(text).toContain(`"id":"${bought.t.gateway_transaction_id}"`);
      expectNoSecrets(text);

      const declined = await purchase('xml', await vault('4000000000000002'));
      const declinedText = await transcriptOf(declined.t.token);
      expect(declinedText).toMatch(/\[<\*\] Response 402 received/);
      expect(declinedText).toContain('"decline_code":"generic_decline"');
      expectNoSecrets(declinedText);

      const auth = await transact(live, 'json', `gateways/${gateway}/authorize`, { payment_method_token: workhorse, amount: 500, currency_code: 'USD' });
      const capture = await transact(live, 'json', `transactions/${auth.t.token}/capture`, null);
      const captureText = await transcriptOf(capture.t.token);
      expect(captureText).toContain(`[*>] POST ${fake.url}/v1/payment_intents/${auth.t.gateway_transaction_id}/capture`);
      expectNoSecrets(captureText);

      const stored = await transact(live, 'json', `gateways/${gateway}/store`, { payment_method_token: workhorse });
      const storeText = await transcriptOf(stored.t.token);
      expect(storeText).toContain(`[*>] POST ${fake.url}/v1/payment_methods\n`);
      expect(storeText).toContain(`[*>] POST ${fake.url}/v1/customers\n`);
      expect(storeText).toContain('card%5Bnumber%5D=[FILTERED]');
      expectNoSecrets(storeText);
    });

    // SRC BUG (reported): the CVV of the first transaction is kept in clear in its transcript
    // (`payment_method_data%5Bcard%5D%5Bcvc%5D=739`): scrubStripe and scrubTranscript miss the nested field.
    it('keeps no CVV in the transcript of a card’s first transaction', async () => {
      const bought = await purchase('json', await vault(PAN, CVV));
      expect(sentWith(fake, bought.t.token).form['payment_method_data[card][cvc]']).toBe(CVV);
      const text = await transcriptOf(bought.t.token);
      expect(text).not.toMatch(/cvc(%5D|\])=(?!\[FILTERED\])/);
      expect(text).not.toContain(`=${CVV}`);
    });

    it('answers 404 for an unknown transaction', async () => {
      const res = await live.get('/v1/transactions/NoSuchTransactionToken0000000/transcript');
      expect(res.status).toBe(404);
    });
  });

  it('lists a gateway’s transactions, oldest first, in JSON and XML', async () => {
    const own = await createGateway(LIVE_KEY);
    const declining = await vault('4000000000009995');
    const tokens = [
      (await purchase('json', workhorse, {}, own)).t.token,
      (await purchase('xml', declining, {}, own)).t.token,
      (await transact(live, 'json', `gateways/${own}/authorize`, { payment_method_token: workhorse, amount: 300, currency_code: 'USD' })).t.token,
    ];
    const json = await live.get(`/v1/gateways/${own}/transactions.json`);
    expect(json.status).toBe(200);
    const listed = json.json().transactions;
    expect(listed.map((t: { token: string }) => t.token)).toEqual(tokens);
    expect(listed.map((t: { state: string }) => t.state)).toEqual(['succeeded', 'gateway_processing_failed', 'succeeded']);
    expect(listed.every((t: { gateway_token: string; gateway_type: string }) => t.gateway_token === own && t.gateway_type === 'stripe')).toBe(true);

    const xml = await live.get(`/v1/gateways/${own}/transactions.xml?order=desc`);
    expect(xml.status).toBe(200);
    const items = xml.xml().transactions.transaction;
    expect(items.map((t: { token: string }) => t.token)).toEqual([...tokens].reverse());

    const failed = await live.get(`/v1/gateways/${own}/transactions.json?state=gateway_processing_failed`);
    expect(failed.json().transactions.map((t: { token: string }) => t.token)).toEqual([tokens[1]]);

    const other = await live.get(`/v1/gateways/${gateway}/transactions.json?count=100`);
    expect(other.json().transactions.map((t: { token: string }) => t.token)).not.toContain(tokens[0]);
    expect((await server.client.get(`/v1/gateways/${own}/transactions.json`)).status).toBe(404);
  });
});
