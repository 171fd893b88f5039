import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inTransaction } from '../../src/store/repositories.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { addPaymentMethod, createTestGateway, transactionXml } from '../helpers/fixtures.js';

/*
 * Issue 17: events are written in the transaction of the change (a change rolled back leaves no
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
    const row = { key: 'rolled-back-environment', organization_token: server.init.organization_token, name: 'x', production: 0, created_at: now, updated_at: now };
    await expect(
      inTransaction(server.core.store, async (repos) => {
        await repos.environments.insert(row);
        throw new Error('abort');
      }),
    ).rejects.toThrow('abort');
    expect(await eventsOf(row.key)).toEqual([]);
    expect(await server.core.store.db.selectFrom('environments').select('key').where('key', '=', row.key).execute()).toEqual([]);

    await inTransaction(server.core.store, (repos) => repos.environments.insert(row));
    expect((await eventsOf(row.key)).map((event) => [event.event_type, event.request_id, event.created_at])).toEqual([['AddEnvironment', null, now]]);
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
});
