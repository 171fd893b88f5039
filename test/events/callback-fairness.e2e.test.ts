import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallbackDispatcher } from '../../src/services/callbacks/callback-dispatcher.js';
import { openStore, type StoreHandle } from '../../src/store/database.js';
import { RecordingReceiver } from '../fakes/recording-receiver.js';
import { postgresUrl, storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { attemptsRecorded, deliveriesOf, dispatcherOn, queueCallbacks, subscribedTenant, until } from './callback-tenants.js';

/*
 * One tenant's never-answering callback URL must not delay another tenant's callbacks
 * (docs/events.md, "Delivery"): tenant A has 50 callbacks queued to a server that accepts the
 * connection and never answers, each attempt allowed 20 s; tenant B then has one callback to a
 * server that answers at once. B must be delivered while every attempt of A is still waiting for
 * its answer: no attempt of A has ended (none is recorded) when B's callback arrives. That is the
 * behavioural proof that B did not queue behind A (before, one node sent A's 20 oldest one after
 * another, B after them). On one node, and on two nodes sharing PostgreSQL.
 */

const NEVER_ANSWERED_MS = 20_000;

/** Runs the attack against `nodes` (dispatchers polling the server's database) and checks what held when B arrived. */
async function attack(server: TestServer, name: string, nodes: CallbackDispatcher[]): Promise<void> {
  const stuck = await RecordingReceiver.start();
  stuck.answer = { kind: 'hang' };
  const quick = await RecordingReceiver.start();
  try {
    const a = await subscribedTenant(server, `${name}-a`, `${stuck.url}/a`);
    const b = await subscribedTenant(server, `${name}-b`, `${quick.url}/b`);
    await queueCallbacks(a, 50);
    await queueCallbacks(b, 1);
    expect((await deliveriesOf(server, a)).filter((d) => d.state === 'queued')).toHaveLength(50);

    for (const dispatcher of nodes) dispatcher.start(25, (error) => expect.fail(String(error)));
    // Until B is delivered (and recorded) with A's attempts under way, or one attempt of A ends (B queued behind it).
    const delivered = async () => (await deliveriesOf(server, b))[0]?.state === 'delivered';
    await until(async () => (stuck.received.length >= 1 && (await delivered())) || (await attemptsRecorded(server, a)) > 0);

    expect(quick.received.map((d) => d.target)).toEqual(['/b']);
    expect(await attemptsRecorded(server, a)).toBe(0);
    expect(stuck.received.length).toBeGreaterThan(0);
    expect(stuck.received.every((d) => d.target === '/a')).toBe(true);
    expect(await delivered()).toBe(true);
  } finally {
    // Closing the stuck server ends A's attempts at once, so stopping does not wait 20 s.
    await stuck.close();
    for (const dispatcher of nodes) await dispatcher.stop();
    await quick.close();
  }
}

describe.each(storeKinds)('a tenant whose callback URL never answers, one node (%s)', (store) => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startServer({ store, env: { COFFER_EGRESS_ALLOW: '127.0.0.1' } });
  });
  afterAll(async () => {
    await server.close();
  });

  it("another tenant's callback is delivered while all of its attempts are still waiting", async () => {
    await attack(server, `one-node-${store}`, [dispatcherOn(server, server.core.store, { timeoutMs: NEVER_ANSWERED_MS })]);
  }, 90_000);
});

if (postgresUrl !== null)
  describe('a tenant whose callback URL never answers, two nodes on one PostgreSQL', () => {
    let server: TestServer;
    const handles: StoreHandle[] = [];

    beforeAll(async () => {
      server = await startServer({ store: 'postgres', env: { COFFER_EGRESS_ALLOW: '127.0.0.1' } });
      // Two pools, as two nodes have.
      handles.push(openStore(server.core.config.store), openStore(server.core.config.store));
    });
    afterAll(async () => {
      for (const handle of handles) await handle.close();
      await server.close();
    });

    it("another tenant's callback is delivered while all of its attempts are still waiting", async () => {
      await attack(
        server,
        'two-nodes',
        handles.map((handle) => dispatcherOn(server, handle, { timeoutMs: NEVER_ANSWERED_MS })),
      );
    }, 90_000);
  });
