import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { StoreHandle } from '../../src/store/database.js';
import { repositories } from '../../src/store/repositories.js';
import { storeAccess } from '../../src/store/store-access.js';
import { WrappedKeysRepo } from '../../src/store/repositories/wrapped-keys.repo.js';
import { Keyring } from '../../src/vault/keyring.js';
import { AuditSigner } from '../../src/vault/audit-signing-key.js';
import { AuditChainService } from '../../src/services/audit-chain/audit-chain.service.js';
import { chainHash } from '../../src/services/audit-chain/chain-hash.js';
import { AuditChainer } from '../../src/services/audit-chain/audit-chainer.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { scratchStore } from '../helpers/scratch-store.js';
import { storeKinds } from '../helpers/postgres.js';

const START = Date.parse('2026-03-01T00:00:00.000Z');

describe.each(storeKinds)('audit chain on %s', (kind) => {
  let store: StoreHandle;
  let cleanup: () => Promise<void> | void;
  let clock: ManualClock;
  let masterKey: Buffer;
  let chain: AuditChainService;

  const chainWith = (key: Buffer) => new AuditChainService(storeAccess(store), new AuditSigner(new Keyring(new WrappedKeysRepo(store.db), key)), clock, { batchSize: 4, retentionMonths: 12 });

  /** Three audit events and three card access records, interleaved in time. */
  let recorded = 0;
  async function recordSix(): Promise<void> {
    const repos = repositories(store.db, store.dialect);
    recorded += 1;
    for (let i = 0; i < 3; i += 1) {
      clock.advance(1000);
      await repos.auditEvents.insert({
        token: `ev${recorded}-${i}`,
        organizationToken: 'org',
        actorType: 'user',
        actor: 'owner@example.com',
        action: 'gateway.create',
        objectType: 'gateway',
        objectId: `gw${i}`,
        environmentKey: 'env',
        address: '127.0.0.1',
        details: { name: `gateway ${i}` },
        createdAt: clock.now().toISOString(),
      });
      clock.advance(1000);
      await repos.cardAccess.record({
        environmentKey: 'env',
        paymentMethodToken: `pm${i}`,
        operation: 'purchase',
        objectType: 'transaction',
        objectId: `tx${i}`,
        actorType: 'access_secret',
        actor: 'key1',
        requestId: `req${i}`,
        createdAt: clock.now().toISOString(),
      });
    }
  }

  async function positionsOf(table: 'audit_events' | 'card_access_records'): Promise<number[]> {
    const rows = await store.db.selectFrom(table).select('chain_position').orderBy('chain_position').execute();
    return rows.map((row) => Number(row.chain_position));
  }

  beforeEach(async () => {
    ({ store, cleanup } = await scratchStore(kind));
    clock = new ManualClock(START);
    masterKey = randomBytes(32);
    chain = chainWith(masterKey);
    await recordSix();
  });

  afterEach(async () => {
    await store.close();
    await cleanup();
  });

  it('links every entry, events and card access records, into one sequence that verifies', async () => {
    expect(await chain.chainPending()).toBe(6);
    expect([...(await positionsOf('audit_events')), ...(await positionsOf('card_access_records'))].sort()).toEqual([1, 2, 3, 4, 5, 6]);
    // Oldest first, across the two tables.
    expect(await positionsOf('audit_events')).toEqual([1, 3, 5]);
    const verification = await chain.verify();
    expect(verification).toMatchObject({ ok: true, entriesChecked: 6, verifiedThrough: 6, head: { position: 6 }, problem: null });
    // Each entry carries the previous one's hash.
    const lines = [];
    for await (const line of chain.export()) lines.push(line);
    expect(lines.map((line) => line.position)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(lines[1]?.prev_hash).toBe(lines[0]?.hash);
    expect(lines[0]).toMatchObject({ type: 'audit_event', token: `ev${recorded}-0`, action: 'gateway.create' });
    expect(lines[1]).toMatchObject({ type: 'card_access', payment_method_token: 'pm0', operation: 'purchase', actor: 'key1', request_id: 'req0' });
    // Recorded later, linked after.
    await recordSix();
    await store.db.deleteFrom('audit_events').where('chain_position', 'is', null).execute();
    expect(await chain.chainPending()).toBe(3);
    expect((await chain.verify()).verifiedThrough).toBe(9);
  });

  it('names an altered entry', async () => {
    await chain.chainPending();
    await store.db.updateTable('audit_events').set({ actor: 'mallory@example.com' }).where('chain_position', '=', 3).execute();
    expect((await chain.verify()).problem).toMatchObject({ kind: 'altered', position: 3, entry: { kind: 'audit_event' } });
  });

  it('names a removed entry, in the middle and at the end', async () => {
    await chain.chainPending();
    await store.db.deleteFrom('card_access_records').where('chain_position', '=', 4).execute();
    const middle = await chain.verify();
    expect(middle.ok).toBe(false);
    expect(middle.problem).toMatchObject({ kind: 'removed', position: 4 });
    expect(middle.verifiedThrough).toBe(3);

    await store.db.deleteFrom('card_access_records').execute();
    await store.db.deleteFrom('audit_events').where('chain_position', '=', 5).execute();
    await store.db.updateTable('audit_events').set({ chain_position: 2 }).where('chain_position', '=', 3).execute();
    // A removal hidden by renumbering: the link gives it away.
    expect((await chain.verify()).problem).toMatchObject({ kind: 'removed', position: 2 });
  });

  it('names the last entries removed, even with the head rewritten, once a checkpoint covers them', async () => {
    await chain.chainPending();
    await store.db.deleteFrom('card_access_records').where('chain_position', '=', 6).execute();
    expect((await chain.verify()).problem).toMatchObject({ kind: 'removed', position: 6 });

    const fresh = await scratchStore(kind);
    const original = store;
    try {
      store = fresh.store;
      chain = chainWith(masterKey);
      await recordSix();
      await chain.checkpoint();
      const [fifth] = await store.db.selectFrom('audit_events').select('chain_hash').where('chain_position', '=', 5).execute();
      await store.db.deleteFrom('card_access_records').where('chain_position', '=', 6).execute();
      await store.db.updateTable('audit_chain_head').set({ position: 5, hash: fifth?.chain_hash as string }).execute();
      expect((await chain.verify()).problem).toMatchObject({ kind: 'removed', position: 6 });
    } finally {
      store = original;
      await fresh.store.close();
      await fresh.cleanup();
    }
  });

  it('names a reordered entry (two rows swapped)', async () => {
    await chain.chainPending();
    // Swap the places of entries 2 (card access) and 3 (audit event).
    await store.db.updateTable('card_access_records').set({ chain_position: -2 }).where('chain_position', '=', 2).execute();
    await store.db.updateTable('audit_events').set({ chain_position: 2 }).where('chain_position', '=', 3).execute();
    await store.db.updateTable('card_access_records').set({ chain_position: 3 }).where('chain_position', '=', -2).execute();
    expect((await chain.verify()).problem).toMatchObject({ kind: 'reordered', position: 2, entry: { kind: 'audit_event' } });
  });

  it('catches a rewritten chain at the signed checkpoint, and a forged checkpoint', async () => {
    await chain.chainPending();
    expect((await chain.checkpoint())?.position).toBe(6);
    expect(await chain.checkpoint()).toBeNull();
    // Someone with write access alters entry 2 and recomputes every hash after it.
    await store.db.updateTable('card_access_records').set({ actor: 'someone-else' }).where('chain_position', '=', 2).execute();
    let previous = (await store.db.selectFrom('audit_events').select('chain_hash').where('chain_position', '=', 1).executeTakeFirstOrThrow()).chain_hash as string;
    for (let position = 2; position <= 6; position += 1) {
      for (const table of ['audit_events', 'card_access_records'] as const) {
        const entries = (await repositories(store.db, store.dialect).auditChain.chainedAfter(position - 1, 1)).filter((entry) => entry.position === position && (entry.kind === 'audit_event') === (table === 'audit_events'));
        const entry = entries[0];
        if (entry === undefined) continue;
        const hash = chainHash(previous, entry);
        await store.db.updateTable(table).set({ chain_prev_hash: previous, chain_hash: hash }).where('chain_position', '=', position).execute();
        previous = hash;
      }
    }
    await store.db.updateTable('audit_chain_head').set({ hash: previous }).execute();
    expect((await chain.verify()).problem).toMatchObject({ kind: 'altered', position: 6 });
    // Re-signing needs the private key: a checkpoint edited to match is refused.
    await store.db.updateTable('audit_checkpoints').set({ hash: previous }).execute();
    expect((await chain.verify()).problem).toMatchObject({ kind: 'checkpoint_invalid', position: 6 });
  });

  it('verifies quickly from the latest checkpoint (the portal page), fully by default', async () => {
    await chain.checkpoint();
    await recordSix();
    await store.db.updateTable('audit_events').set({ action: 'edited' }).where('chain_position', '=', 1).execute();
    // Entry 1 is before the checkpoint: the quick walk starts after it and checks the six since.
    expect(await chain.verify({ sinceLatestCheckpoint: true })).toMatchObject({ ok: true, anchorPosition: 6, entriesChecked: 6, verifiedThrough: 12 });
    expect((await chain.verify()).problem).toMatchObject({ kind: 'altered', position: 1 });
    await store.db.updateTable('card_access_records').set({ actor: 'edited' }).where('chain_position', '=', 8).execute();
    expect((await chain.verify({ sinceLatestCheckpoint: true })).problem).toMatchObject({ kind: 'altered', position: 8 });
  });

  it('runs its upkeep in rounds: links every round, signs and prunes when their time comes', async () => {
    const chainer = new AuditChainer(chain, clock, { chainIntervalMs: 1000, checkpointIntervalMs: 15 * 60_000, pruneIntervalMs: 24 * 3_600_000 });
    // The first round prunes (nothing is old enough) and links; no checkpoint before its interval.
    expect(await chainer.round()).toEqual({ linked: 6, checkpoint: null, pruned: 0 });
    await recordSix();
    clock.advance(15 * 60_000);
    expect(await chainer.round()).toEqual({ linked: 6, checkpoint: 12, pruned: 0 });
    clock.advance(400 * 24 * 3_600_000);
    expect(await chainer.round()).toEqual({ linked: 0, checkpoint: null, pruned: 12 });
    expect(await chain.verify()).toMatchObject({ ok: true, anchorPosition: 12, entriesChecked: 0 });
    // Started, it runs on its own; stopped, it waits for the round under way.
    let rounds = 0;
    chainer.start((error) => {
      throw error;
    }, () => void (rounds += 1));
    await recordSix();
    await new Promise((resolve) => setTimeout(resolve, 2500));
    await chainer.stop();
    expect(rounds).toBeGreaterThan(0);
    expect((await chain.verify()).verifiedThrough).toBe(18);
  });

  it('refuses a signing key that does not open under the master key', async () => {
    await chain.checkpoint();
    expect((await chainWith(randomBytes(32)).verify()).problem).toMatchObject({ kind: 'signing_key_invalid' });
  });

  it('prunes past the retention behind a signed anchor, and still catches a removal after it', async () => {
    await chain.chainPending();
    expect((await chain.prune()).pruned).toBe(0);
    clock.advance(366 * 24 * 3_600_000);
    // Recorded a year later: kept.
    await recordSix();
    const { pruned, anchor } = await chain.prune();
    expect(pruned).toBe(6);
    expect(anchor).toMatchObject({ position: 6, anchor: true });
    expect(await chain.verify()).toMatchObject({ ok: true, anchorPosition: 6, entriesChecked: 6, verifiedThrough: 12 });
    // The first entry after the anchor removed: caught, though nothing before it is left to link to.
    await store.db.deleteFrom('audit_events').where('chain_position', '=', 7).execute();
    expect((await chain.verify()).problem).toMatchObject({ kind: 'removed', position: 7 });
  });

  it('refuses to prune a chain that does not verify', async () => {
    await chain.chainPending();
    await store.db.updateTable('audit_events').set({ action: 'nothing' }).where('chain_position', '=', 1).execute();
    clock.advance(400 * 24 * 3_600_000);
    await expect(chain.prune()).rejects.toThrow(/does not verify: entry 1/);
    expect(await store.db.selectFrom('audit_events').select('seq').execute()).toHaveLength(3);
  });

  if (kind === 'postgres') {
    it('keeps one sequence while several nodes record and link at once', async () => {
      const { openStore } = await import('../../src/store/database.js');
      // A second pool on the same database stands for a second node.
      const other = openStore({ kind: 'postgres', url: await databaseUrlOf(store) });
      try {
        const nodes = [chain, new AuditChainService(storeAccess(other), new AuditSigner(new Keyring(new WrappedKeysRepo(other.db), masterKey)), clock, { batchSize: 3, retentionMonths: 12 })];
        const writers = [store, other].map(async (handle, node) => {
          for (let i = 0; i < 40; i += 1) {
            await repositories(handle.db, handle.dialect).cardAccess.record({
              environmentKey: 'env', paymentMethodToken: `pm-${node}-${i}`, operation: 'purchase', objectType: 'transaction', objectId: null,
              actorType: 'system', actor: 'coffer', requestId: null, createdAt: new Date(START + i).toISOString(),
            });
            if (i % 5 === 0) await nodes[node]?.chainPending();
          }
        });
        await Promise.all([...writers, ...nodes.map((node) => node.chainPending())]);
        await Promise.all(nodes.map((node) => node.chainPending()));
        const verification = await chain.verify();
        expect(verification).toMatchObject({ ok: true, verifiedThrough: 86, entriesChecked: 86 });
      } finally {
        await other.close();
      }
    });
  }
});

/** The PostgreSQL URL a store was opened with (its pool knows it). */
async function databaseUrlOf(store: StoreHandle): Promise<string> {
  const row = await sql<{ db: string }>`select current_database() as db`.execute(store.db);
  const url = new URL(process.env.COFFER_TEST_DATABASE_URL as string);
  url.pathname = `/${row.rows[0]?.db}`;
  return url.toString();
}
