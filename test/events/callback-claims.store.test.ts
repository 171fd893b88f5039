import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { migrateStore, openStore, type StoreHandle } from '../../src/store/database.js';
import { DELIVERY_WINDOW_MS, type AttemptResult, type ClaimResult, type DueClaim } from '../../src/store/repositories/callbacks.repo.js';
import { repositories, type Repositories } from '../../src/store/repositories.js';
import { createPostgresDatabase, storeKinds } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';
import type { CallbackDelivery } from '../../src/domain/callback.js';

/*
 * The store contract of the callback queue's fair claim and per-destination backoff
 * (callbacks.repo.ts; docs/events.md, "Delivery"), on SQLite and PostgreSQL: the cap per
 * environment counts every claimer's leases, environments are interleaved, two claimers never get
 * the same row, a lapsed lease is claimed again, a failing destination is blocked and then probed
 * one attempt at a time, and deliveries past their 24 hours are abandoned.
 */

const T0 = Date.parse('2031-01-01T00:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();

describe.each(storeKinds)('callback claims on %s', (kind) => {
  let first: StoreHandle;
  /** Another node's handle: its own pool on PostgreSQL; on SQLite the same file's only handle. */
  let second: StoreHandle;
  let repos: Repositories;
  let other: Repositories;
  let cleanup: () => Promise<void>;

  beforeAll(async () => {
    if (kind === 'sqlite') {
      const temp = tempDir('coffer-claims-');
      first = openStore({ kind: 'sqlite', path: path.join(temp.dir, 'coffer.sqlite') });
      second = first;
      cleanup = async () => {
        await first.close();
        temp.cleanup();
      };
    } else {
      const database = await createPostgresDatabase();
      first = openStore({ kind: 'postgres', url: database.url });
      second = openStore({ kind: 'postgres', url: database.url });
      cleanup = async () => {
        await first.close();
        await second.close();
        await database.drop();
      };
    }
    await migrateStore(first);
    repos = repositories(first.db, first.dialect);
    other = repositories(second.db, second.dialect);
  });
  afterAll(() => cleanup());
  beforeEach(async () => {
    await first.db.deleteFrom('callback_deliveries').execute();
    await first.db.deleteFrom('callback_attempts').execute();
    await first.db.deleteFrom('callback_destinations').execute();
  });

  /** Queues `count` deliveries of `environment` to `url`, due from `dueAt` (1 ms apart, in order). */
  async function queue(environment: string, url: string, count: number, dueAt = at(0)): Promise<string[]> {
    const tokens = Array.from({ length: count }, () => `cd_${randomBytes(8).toString('hex')}`);
    for (const [index, token] of tokens.entries()) {
      const due = new Date(Date.parse(dueAt) + index).toISOString();
      await first.db
        .insertInto('callback_deliveries')
        .values({
          token,
          environment_key: environment,
          event_token: `ev_${token}`,
          kind: 'event',
          url,
          destination: url,
          format: 'json',
          state: 'queued',
          attempts: 0,
          next_attempt_at: due,
          give_up_at: new Date(Date.parse(due) + DELIVERY_WINDOW_MS).toISOString(),
          created_at: due,
          updated_at: due,
        })
        .execute();
    }
    return tokens;
  }

  function claimResult(overrides: Partial<DueClaim> = {}, on: Repositories = repos): Promise<ClaimResult> {
    return on.callbacks.claimDue({ now: at(1000), leaseUntil: at(61_000), claimId: `claim-${randomBytes(4).toString('hex')}`, slots: 32, perEnvironment: 4, ...overrides });
  }

  async function claim(overrides: Partial<DueClaim> = {}, on: Repositories = repos): Promise<CallbackDelivery[]> {
    return (await claimResult(overrides, on)).claimed;
  }

  async function dueAt(tokens: string[]): Promise<string[]> {
    const rows = await first.db.selectFrom('callback_deliveries').select(['token', 'next_attempt_at']).where('token', 'in', tokens).execute();
    return tokens.map((token) => rows.find((row) => row.token === token)?.next_attempt_at ?? '');
  }

  /** Records a failed attempt (blocked from the third consecutive failure until `blockedUntil`), or a delivered one. */
  function finish(delivery: CallbackDelivery, outcome: 'failed' | 'delivered', when = at(2000), blockedUntil = at(60_000), on: Repositories = repos): Promise<boolean> {
    const result: AttemptResult = {
      status: outcome === 'delivered' ? 200 : 500,
      latencyMs: 1,
      error: outcome === 'delivered' ? null : 'HTTP 500',
      state: outcome === 'delivered' ? 'delivered' : 'queued',
      nextAttemptAt: at(5000),
      at: when,
      destination: outcome === 'delivered' ? { outcome: 'delivered' } : { outcome: 'failed', blockedUntil: (failures) => (failures >= 3 ? blockedUntil : null) },
    };
    return on.callbacks.finishAttempt(delivery, delivery.claimId ?? '', result);
  }

  const environments = (rows: CallbackDelivery[]) => rows.map((row) => row.environmentKey);

  it('claims what is due, oldest first; not what is not due yet', async () => {
    const due = await queue('env-a', 'https://a.example/hook', 2);
    await queue('env-a', 'https://a.example/hook', 1, at(5000));
    const claimed = await claim();
    expect(claimed.map((row) => row.token)).toEqual(due);
    expect(claimed.every((row) => row.claimedUntil === at(61_000))).toBe(true);
  });

  it('claims at most perEnvironment of one environment at once, counting the leases of every claimer', async () => {
    const tokens = await queue('env-a', 'https://a.example/hook', 10);
    const firstClaim = await claim({ perEnvironment: 3 });
    expect(firstClaim.map((row) => row.token)).toEqual(tokens.slice(0, 3));
    // Another node: the three leases of the first count against the environment's cap.
    expect(await claim({ perEnvironment: 3 }, other)).toEqual([]);
    expect(await finish(firstClaim[0] as CallbackDelivery, 'delivered')).toBe(true);
    expect((await claim({ perEnvironment: 3, now: at(3000) }, other)).map((row) => row.token)).toEqual([tokens[3]]);
  });

  it('interleaves environments: each one’s oldest due delivery before anyone’s second', async () => {
    // A's backlog is older than everyone else's.
    await queue('env-a', 'https://a.example/hook', 20, at(0));
    await queue('env-b', 'https://b.example/hook', 5, at(100));
    await queue('env-c', 'https://c.example/hook', 5, at(200));
    expect(environments(await claim({ slots: 3 }))).toEqual(['env-a', 'env-b', 'env-c']);
    expect(environments(await claim({ slots: 4 }))).toEqual(['env-a', 'env-b', 'env-c', 'env-a']);
  });

  it('two claimers at once never get the same delivery, and together keep each environment within its cap', async () => {
    for (const environment of ['env-a', 'env-b', 'env-c']) await queue(environment, `https://${environment}.example/hook`, 10);
    const claims = await Promise.all(Array.from({ length: 8 }, (_, index) => claim({ slots: 2, perEnvironment: 3 }, index % 2 === 0 ? repos : other)));
    const tokens = claims.flat().map((row) => row.token);
    expect(new Set(tokens).size).toBe(tokens.length);
    const perEnvironment = new Map<string, number>();
    for (const row of claims.flat()) perEnvironment.set(row.environmentKey, (perEnvironment.get(row.environmentKey) ?? 0) + 1);
    expect([...perEnvironment.values()]).toEqual([3, 3, 3]);
  });

  it('a lease that ran out is claimed again, and its first claimer can no longer record the attempt', async () => {
    await queue('env-a', 'https://a.example/hook', 1);
    const [stale] = await claim({ leaseUntil: at(2000) });
    expect(await claim({ now: at(1500) })).toEqual([]);
    const [again] = await claim({ now: at(2500) }, other);
    expect(again?.token).toBe(stale?.token);
    expect(await finish(stale as CallbackDelivery, 'delivered')).toBe(false);
    expect(await finish(again as CallbackDelivery, 'delivered', at(3000), at(60_000), other)).toBe(true);
    expect(await repos.callbacks.attempts([again?.token ?? ''])).toHaveLength(1);
  });

  it('a destination that keeps failing is blocked and its waiting deliveries deferred; the environment’s other destinations go on; then it is tried again, and a delivery clears it', async () => {
    const dead = 'https://dead.example/hook';
    const waiting = (await queue('env-a', dead, 8)).slice(4);
    const alive = await queue('env-a', 'https://alive.example/hook', 2, at(500));
    const attempts = await claim();
    expect(attempts.map((row) => row.url)).toEqual([dead, dead, dead, dead]);
    // Two failures: not blocked yet; the third blocks it and defers what waits for it.
    for (const delivery of attempts.slice(0, 2)) await finish(delivery, 'failed', at(2000), at(60_000));
    expect(await repos.callbacks.destination('env-a', dead)).toMatchObject({ failures: 2, blockedUntil: null });
    for (const delivery of attempts.slice(2)) await finish(delivery, 'failed', at(2000), at(60_000));
    expect(await repos.callbacks.destination('env-a', dead)).toMatchObject({ failures: 4, blockedUntil: at(60_000) });
    expect(await dueAt(waiting)).toEqual(Array(4).fill(at(60_000)));

    // Blocked: nothing more to it, on any node; the other destination of the environment is claimed.
    const whileBlocked = await claim({ now: at(10_000) }, other);
    expect(whileBlocked.map((row) => row.token)).toEqual(alive);
    for (const delivery of whileBlocked) await finish(delivery, 'delivered', at(10_001));

    // Block over: tried again, within the cap; it answers, and its failures are forgotten.
    const retried = await claim({ now: at(60_000), leaseUntil: at(120_000) });
    expect(retried.map((row) => row.url)).toEqual([dead, dead, dead, dead]);
    expect(await finish(retried[0] as CallbackDelivery, 'delivered', at(61_000))).toBe(true);
    expect(await repos.callbacks.destination('env-a', dead)).toBeUndefined();
  });

  it('a delivery queued while its destination is blocked is deferred by the claim that meets it, not sent', async () => {
    const dead = 'https://dead.example/hook';
    await queue('env-a', dead, 3);
    for (const delivery of await claim()) await finish(delivery, 'failed', at(2000), at(60_000));
    const [late] = await queue('env-a', dead, 1, at(3000));
    const result = await claimResult({ now: at(4000) });
    expect(result).toEqual({ claimed: [], setAside: 1 });
    expect(await dueAt([late ?? ''])).toEqual([at(60_000)]);
  });

  it('a redelivery forgets its destination’s failures: the redelivered callback goes now, not at the end of the block', async () => {
    const dead = 'https://dead.example/hook';
    await queue('env-a', dead, 3);
    const failed = await claim();
    for (const delivery of failed) await finish(delivery, 'failed', at(2000), at(3_600_000));
    const [redelivered] = failed;
    expect(await repos.callbacks.requeueEvent('env-a', redelivered?.eventToken ?? '', at(3000))).toBe(1);
    expect(await repos.callbacks.destination('env-a', dead)).toBeUndefined();
    expect((await claim({ now: at(3001) })).map((row) => row.token)).toEqual([redelivered?.token]);
  });

  it('failures noted by two nodes at once all count; a shorter block does not cut a longer one', async () => {
    const url = 'https://dead.example/hook';
    await queue('env-a', url, 5);
    const claimed = await claim({ perEnvironment: 5 });
    const [last, ...together] = claimed.reverse();
    await Promise.all(together.map((delivery, index) => finish(delivery, 'failed', at(2000), at(60_000), index % 2 === 0 ? repos : other)));
    expect(await repos.callbacks.destination('env-a', url)).toMatchObject({ failures: 4, blockedUntil: at(60_000) });
    await finish(last as CallbackDelivery, 'failed', at(2001), at(30_000));
    expect(await repos.callbacks.destination('env-a', url)).toMatchObject({ failures: 5, blockedUntil: at(60_000) });
  });

  it('a destination of one environment is not blocked for another environment with the same URL', async () => {
    const url = 'https://shared.example/hook';
    await queue('env-a', url, 3);
    for (const delivery of await claim()) await finish(delivery, 'failed');
    await queue('env-b', url, 1, at(3000));
    expect(environments(await claim({ now: at(10_000) }))).toEqual(['env-b']);
  });

  it('abandons deliveries still queued 24 hours after their event instead of claiming them', async () => {
    const [late] = await queue('env-a', 'https://a.example/hook', 1);
    const [fresh] = await queue('env-b', 'https://b.example/hook', 1, at(DELIVERY_WINDOW_MS));
    const result = await claimResult({ now: at(DELIVERY_WINDOW_MS + 1) });
    expect(result.claimed.map((row) => row.token)).toEqual([fresh]);
    expect(result.setAside).toBe(1);
    const row = await first.db.selectFrom('callback_deliveries').select(['state', 'attempts']).where('token', '=', late ?? '').executeTakeFirstOrThrow();
    expect(row).toEqual({ state: 'abandoned', attempts: 0 });
  });
});
