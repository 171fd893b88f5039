import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FaultyGateway, type FaultMode } from '../fakes/faulty-gateway.js';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/**
 * API.md §3 (408, 503) and §8 (timeouts, circuit breaker) against a misbehaving Stripe on
 * 127.0.0.1: real HTTPS in front, a real HTTP exchange behind, a manual clock for the breaker.
 */

const REAL_CARD = '4242424242424242';
const BREAKER_MESSAGE = 'Requests to Stripe are paused after repeated gateway errors. Retry later or use another gateway.';

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await work;
  return { value, ms: performance.now() - started };
}

/** The one `<error>` of an XML error body (fast-xml-parser gives an object for a single child). */
function xmlError(res: ApiResponse): Record<string, string> {
  const error = res.xml().errors.error;
  return Array.isArray(error) ? error[0] : error;
}

describe.each(storeKinds)('gateway faults over HTTPS (%s)', (store) => {
  let fake: FaultyGateway;
  let server: TestServer;
  let live: ApiClient;
  const clock = new ManualClock();

  beforeAll(async () => {
    fake = await FaultyGateway.start();
    server = await startServer({ store, clock, env: { COFFER_GATEWAY_ENDPOINTS: fake.endpoints(), COFFER_EGRESS_ALLOW: '127.0.0.1', COFFER_GATEWAY_TIMEOUT: '1' } });
    const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });
  beforeEach(() => {
    fake.mode = 'ok';
    fake.resetCounters();
  });

  /** A fresh Stripe gateway: the breaker is per gateway, so each test starts closed. */
  async function stripeGateway(): Promise<string> {
    const res = await live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: 'sk_live_x' } });
    expect(res.status).toBe(201);
    return res.json().gateway.token;
  }

  async function realCard(): Promise<string> {
    const res = await live.sendJson('POST', '/v1/payment_methods.json', {
      payment_method: { retained: true, credit_card: { first_name: 'Ada', last_name: 'Lovelace', number: REAL_CARD, verification_value: '123', month: 12, year: 2035 } },
    });
    expect(res.status).toBe(201);
    return res.json().transaction.payment_method.token;
  }

  function purchase(gateway: string, card: string, format: 'json' | 'xml' = 'json', amount = 1000): Promise<ApiResponse> {
    if (format === 'xml') {
      return live.sendXml(
        'POST',
        `/v1/gateways/${gateway}/purchase.xml`,
        `<transaction><amount>${amount}</amount><currency_code>USD</currency_code><payment_method_token>${card}</payment_method_token></transaction>`,
      );
    }
    return live.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount, currency_code: 'USD', payment_method_token: card } });
  }

  /** One purchase with the fake in `mode`. */
  async function purchaseWith(mode: FaultMode, gateway: string, card: string, format: 'json' | 'xml' = 'json'): Promise<ApiResponse> {
    fake.mode = mode;
    return purchase(gateway, card, format);
  }

  async function gatewayTransactions(gateway: string): Promise<Array<{ token: string; state: string }>> {
    const res = await live.get(`/v1/gateways/${gateway}/transactions.json?count=100`);
    expect(res.status).toBe(200);
    return res.json().transactions;
  }

  function expectBreakerOpenJson(res: ApiResponse, retryAfter = 60): void {
    expect(res.status).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['retry-after']).toBe(String(retryAfter));
    expect(res.json()).toEqual({ errors: [{ key: 'errors.circuit_breaker_open', message: BREAKER_MESSAGE, gateway_name: 'Stripe' }] });
  }

  function expectBreakerOpenXml(res: ApiResponse, retryAfter = 60): void {
    expect(res.status).toBe(503);
    expect(res.headers['content-type']).toMatch(/^application\/xml/);
    expect(res.headers['retry-after']).toBe(String(retryAfter));
    // Pretty-printed: compare with the whitespace between elements removed.
    expect(res.text.replace(/>\s+</g, '><')).toContain(`<errors><error key="errors.circuit_breaker_open" gateway_name="Stripe">${BREAKER_MESSAGE}</error></errors>`);
    expect(xmlError(res)).toMatchObject({ '@_key': 'errors.circuit_breaker_open', '@_gateway_name': 'Stripe', '#text': BREAKER_MESSAGE });
  }

  /** Opens the breaker of `gateway` with 5 consecutive faults of mixed kinds. */
  async function openBreaker(gateway: string, card: string): Promise<void> {
    const modes: FaultMode[] = ['status500', 'hang', 'reset', 'garbage', 'status500'];
    for (const mode of modes) {
      const res = await purchaseWith(mode, gateway, card);
      expect(res.status, `fault ${mode}`).toBe(mode === 'hang' || mode === 'reset' ? 408 : 422);
    }
  }

  describe('timeouts and lost connections (408)', () => {
    it('a hanging gateway: 408 within the 1 s timeout, result unknown, persisted, not retried (JSON)', async () => {
      const [gateway, card] = [await stripeGateway(), await realCard()];
      fake.mode = 'hang';
      const { value: res, ms } = await timed(purchase(gateway, card));
      expect(res.status).toBe(408);
      expect(ms).toBeGreaterThanOrEqual(900);
      expect(ms).toBeLessThan(2500);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      const transaction = res.json().transaction;
      expect(transaction).toMatchObject({
        state: 'gateway_processing_result_unknown',
        succeeded: false,
        transaction_type: 'Purchase',
        gateway_token: gateway,
        amount: 1000,
        currency_code: 'USD',
      });
      expect(transaction.token).toMatch(/^[A-Za-z0-9]{29}$/);
      expect(transaction.response).toMatchObject({ success: false, result_unknown: true, error_code: 'processing_error' });
      // A timeout reads as one (its detail the error's name), not as a lost connection with a DOMException's numeric code.
      expect(transaction.response).toMatchObject({ message: 'The gateway did not answer in time.', error_detail: 'TimeoutError' });
      expect(transaction.payment_method.token).toBe(card);

      const shown = await live.get(`/v1/transactions/${transaction.token}.json`);
      expect(shown.status).toBe(200);
      expect(shown.json().transaction).toMatchObject({ token: transaction.token, state: 'gateway_processing_result_unknown', succeeded: false });
      expect(shown.json().transaction.response.result_unknown).toBe(true);

      // Never retried automatically: the fake saw exactly one request, then nothing more.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(fake.requests).toBe(1);
      expect(fake.received[0]).toMatchObject({ method: 'POST', url: '/v1/payment_intents', mode: 'hang' });
      expect(fake.received[0]?.headers['idempotency-key']).toBe(transaction.token);
      expect(fake.received[0]?.headers.authorization).toBe('Bearer sk_live_x');
      expect(fake.hanging).toBe(0);
    });

    it('a hanging gateway in XML: 408 with the full transaction, result_unknown typed boolean', async () => {
      const [gateway, card] = [await stripeGateway(), await realCard()];
      fake.mode = 'hang';
      const { value: res, ms } = await timed(purchase(gateway, card, 'xml'));
      expect(res.status).toBe(408);
      expect(ms).toBeLessThan(2500);
      expect(res.headers['content-type']).toMatch(/^application\/xml/);
      expect(res.text).toContain('<state>gateway_processing_result_unknown</state>');
      expect(res.text).toMatch(/<result_unknown type="boolean">true<\/result_unknown>/);
      const transaction = res.xml().transaction;
      expect(transaction.state).toBe('gateway_processing_result_unknown');
      expect(transaction.succeeded['#text']).toBe('false');
      const shown = await live.get(`/v1/transactions/${transaction.token}.xml`);
      expect(shown.status).toBe(200);
      expect(shown.xml().transaction.state).toBe('gateway_processing_result_unknown');
      expect(fake.requests).toBe(1);
    });

    it('a connection reset after the request was read: 408, result unknown, not retried', async () => {
      const [gateway, card] = [await stripeGateway(), await realCard()];
      const { value: res, ms } = await timed(purchaseWith('reset', gateway, card));
      expect(res.status).toBe(408);
      expect(ms).toBeLessThan(900); // a lost connection is known at once; no timeout is waited for
      expect(res.json().transaction).toMatchObject({ state: 'gateway_processing_result_unknown', succeeded: false });
      expect(res.json().transaction.response.result_unknown).toBe(true);
      const xml = await purchaseWith('reset', gateway, card, 'xml');
      expect(xml.status).toBe(408);
      expect(xml.xml().transaction.state).toBe('gateway_processing_result_unknown');
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(fake.requests).toBe(2);
    });
  });

  describe('gateway errors and declines (422)', () => {
    it('HTTP 500: gateway_processing_failed with error_code processing_error', async () => {
      const [gateway, card] = [await stripeGateway(), await realCard()];
      const res = await purchaseWith('status500', gateway, card);
      expect(res.status).toBe(422);
      const transaction = res.json().transaction;
      expect(transaction).toMatchObject({ state: 'gateway_processing_failed', succeeded: false });
      expect(transaction.response).toMatchObject({ success: false, result_unknown: false, error_code: 'processing_error' });
      expect((await live.get(`/v1/transactions/${transaction.token}.json`)).json().transaction.state).toBe('gateway_processing_failed');
      const xml = await purchaseWith('status500', gateway, card, 'xml');
      expect(xml.status).toBe(422);
      expect(xml.xml().transaction.state).toBe('gateway_processing_failed');
      expect(xml.xml().transaction.response.error_code).toBe('processing_error');
      expect(fake.requests).toBe(2);
    });

    it('a 200 that is not JSON: gateway_processing_failed', async () => {
      const [gateway, card] = [await stripeGateway(), await realCard()];
      const res = await purchaseWith('garbage', gateway, card);
      expect(res.status).toBe(422);
      expect(res.json().transaction).toMatchObject({ state: 'gateway_processing_failed', succeeded: false });
      expect(res.json().transaction.response).toMatchObject({ result_unknown: false, error_code: 'processing_error' });
      expect(fake.requests).toBe(1);
    });

    it('a 402 card_error: a decline, gateway_processing_failed with card_declined', async () => {
      const [gateway, card] = [await stripeGateway(), await realCard()];
      const res = await purchaseWith('decline', gateway, card);
      expect(res.status).toBe(422);
      const transaction = res.json().transaction;
      expect(transaction).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, message: 'Your card was declined.' });
      expect(transaction.response).toMatchObject({ success: false, result_unknown: false, error_code: 'card_declined' });
      expect(fake.requests).toBe(1);
    });

    it('a working gateway: 200 succeeded (the fake answers a PaymentIntent)', async () => {
      const [gateway, card] = [await stripeGateway(), await realCard()];
      const res = await purchase(gateway, card);
      expect(res.status).toBe(200);
      expect(res.json().transaction).toMatchObject({ state: 'succeeded', succeeded: true, gateway_transaction_id: expect.stringMatching(/^pi_/) });
    });
  });

  describe('circuit breaker (API.md §8)', () => {
    it('opens after 5 consecutive faults: 503 circuit_breaker_open, Retry-After 60, nothing sent, nothing persisted', async () => {
      const [gateway, card] = [await stripeGateway(), await realCard()];
      await openBreaker(gateway, card);
      expect(fake.requests).toBe(5);
      const [connections, requests] = [fake.connections, fake.requests];
      fake.mode = 'ok';

      const { value: json, ms } = await timed(purchase(gateway, card));
      expectBreakerOpenJson(json);
      expect(ms).toBeLessThan(500);
      expectBreakerOpenXml(await purchase(gateway, card, 'xml'));
      // Authorize goes through the same breaker.
      const authorize = await live.sendJson('POST', `/v1/gateways/${gateway}/authorize.json`, { transaction: { amount: 5, currency_code: 'USD', payment_method_token: card } });
      expectBreakerOpenJson(authorize);

      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(fake.connections).toBe(connections);
      expect(fake.requests).toBe(requests);
      expect(await gatewayTransactions(gateway)).toHaveLength(5);

      // Another gateway of the same type is not affected.
      const other = await stripeGateway();
      expect((await purchase(other, card)).status).toBe(200);
    });

    it('4 faults do not open it; the 5th does', async () => {
      const [gateway, card] = [await stripeGateway(), await realCard()];
      for (const mode of ['reset', 'status500', 'garbage', 'reset'] as const) expect((await purchaseWith(mode, gateway, card)).status).not.toBe(503);
      expect((await purchaseWith('status500', gateway, card)).status).toBe(422); // 5th fault: reaches the gateway
      expect(fake.requests).toBe(5);
      expectBreakerOpenJson(await purchaseWith('ok', gateway, card));
      expect(fake.requests).toBe(5);
    });

    it('declines never count: 10 declines in a row and the breaker is still closed', async () => {
      const [gateway, card] = [await stripeGateway(), await realCard()];
      for (let i = 0; i < 10; i += 1) {
        const res = await purchaseWith('decline', gateway, card);
        expect(res.status).toBe(422);
        expect(res.json().transaction.state).toBe('gateway_processing_failed');
      }
      // 4 faults on top of 10 declines still leave it closed.
      for (let i = 0; i < 4; i += 1) expect((await purchaseWith('status500', gateway, card)).status).toBe(422);
      const res = await purchaseWith('ok', gateway, card);
      expect(res.status).toBe(200);
      expect(fake.requests).toBe(15);
    });

    it('a decline between faults does not break the run either: it closes it (an answer is a success)', async () => {
      const [gateway, card] = [await stripeGateway(), await realCard()];
      for (let i = 0; i < 4; i += 1) expect((await purchaseWith('status500', gateway, card)).status).toBe(422);
      expect((await purchaseWith('decline', gateway, card)).status).toBe(422);
      for (let i = 0; i < 4; i += 1) expect((await purchaseWith('reset', gateway, card)).status).toBe(408);
      expect((await purchaseWith('ok', gateway, card)).status).toBe(200);
      expect(fake.requests).toBe(10);
    });

    it('a success resets the count', async () => {
      const [gateway, card] = [await stripeGateway(), await realCard()];
      for (let i = 0; i < 4; i += 1) expect((await purchaseWith('status500', gateway, card)).status).toBe(422);
      expect((await purchaseWith('ok', gateway, card)).status).toBe(200);
      for (let i = 0; i < 4; i += 1) expect((await purchaseWith('status500', gateway, card)).status).toBe(422);
      expect((await purchaseWith('ok', gateway, card)).status).toBe(200);
      expect(fake.requests).toBe(10);
    });

    it('after 60 s exactly one probe goes through; its failure re-opens for 60 s; a successful probe closes it', async () => {
      const [gateway, card] = [await stripeGateway(), await realCard()];
      await openBreaker(gateway, card);
      const faults = fake.requests;

      clock.advance(30_000);
      expectBreakerOpenJson(await purchaseWith('ok', gateway, card), 30);
      clock.advance(29_500);
      expectBreakerOpenJson(await purchase(gateway, card), 1);
      expect(fake.requests).toBe(faults);

      // The window is over: two concurrent calls, the gateway hangs. One is the probe, one is refused.
      clock.advance(500);
      fake.mode = 'hang';
      const connectionsBefore = fake.connections;
      const [first, second] = await Promise.all([purchase(gateway, card), purchase(gateway, card)]);
      const statuses = [first.status, second.status].sort();
      expect(statuses).toEqual([408, 503]);
      const refused = first.status === 503 ? first : second;
      expectBreakerOpenJson(refused);
      expect(fake.requests).toBe(faults + 1);
      expect(fake.connections).toBeLessThanOrEqual(connectionsBefore + 1);

      // The probe failed: open again for a full 60 s, nothing sent.
      fake.mode = 'ok';
      expectBreakerOpenJson(await purchase(gateway, card), 60);
      expectBreakerOpenXml(await purchase(gateway, card, 'xml'), 60);
      clock.advance(59_000);
      expectBreakerOpenJson(await purchase(gateway, card), 1);
      expect(fake.requests).toBe(faults + 1);

      // After another 60 s a successful probe closes it; calls flow again.
      clock.advance(1_000);
      const probe = await purchase(gateway, card);
      expect(probe.status).toBe(200);
      expect(probe.json().transaction.state).toBe('succeeded');
      const after = await Promise.all([purchase(gateway, card), purchase(gateway, card, 'xml')]);
      expect(after.map((res) => res.status)).toEqual([200, 200]);
      expect(fake.requests).toBe(faults + 4);
      // 5 faults + the failed probe + the successful probe + 2: the 503s left nothing behind.
      expect(await gatewayTransactions(gateway)).toHaveLength(9);
    });
  });

  describe('endpoint overrides go through the egress guard (no COFFER_EGRESS_ALLOW)', () => {
    let guarded: FaultyGateway;
    let strict: TestServer;
    let strictLive: ApiClient;

    beforeAll(async () => {
      guarded = await FaultyGateway.start();
      strict = await startServer({ store, env: { COFFER_GATEWAY_ENDPOINTS: guarded.endpoints(), COFFER_GATEWAY_TIMEOUT: '5' } });
      const production = await strict.core.tenancy.createEnvironment(strict.init.organization_token, 'live', true);
      strictLive = strict.client.withAuth({ user: production.key, password: strict.init.access_secret });
    });
    afterAll(async () => {
      await strict?.close();
      await guarded?.close();
    });

    it('an override to 127.0.0.1 is refused: 422 gateway_processing_failed, not result unknown, and nothing reaches the fake', async () => {
      const gateway = (await strictLive.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: 'sk_live_x' } })).json().gateway.token as string;
      const card = (
        await strictLive.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { first_name: 'A', last_name: 'B', number: REAL_CARD, month: 12, year: 2035 } } })
      ).json().transaction.payment_method.token as string;
      const buy = (format: 'json' | 'xml') =>
        format === 'json'
          ? strictLive.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: card } })
          : strictLive.sendXml('POST', `/v1/gateways/${gateway}/purchase.xml`, `<transaction><amount>100</amount><currency_code>USD</currency_code><payment_method_token>${card}</payment_method_token></transaction>`);

      const { value: res, ms } = await timed(buy('json'));
      expect(res.status).toBe(422);
      expect(ms).toBeLessThan(2000); // refused before any connection: no timeout is waited for
      const transaction = res.json().transaction;
      expect(transaction).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, message: 'Unable to connect to the gateway.' });
      expect(transaction.response).toMatchObject({ success: false, result_unknown: false, error_code: 'processing_error', error_detail: 'egress refused (loopback address)' });
      const transcript = await strictLive.get(`/v1/transactions/${transaction.token}/transcript`);
      expect(transcript.status).toBe(200);
      expect(transcript.text).toContain('[!!] egress refused (loopback address)');
      expect(transcript.text).not.toContain(REAL_CARD);

      const xml = await buy('xml');
      expect(xml.status).toBe(422);
      expect(xml.xml().transaction.state).toBe('gateway_processing_failed');
      expect(xml.xml().transaction.message).toBe('Unable to connect to the gateway.');

      expect(guarded.connections).toBe(0);
      expect(guarded.requests).toBe(0);
    });
  });

  describe('one slow gateway never slows the others', () => {
    let busyFake: FaultyGateway;
    let busy: TestServer;
    let busyLive: ApiClient;

    beforeAll(async () => {
      busyFake = await FaultyGateway.start('hang');
      // A long timeout, so the hanging calls stay in flight for the whole test.
      busy = await startServer({ store, env: { COFFER_GATEWAY_ENDPOINTS: busyFake.endpoints(), COFFER_EGRESS_ALLOW: '127.0.0.1', COFFER_GATEWAY_TIMEOUT: '20', COFFER_GATEWAY_MAX_IN_FLIGHT: '2' } });
      const production = await busy.core.tenancy.createEnvironment(busy.init.organization_token, 'live', true);
      busyLive = busy.client.withAuth({ user: production.key, password: busy.init.access_secret });
    });
    afterAll(async () => {
      await busy?.close();
      await busyFake?.close();
    });

    it('caps calls in flight per gateway (503 gateway_busy at once) while the test gateway answers promptly', async () => {
      const stripe = (await busyLive.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: 'sk_live_x' } })).json().gateway.token as string;
      const card = (
        await busyLive.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { first_name: 'A', last_name: 'B', number: REAL_CARD, month: 12, year: 2035 } } })
      ).json().transaction.payment_method.token as string;
      const testGateway = (await busy.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } })).json().gateway.token as string;
      const testCard = (
        await busy.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { first_name: 'A', last_name: 'B', number: '4111111111111111', month: 12, year: 2035 } } })
      ).json().transaction.payment_method.token as string;
      const buy = (client: ApiClient, gateway: string, pm: string) =>
        client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: pm } });

      const started = performance.now();
      let settled = 0;
      const hanging = [buy(busyLive, stripe, card), buy(busyLive, stripe, card)].map((call) =>
        call.finally(() => {
          settled += 1;
        }),
      );
      await busyFake.waitForRequests(2);
      expect(busyFake.hanging).toBe(2);

      const { value: refused, ms: refusedMs } = await timed(buy(busyLive, stripe, card));
      expect(refused.status).toBe(503);
      expect(refusedMs).toBeLessThan(500);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.json()).toEqual({
        errors: [{ key: 'errors.gateway_busy', message: 'Too many requests to Stripe are in progress. Retry shortly.', gateway_name: 'Stripe' }],
      });
      const refusedXml = await busyLive.sendXml(
        'POST',
        `/v1/gateways/${stripe}/purchase.xml`,
        `<transaction><amount>100</amount><currency_code>USD</currency_code><payment_method_token>${card}</payment_method_token></transaction>`,
      );
      expect(refusedXml.status).toBe(503);
      expect(xmlError(refusedXml)).toMatchObject({ '@_key': 'errors.gateway_busy', '@_gateway_name': 'Stripe' });

      // Meanwhile the built-in test gateway (in the test environment) answers at once.
      for (let i = 0; i < 5; i += 1) {
        const { value: res, ms } = await timed(buy(busy.client, testGateway, testCard));
        expect(res.status).toBe(200);
        expect(res.json().transaction.state).toBe('succeeded');
        expect(ms).toBeLessThan(500);
      }
      expect(settled).toBe(0);
      expect(busyFake.hanging).toBe(2);
      expect(busyFake.requests).toBe(2);
      expect(performance.now() - started).toBeLessThan(10_000);

      // The gateway drops them: both come back 408 and the slots are free again.
      busyFake.dropHung();
      const results = await Promise.all(hanging);
      expect(results.map((res) => res.status)).toEqual([408, 408]);
      busyFake.mode = 'ok';
      expect((await buy(busyLive, stripe, card)).status).toBe(200);
      // Persisted: the two unknown outcomes and the success; the 503s left nothing behind.
      const listed = (await busyLive.get(`/v1/gateways/${stripe}/transactions.json`)).json().transactions.map((t: { state: string }) => t.state);
      expect(listed.sort()).toEqual(['gateway_processing_result_unknown', 'gateway_processing_result_unknown', 'succeeded']);
    });
  });
});
