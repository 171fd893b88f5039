import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addPaymentMethod, createTestGateway } from '../helpers/fixtures.js';
import { FORMATS, transact, type Format, type Result } from '../helpers/gateway-e2e.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { childOrder } from '../helpers/xml.js';

/*
 * The test gateway's 3-D Secure 2 flows on the enrolled card 4556761029983886 (the
 * amount picks the flow, docs/test-gateway-flows.md) and its offsite flow with a `sprel` method,
 * each finished with POST /v1/transactions/<t>/complete, in JSON and XML.
 */

const ENROLLED = '4556761029983886';
const REDIRECT = 'https://shop.example/3ds/return';
const CALLBACK = 'https://shop.example/3ds/callback';
const BROWSER_INFO = Buffer.from(JSON.stringify({ width: 1280, height: 800, depth: 24, timezone: 0, user_agent: 'test', java: false, language: 'en-GB' })).toString('base64');

describe.each(storeKinds)('the test gateway: 3-D Secure 2 and offsite (%s)', (store) => {
  let server: TestServer;
  let gateway: string;

  beforeAll(async () => {
    server = await startServer({ store });
    gateway = await createTestGateway(server.client);
  });

  afterAll(async () => {
    await server?.close();
  });

  async function enrolledCard(): Promise<string> {
    return (await addPaymentMethod(server.client, { credit_card: { first_name: 'Joe', last_name: 'Jones', number: ENROLLED, month: 10, year: 2035 }, retained: true })).payment_method.token;
  }

  /** A `sprel` method as the transparent redirect will create it; until then written through the vault's store. */
  async function sprelMethod(): Promise<string> {
    const token = randomBytes(20).toString('base64url').replace(/[-_]/g, 'A').slice(0, 29);
    const now = new Date().toISOString();
    await server.core.store.db
      .insertInto('payment_methods')
      .values({
        token, environment_key: server.init.environment_key, payment_method_type: 'sprel', storage_state: 'retained', test: 1, single_use: 0,
        email: null, data: null, metadata: null, callback_url: null, details: '{}', created_at: now, updated_at: now,
      })
      .execute();
    return token;
  }

  describe.each(FORMATS)('%s', (format: Format) => {
    const purchase = (pm: string, amount: number, operation = 'purchase') =>
      transact(server.client, format, `gateways/${gateway}/${operation}`, {
        payment_method_token: pm, amount, currency_code: 'USD', attempt_3dsecure: true, three_ds_version: '2.1.0', browser_info: BROWSER_INFO, redirect_url: REDIRECT, callback_url: CALLBACK,
      });
    const complete = (token: string) => transact(server.client, format, `transactions/${token}/complete`, null);

    function expectPending(result: Result, requiredAction: string): void {
      expect(result.status, result.res.text).toBe(200);
      expect(result.t).toMatchObject({ state: 'pending', succeeded: false, message: 'Pending', required_action: requiredAction, attempt_3dsecure: true, three_ds_version: '2.1.0', redirect_url: REDIRECT, callback_url: CALLBACK });
      expect(result.t.three_ds_context).toMatch(/^[A-Za-z0-9_-]+$/);
      if (format === 'xml') {
        // The gem reads the first <state>: the transaction's, before the 3DS block and the payment method.
        const order = childOrder(result.res.text, 'transaction');
        expect(order.indexOf('state')).toBeLessThan(order.indexOf('required_action'));
        expect(order.indexOf('required_action')).toBeLessThan(order.indexOf('payment_method'));
      }
    }

    it('3001: frictionless, succeeded at once with required_action none', async () => {
      const result = await purchase(await enrolledCard(), 3001);
      expect(result.status).toBe(200);
      expect(result.t).toMatchObject({ state: 'succeeded', succeeded: true, required_action: 'none', device_fingerprint_form: null, challenge_form: null, challenge_url: null });
    });

    it('3002: falls back to 3-D Secure 1, pending with a checkout_url back to redirect_url, then complete succeeds', async () => {
      const pending = await purchase(await enrolledCard(), 3002);
      expectPending(pending, 'none');
      expect(pending.t.checkout_url).toBe(`${REDIRECT}?transaction_token=${pending.t.token}`);
      expect((await complete(pending.t.token)).t).toMatchObject({ token: pending.t.token, state: 'succeeded', required_action: null });
    });

    it.each([['purchase', 'Purchase'], ['authorize', 'Authorization']])('3003 (%s): device fingerprint, then complete authorizes', async (operation, type) => {
      const pending = await purchase(await enrolledCard(), 3003, operation);
      expectPending(pending, 'device_fingerprint');
      expect(pending.t.transaction_type).toBe(type);
      expect(pending.t.device_fingerprint_form).toContain('name="threeDSMethodData"');
      expect(pending.t.device_fingerprint_form).toContain(`action="${REDIRECT}?transaction_token=${pending.t.token}"`);
      const done = await complete(pending.t.token);
      expect(done.status).toBe(200);
      expect(done.t).toMatchObject({ token: pending.t.token, state: 'succeeded', succeeded: true, transaction_type: type, required_action: null, device_fingerprint_form: null });
    });

    it('3004: device fingerprint, complete leads to a challenge, a second complete succeeds', async () => {
      const pending = await purchase(await enrolledCard(), 3004);
      expectPending(pending, 'device_fingerprint');
      const challenged = await complete(pending.t.token);
      expectPending(challenged, 'challenge');
      expect(challenged.t.challenge_url).toBe(`${REDIRECT}?transaction_token=${pending.t.token}`);
      expect(challenged.t.challenge_form).toContain('name="creq"');
      expect(challenged.t.three_ds_context).not.toBe(pending.t.three_ds_context);
      expect((await complete(pending.t.token)).t).toMatchObject({ state: 'succeeded', succeeded: true });
    });

    it('3005: challenge at once, then complete succeeds', async () => {
      const pending = await purchase(await enrolledCard(), 3005);
      expectPending(pending, 'challenge');
      expect(pending.t.device_fingerprint_form).toBeNull();
      expect((await complete(pending.t.token)).t).toMatchObject({ state: 'succeeded' });
    });

    it('3103 and 3104: the authentication fails on complete (422 gateway_processing_failed)', async () => {
      for (const [amount, action] of [[3103, 'device_fingerprint'], [3104, 'challenge']] as const) {
        const pending = await purchase(await enrolledCard(), amount);
        expectPending(pending, action);
        const failed = await complete(pending.t.token);
        expect(failed.status).toBe(422);
        expect(failed.t).toMatchObject({ state: 'gateway_processing_failed', message: 'The cardholder failed 3D Secure authentication.' });
      }
    });

    it('offsite with a sprel method: pending OffsitePurchase with checkout_url, echoing redirect_url, callback_url and the options; complete succeeds', async () => {
      const pm = await sprelMethod();
      const pending = await transact(server.client, format, `gateways/${gateway}/purchase`, {
        payment_method_token: pm, amount: 1234, currency_code: 'EUR', redirect_url: REDIRECT, callback_url: CALLBACK, order_id: 'order-9', description: 'Offsite tea', email: 'joe@example.com',
      });
      expect(pending.status, pending.res.text).toBe(200);
      expect(pending.t).toMatchObject({
        state: 'pending', transaction_type: 'OffsitePurchase', amount: 1234, currency_code: 'EUR', order_id: 'order-9', description: 'Offsite tea', email: 'joe@example.com',
        redirect_url: REDIRECT, callback_url: CALLBACK, checkout_url: `${REDIRECT}?transaction_token=${pending.t.token}`, attempt_3dsecure: false,
        payment_method: { token: pm, payment_method_type: 'sprel' },
      });
      expect((await complete(pending.t.token)).t).toMatchObject({ state: 'succeeded', transaction_type: 'OffsitePurchase' });

      const noRedirect = await transact(server.client, format, `gateways/${gateway}/purchase`, { payment_method_token: pm, amount: 100, currency_code: 'EUR' });
      expect(noRedirect.status).toBe(422);
      expect(noRedirect.t.message).toBe('Offsite payments need a redirect_url.');
    });
  });

  it('without attempt_3dsecure the enrolled card succeeds at once, without 3-D Secure fields', async () => {
    const res = await transact(server.client, 'json', `gateways/${gateway}/purchase`, { payment_method_token: await enrolledCard(), amount: 3004, currency_code: 'USD' });
    expect(res.t.state).toBe('succeeded');
    expect(res.t).not.toHaveProperty('required_action');
  });

  it('advertises 3-D Secure 2 on the test gateway', async () => {
    const characteristics = (await server.client.get(`/v1/gateways/${gateway}.json`)).json().gateway.characteristics;
    expect(characteristics).toMatchObject({ supports_3dsecure_2_purchase: true, supports_3dsecure_2_authorize: true });
  });
});
