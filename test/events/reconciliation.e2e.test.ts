import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiClient } from '../helpers/client.js';
import { addPaymentMethod, createTestGateway } from '../helpers/fixtures.js';
import { FORMATS, plain, transact } from '../helpers/gateway-e2e.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { startFakeStripe, type FakeStripe } from '../fakes/fake-stripe.js';
import { RecordingReceiver } from '../fakes/recording-receiver.js';

/*
 * Reconciliation of gateway_processing_result_unknown from the sweep (docs/events.md): a timed-out
 * test-gateway purchase that went through (reconciled, event, callback, single-use card used), one
 * that never arrived (not charged, only once "not found" is believable), and a Stripe purchase
 * whose answer was lost (the fake's search answers late, then knows the PaymentIntent).
 */

const TIMEOUT_CARD = '4000000000000408';
const LIVE_KEY = 'sk_live_CofferReconcileFakeKey000001';
const MINUTE = 60_000;

/** GET /v1/transactions/<t> in `format`, as plain values. */
async function show(api: ApiClient, token: string, format: 'json' | 'xml'): Promise<any> {
  const res = await api.get(`/v1/transactions/${token}.${format}`);
  expect(res.status).toBe(200);
  return format === 'json' ? res.json().transaction : plain(res.xml().transaction);
}

async function eventTypes(api: ApiClient, objectKey: string): Promise<string[]> {
  const events = (await api.get('/v1/events.json?order=asc&count=100')).json().events as Array<{ object_key: string; event_type: string }>;
  return events.filter((event) => event.object_key === objectKey).map((event) => event.event_type);
}

describe.each(storeKinds)('reconciliation of unknown results (%s)', (store) => {
  let server: TestServer;
  let fake: FakeStripe;
  let receiver: RecordingReceiver;
  const clock = new ManualClock(Date.parse('2032-03-01T09:00:00.000Z'));

  beforeAll(async () => {
    fake = await startFakeStripe([LIVE_KEY]);
    receiver = await RecordingReceiver.start();
    server = await startServer({
      store,
      clock,
      env: { COFFER_GATEWAY_ENDPOINTS: JSON.stringify({ stripe: fake.url }), COFFER_EGRESS_ALLOW: '127.0.0.1', COFFER_GATEWAY_TIMEOUTS: JSON.stringify({ stripe: 1 }) },
    });
  });
  afterAll(async () => {
    await server.close();
    await fake.close();
    await receiver.close();
  });
  beforeEach(() => {
    receiver.received.length = 0;
  });

  it('gateways_options says which gateways can reconcile', async () => {
    const gateways = (await server.client.get('/v1/gateways_options.json', { auth: null })).json().gateways as Array<{ gateway_type: string; characteristics: Record<string, boolean> }>;
    const reconciles = Object.fromEntries(gateways.map((g) => [g.gateway_type, g.characteristics.supports_reconciliation]));
    expect(reconciles).toMatchObject({ test: true, stripe: true, adyen: false });
  });

  describe('test gateway', () => {
    let api: ApiClient;
    let gateway: string;

    beforeAll(async () => {
      const environment = await server.core.tenancy.createEnvironment(server.init.organization_token, `reconcile-${store}`, false);
      api = server.client.withAuth({ user: environment.key, password: server.init.access_secret });
      gateway = await createTestGateway(api);
    });

    it.each(FORMATS)('a timed-out purchase that went through is reconciled as succeeded (%s), with event, callback and the 408 kept', async (format) => {
      const card = (await addPaymentMethod(api, { credit_card: { first_name: 'A', last_name: 'B', number: '4111111111111111', month: 3, year: 2035 } })).payment_method.token;
      await server.core.store.db.updateTable('payment_methods').set({ single_use: 1 }).where('token', '=', card).execute();
      const timedOut = await transact(api, format, `gateways/${gateway}/purchase`, { payment_method_token: card, amount: 4080, currency_code: 'USD', callback_url: `${receiver.url}/reconciled`, callback_format: format });
      expect(timedOut.status).toBe(408);
      expect(timedOut.t.state).toBe('gateway_processing_result_unknown');

      const swept = await server.core.sweeper.sweepOnce();
      expect(swept.reconciled).toBeGreaterThanOrEqual(1);
      const shown = { t: await show(api, timedOut.t.token, format) };
      expect(shown.t).toMatchObject({ token: timedOut.t.token, state: 'succeeded', succeeded: true, amount: 4080, message: 'Succeeded!' });
      expect(shown.t.gateway_transaction_id).toMatch(/^\d+$/);
      expect(await eventTypes(api, timedOut.t.token)).toEqual(['TransactionCreated', 'TransactionResultUnknown', 'TransactionReconciled']);
      const row = await server.core.store.db.selectFrom('transactions').selectAll().where('token', '=', timedOut.t.token).executeTakeFirstOrThrow();
      expect(JSON.parse(row.details ?? '{}').reconciliation).toMatchObject({ outcome: 'succeeded', original: { state: 'gateway_processing_result_unknown' } });
      const method = await server.core.store.db.selectFrom('payment_methods').select('storage_state').where('token', '=', card).executeTakeFirstOrThrow();
      expect(method.storage_state).toBe('used');

      await server.core.callbacks.deliverDue();
      const posted = receiver.received.filter((d) => d.target === '/reconciled');
      expect(posted).toHaveLength(1);
      expect(posted[0]?.body).toContain(timedOut.t.token);
      expect(posted[0]?.headers['content-type']).toBe(format === 'json' ? 'application/json' : 'application/xml');
    });

    it('a purchase that never arrived is recorded as not charged, but only once "not found" is believable', async () => {
      const card = (await addPaymentMethod(api, { credit_card: { first_name: 'A', last_name: 'B', number: TIMEOUT_CARD, month: 3, year: 2035 } })).payment_method.token;
      const timedOut = await transact(api, 'json', `gateways/${gateway}/purchase`, { payment_method_token: card, amount: 100, currency_code: 'USD' });
      expect(timedOut.status).toBe(408);
      await server.core.sweeper.sweepOnce();
      expect((await show(api, timedOut.t.token, 'json')).state).toBe('gateway_processing_result_unknown');

      clock.advance(11 * MINUTE);
      await server.core.sweeper.sweepOnce();
      const shown = { t: await show(api, timedOut.t.token, 'xml') };
      expect(shown.t).toMatchObject({ state: 'gateway_processing_failed', succeeded: false, message: 'The gateway never received this transaction; nothing was charged.' });
      expect(await eventTypes(api, timedOut.t.token)).toEqual(['TransactionCreated', 'TransactionResultUnknown', 'TransactionReconciled']);
    });

    it('stops asking after the window; a declined or succeeded transaction is never asked about', async () => {
      const card = (await addPaymentMethod(api, { credit_card: { first_name: 'A', last_name: 'B', number: TIMEOUT_CARD, month: 3, year: 2035 } })).payment_method.token;
      const timedOut = await transact(api, 'json', `gateways/${gateway}/purchase`, { payment_method_token: card, amount: 100, currency_code: 'USD' });
      clock.advance(25 * 60 * MINUTE);
      await server.core.sweeper.sweepOnce();
      const row = await server.core.store.db.selectFrom('transactions').selectAll().where('token', '=', timedOut.t.token).executeTakeFirstOrThrow();
      expect(row.state).toBe('gateway_processing_result_unknown');
      expect(row.reconcile_next_at).toBeNull();
      const others = await server.core.store.db.selectFrom('transactions').select('token').where('state', '=', 'succeeded').where('reconcile_next_at', 'is not', null).execute();
      expect(others).toEqual([]);
    });
  });

  describe('Stripe', () => {
    it('a purchase whose answer was lost: search answers late (not yet indexed), then finds the PaymentIntent', async () => {
      const production = await server.core.tenancy.createEnvironment(server.init.organization_token, `reconcile-live-${store}`, true);
      const live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
      const created = await live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: LIVE_KEY } });
      const gateway = created.json().gateway.token;
      const card = (await addPaymentMethod(live, { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number: '4242424242424242', verification_value: '123', month: 12, year: 2034 } })).payment_method.token;

      fake.answersLost = true;
      fake.searchLag = 2;
      const lost = await transact(live, 'json', `gateways/${gateway}/purchase`, { payment_method_token: card, amount: 2500, currency_code: 'EUR' });
      fake.answersLost = false;
      expect(lost.status).toBe(408);
      const intent = [...fake.intents.values()].find((candidate) => (candidate.json.metadata as Record<string, string>).coffer_transaction === lost.t.token);
      expect(intent?.json.status).toBe('succeeded');

      // Twice not indexed yet: an early "not found" is not believed, the lookup is retried with backoff.
      await server.core.sweeper.sweepOnce();
      clock.advance(MINUTE);
      await server.core.sweeper.sweepOnce();
      expect((await show(live, lost.t.token, 'json')).state).toBe('gateway_processing_result_unknown');
      clock.advance(2 * MINUTE);
      await server.core.sweeper.sweepOnce();

      const shown = { t: await show(live, lost.t.token, 'xml') };
      expect(shown.t).toMatchObject({ state: 'succeeded', succeeded: true, amount: 2500, gateway_transaction_id: intent?.json.id });
      const searches = fake.requests.filter((request) => request.path === '/v1/payment_intents/search');
      expect(searches).toHaveLength(3);
      expect(searches[0]?.query.query).toBe(`metadata['coffer_transaction']:'${lost.t.token}'`);
      // Lookups are GETs: nothing was sent again, no second charge.
      expect(fake.requestsWithKey(lost.t.token)).toHaveLength(1);
      expect(await eventTypes(live, lost.t.token)).toEqual(['TransactionCreated', 'TransactionResultUnknown', 'TransactionReconciled']);
    });
  });
});
