import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/store/repositories.js';
import { hasCallbackSubscription } from '../../src/domain/environment.js';
import { newTransaction, patchEvents, recordTransaction } from '../../src/services/transaction-records.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { addPaymentMethod, createTestGateway, transactionXml } from '../helpers/fixtures.js';

/*
 * Events are written in the transaction of the change (a change rolled back leaves no
 * event), single-use methods record UsePaymentMethod, the feed is rate limited under its own
 * name, and the sweep deletes events past the retention period.
 */

const DAY_MS = 86_400_000;

describe.each(storeKinds)('event journal (%s)', (store) => {
  let server: TestServer;
  const clock = new ManualClock(Date.parse('2030-01-01T00:00:00.000Z'));

  beforeAll(async () => {
    server = await startServer({ store, clock, env: { COFFER_EVENT_RETENTION_DAYS: '30', COFFER_RATE_LIMITS: '{"*":null,"events_list":{"limit":2,"window_seconds":60}}' } });
  });
  afterAll(() => server.close());

  function eventsOf(objectKey: string) {
    return server.core.store.db.selectFrom('events').selectAll().where('object_key', '=', objectKey).orderBy('seq').execute();
  }

  it('a change rolled back leaves no event; a committed one leaves exactly one', async () => {
    const now = clock.now().toISOString();
    const environment = { key: 'rolled-back-environment', organizationToken: server.init.organization_token, name: 'x', production: false, createdAt: now, updatedAt: now };
    const added = { environmentKey: environment.key, eventType: 'AddEnvironment', objectType: 'environment', objectKey: environment.key, at: now } as const;
    await expect(
      inTransaction(server.core.store, async (repos) => {
        await repos.environments.insert(environment);
        await repos.journal.record(added);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await eventsOf(environment.key)).toEqual([]);
    expect(await server.core.store.db.selectFrom('environments').select('key').where('key', '=', environment.key).execute()).toEqual([]);

    await inTransaction(server.core.store, async (repos) => {
      await repos.environments.insert(environment);
      await repos.journal.record(added);
    });
    expect((await eventsOf(environment.key)).map((event) => [event.event_type, event.request_id, event.created_at])).toEqual([['AddEnvironment', null, now]]);
  });

  it('a single-use card records UsePaymentMethod when a purchase consumes it', async () => {
    const environment = await server.core.tenancy.createEnvironment(server.init.organization_token, `single-use-${store}`, false);
    const api = server.client.withAuth({ user: environment.key, password: server.init.access_secret });
    const gateway = await createTestGateway(api);
    const card = (await addPaymentMethod(api, { credit_card: { first_name: 'A', last_name: 'B', number: '4111111111111111', month: 3, year: 2035 } })).payment_method.token;
    await server.core.store.db.updateTable('payment_methods').set({ single_use: 1 }).where('token', '=', card).execute();
    expect((await api.sendXml('POST', `/v1/gateways/${gateway}/purchase.xml`, transactionXml(100, card))).status).toBe(200);
    expect((await eventsOf(card)).map((event) => event.event_type)).toEqual(['AddPaymentMethod', 'UsePaymentMethod']);
  });

  it('GET /v1/events is rate limited under events_list (429 in JSON and XML)', async () => {
    const environment = await server.core.tenancy.createEnvironment(server.init.organization_token, `limited-${store}`, false);
    const api = server.client.withAuth({ user: environment.key, password: server.init.access_secret });
    expect((await api.get('/v1/events.json')).status).toBe(200);
    expect((await api.get('/v1/payment_methods/events.json')).status).toBe(200);
    const json = await api.get('/v1/events.json');
    expect(json.status).toBe(429);
    expect(json.json().errors[0].key).toBe('errors.rate_limited');
    const xml = await api.get('/v1/events.xml');
    expect(xml.status).toBe(429);
    expect(xml.text).toContain('errors.rate_limited');
  });

  it('the sweep deletes events older than the retention period, and only those', async () => {
    const environment = await server.core.tenancy.createEnvironment(server.init.organization_token, `retention-${store}`, false);
    clock.advance(29 * DAY_MS);
    const recent = await server.core.tenancy.createEnvironment(server.init.organization_token, `recent-${store}`, false);
    clock.advance(2 * DAY_MS);
    const result = await server.core.sweeper.sweepOnce();
    expect(result.eventsExpired).toBeGreaterThanOrEqual(1);
    expect(await eventsOf(environment.key)).toEqual([]);
    expect((await eventsOf(recent.key)).map((event) => event.event_type)).toEqual(['AddEnvironment']);
  });
  it('looks for callback destinations only where they can exist, and still queues them where they do', async () => {
    const environment = await server.core.tenancy.createEnvironment(server.init.organization_token, `callback-hint-${store}`, false);
    const db = server.core.store.db;
    const now = clock.now().toISOString();
    await db.updateTable('environments').set({ callback_url: 'https://hooks.example/coffer', callback_format: 'json', callback_event_types: JSON.stringify(['TransactionReconciled']) }).where('key', '=', environment.key).execute();
    const transaction = { ...newTransaction({ token: `cbhint${store}`.padEnd(29, 'x'), environmentKey: environment.key, transactionType: 'Purchase', outcome: 'processing', now }), callbackUrl: 'https://own.example/cb' };
    await inTransaction(server.core.store, (repos) => recordTransaction(repos, transaction));
    const deliveries = async () => (await db.selectFrom('callback_deliveries').select(['kind', 'url']).where('environment_key', '=', environment.key).orderBy('kind').execute()).map((row) => `${row.kind} ${row.url}`);
    expect(await deliveries()).toEqual([]);
    // The write and the events its writer records with it (transaction-records.ts), again and again.
    const succeed = (reconciledAt?: string) =>
      inTransaction(server.core.store, async (repos) => {
        const patch = { state: 'succeeded' as const, updatedAt: now, ...(reconciledAt === undefined ? {} : { reconciledAt }) };
        for (const change of patchEvents(await repos.transactions.update(environment.key, transaction.token, patch), patch)) await repos.journal.record(change);
      });

    // A service that read the environment without a subscription says so: the unit of work does not look for one.
    const reconciled = { environmentKey: environment.key, eventType: 'TransactionReconciled', objectType: 'transaction', objectKey: transaction.token, at: now } as const;
    // `environment` was read (created) before its subscription was set.
    await inTransaction(server.core.store, (repos) => repos.journal.record({ ...reconciled, environmentSubscribed: hasCallbackSubscription(environment) }));
    expect(await deliveries()).toEqual(['transaction https://own.example/cb']);

    // When nothing is known (no environment passed: the sweep, the CLI), the subscription is found.
    await succeed(now);
    expect(await deliveries()).toEqual(['event https://hooks.example/coffer', 'transaction https://own.example/cb', 'transaction https://own.example/cb']);

    // The environment as read with its subscription: the service says so, and the callback is queued.
    const readAfter = await server.core.tenancy.requireEnvironment(environment.key);
    await inTransaction(server.core.store, (repos) => repos.journal.record({ ...reconciled, environmentSubscribed: hasCallbackSubscription(readAfter) }));
    const count = async (kind: string) => (await deliveries()).filter((row) => row.startsWith(`${kind} `)).length;
    expect([await count('event'), await count('transaction')]).toEqual([2, 3]);

    // A transaction whose row has no callback_url gets no delivery of its own (its writer skips the look).
    await db.updateTable('transactions').set({ callback_url: null }).where('token', '=', transaction.token).execute();
    await succeed(now);
    expect([await count('event'), await count('transaction')]).toEqual([3, 3]);
  });
});
