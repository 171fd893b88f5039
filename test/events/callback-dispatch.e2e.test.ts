import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { CallbackDispatcher } from '../../src/services/callbacks/callback-dispatcher.js';
import { openStore, type StoreHandle } from '../../src/store/database.js';
import { repositories } from '../../src/store/repositories.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { deliveriesOf, dispatcherOn, GateReceiver, queueCallbacks, subscribedTenant, until, type Tenant } from './callback-tenants.js';

/*
 * The dispatcher over real HTTP (docs/events.md, "Delivery"): the cap per environment holds with
 * two nodes polling, environments with backlogs are interleaved, a destination that keeps failing
 * is backed off (seen by the other node too) and probed one attempt at a time until it answers,
 * nothing is sent twice by two nodes, and a stop then a start loses nothing. "Two nodes": on
 * PostgreSQL two pools on one database; on SQLite two dispatchers on the one handle a file has.
 */

describe.each(storeKinds)('callback dispatch (%s)', (store) => {
  let server: TestServer;
  let otherHandle: StoreHandle;
  let receivers: GateReceiver[] = [];
  let running: CallbackDispatcher[] = [];

  beforeAll(async () => {
    server = await startServer({ store, env: { COFFER_EGRESS_ALLOW: '127.0.0.1' } });
    otherHandle = store === 'postgres' ? openStore(server.core.config.store) : server.core.store;
  });
  afterAll(async () => {
    if (otherHandle !== server.core.store) await otherHandle.close();
    await server.close();
  });
  afterEach(async () => {
    for (const receiver of receivers) receiver.release();
    for (const dispatcher of running) await dispatcher.stop();
    for (const receiver of receivers) await receiver.close();
    receivers = [];
    running = [];
    // Each test starts from an empty queue: what one left queued would be claimed by the next.
    await server.core.store.db.updateTable('callback_deliveries').set({ state: 'abandoned' }).where('state', '=', 'queued').execute();
    await server.core.store.db.deleteFrom('callback_destinations').execute();
  });

  async function receiver(): Promise<GateReceiver> {
    const started = await GateReceiver.start();
    receivers.push(started);
    return started;
  }

  /** Starts a dispatcher polling every 10 ms; stopped after the test. */
  function poll(dispatcher: CallbackDispatcher): CallbackDispatcher {
    dispatcher.start(10, (error) => expect.fail(String(error)));
    running.push(dispatcher);
    return dispatcher;
  }

  /** Tenant A's callbacks go to a receiver answering as `mode`, tenant B's to one answering at once; A has `queued` queued. */
  async function twoTenants(name: string, mode: GateReceiver['mode'], queued: number) {
    const forA = await receiver();
    forA.mode = mode;
    const forB = await receiver();
    const a = await subscribedTenant(server, `${name}-a-${store}`, `${forA.url}/a`);
    const b = await subscribedTenant(server, `${name}-b-${store}`, `${forB.url}/b`);
    await queueCallbacks(a, queued);
    await queueCallbacks(b, 1);
    return { forA, forB, a, b };
  }

  const delivered = async (tenant: Tenant) => (await deliveriesOf(server, tenant)).filter((d) => d.state === 'delivered').length;

  it('never runs more than perEnvironment attempts of one environment at once, with two nodes polling', async () => {
    const { forA: held, a, b } = await twoTenants('cap', 'hold', 10);
    for (const handle of [server.core.store, otherHandle]) poll(dispatcherOn(server, handle, { timeoutMs: 30_000, perEnvironment: 3, concurrency: 8 }));
    await until(async () => held.holding >= 3 && (await delivered(b)) === 1);
    // More rounds of claims by both nodes: B's next callback goes through them.
    await queueCallbacks(b, 1);
    await until(async () => (await delivered(b)) === 2);
    expect(held.holding).toBe(3);
    expect(new Set(held.received.map((d) => d.deliveryId)).size).toBe(3);
    expect((await deliveriesOf(server, a)).filter((d) => d.claim_id !== null)).toHaveLength(3);
  });

  it('interleaves environments with backlogs: the first attempts are one of each', async () => {
    const held = await receiver();
    held.mode = 'hold';
    const tenants = [];
    for (const name of ['a', 'b', 'c']) tenants.push(await subscribedTenant(server, `fair-${name}-${store}`, `${held.url}/${name}`));
    for (const tenant of tenants) await queueCallbacks(tenant, 6);
    poll(dispatcherOn(server, server.core.store, { timeoutMs: 30_000, perEnvironment: 3, concurrency: 3 }));
    await until(() => held.holding === 3);
    expect(held.received.map((d) => d.target).sort()).toEqual(['/a', '/b', '/c']);
  });

  it('backs off a destination that keeps failing, on every node, without holding the others; tries it again when the block ends; resumes when it answers', async () => {
    // Another environment's destination (B), and the same environment's other one (A's second URL).
    const { forA: bad, forB: good, a } = await twoTenants('breaker', 'fail', 8);
    expect((await server.client.sendJson('PUT', `/v1/environments/${a.key}/callback.json`, { callback: { url: `${good.url}/a2`, format: 'json', event_types: ['AddGateway'] } })).status).toBe(200);
    await queueCallbacks(a, 2);
    const clock = new ManualClock(Date.now());
    const settings = { timeoutMs: 30_000, perEnvironment: 4, backOffAfter: 3 };
    const node = dispatcherOn(server, server.core.store, settings, clock);
    const otherNode = dispatcherOn(server, otherHandle, settings, clock);
    const callbacks = repositories(server.core.store.db, server.core.store.dialect).callbacks;
    const destination = `${bad.url}/a`;

    // The cap's worth fails (and at most the two claimed before the third failure blocks it); the rest waits.
    const failed = (await node.deliverDue()) - 3;
    expect(bad.received).toHaveLength(failed);
    expect(failed).toBeGreaterThanOrEqual(4);
    expect(failed).toBeLessThanOrEqual(4 + 3 - 1);
    expect(good.received.map((d) => d.target).sort()).toEqual(['/a2', '/a2', '/b']);
    const backoff = await callbacks.destination(a.key, destination);
    expect(backoff?.failures).toBe(failed);
    const blockedUntil = Date.parse(backoff?.blockedUntil ?? '');
    expect(blockedUntil).toBeGreaterThan(clock.now().getTime());
    const waiting = (await deliveriesOf(server, a)).filter((d) => d.url === destination && d.attempts === 0);
    expect(waiting).toHaveLength(8 - failed);
    expect(waiting.every((d) => Date.parse(d.next_attempt_at) === blockedUntil)).toBe(true);
    clock.advance(1000);
    expect(await otherNode.deliverDue()).toBe(0);
    expect(bad.received).toHaveLength(failed);

    // The block is over: tried again within the cap, whichever node claims; it answers.
    clock.advance(3_600_000);
    bad.mode = 'hold';
    const retrying = otherNode.deliverDue();
    await until(() => bad.holding === 4);
    expect(await node.deliverDue()).toBe(0);
    bad.release();
    expect(await retrying).toBe(8);
    expect(await callbacks.destination(a.key, destination)).toBeUndefined();
    expect((await deliveriesOf(server, a)).every((d) => d.state === 'delivered')).toBe(true);
    expect([...bad.arrivals().values()].filter((count) => count === 2)).toHaveLength(failed);
  });

  it('two nodes polling at once send every callback exactly once', async () => {
    const quick = await receiver();
    const tenants = [];
    for (const name of ['a', 'b', 'c']) tenants.push(await subscribedTenant(server, `once-${name}-${store}`, `${quick.url}/${name}`));
    for (const tenant of tenants) await queueCallbacks(tenant, 15);
    for (const handle of [server.core.store, otherHandle]) poll(dispatcherOn(server, handle, { timeoutMs: 30_000, concurrency: 4 }));
    for (const tenant of tenants) await until(async () => (await delivered(tenant)) === 15);
    expect(quick.received).toHaveLength(45);
    expect([...quick.arrivals().values()].every((count) => count === 1)).toBe(true);
    for (const tenant of tenants) expect((await deliveriesOf(server, tenant)).every((d) => d.attempts === 1)).toBe(true);
  });

  it('a stop waits for the attempts under way; a new node resumes the queue; nothing is lost or sent twice', async () => {
    const gate = await receiver();
    gate.mode = 'hold';
    const a = await subscribedTenant(server, `restart-${store}`, `${gate.url}/a`);
    await queueCallbacks(a, 12);
    const before = poll(dispatcherOn(server, server.core.store, { timeoutMs: 30_000, perEnvironment: 4 }));
    await until(() => gate.holding === 4);
    const stopping = before.stop();
    gate.release();
    await stopping;
    expect(gate.received).toHaveLength(4);
    const afterStop = await deliveriesOf(server, a);
    expect(afterStop.filter((d) => d.state === 'delivered')).toHaveLength(4);
    expect(afterStop.filter((d) => d.state === 'queued' && d.claim_id === null)).toHaveLength(8);

    poll(dispatcherOn(server, otherHandle, { timeoutMs: 30_000, perEnvironment: 4 }));
    await until(async () => (await delivered(a)) === 12);
    expect(gate.received).toHaveLength(12);
    expect([...gate.arrivals().values()].every((count) => count === 1)).toBe(true);
  });

  it('keys a destination by the first 200 characters of its URL, computed where the callback is queued', async () => {
    const quick = await receiver();
    const url = `${quick.url}/${'x'.repeat(300)}`;
    const a = await subscribedTenant(server, `long-url-${store}`, url);
    await queueCallbacks(a, 1);
    const [row] = await deliveriesOf(server, a);
    expect(row?.url).toBe(url);
    expect(row?.destination).toBe(url.slice(0, 200));
  });
});
