import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { Dialect } from '../dialect.js';
import type { AuditChainRepository } from '../interfaces/audit-chain.js';
import { auditEventEntry, cardAccessEntry } from '../mappers/chain-entry.js';
import { Precompiled } from './precompiled.js';
import type { AuditSigningKey, ChainCheckpoint, ChainEntry, ChainHead, ChainLink } from '../../domain/audit-chain.js';

const TABLE = { audit_event: 'audit_events', card_access: 'card_access_records' } as const;

/** One link's update per table, compiled once per database (every recorded entry is linked once). Deferrable: nothing reads its result. */
function linkUpdate(table: (typeof TABLE)[keyof typeof TABLE]) {
  return new Precompiled(
    (db, [position, prevHash, hash, seq]) =>
      db
        .updateTable(table)
        .set({ chain_position: position as number, chain_prev_hash: prevHash as string, chain_hash: hash as string })
        .where('seq', '=', seq as number)
        .where('chain_position', 'is', null),
    { deferrable: true },
  );
}
const LINK = { audit_event: linkUpdate(TABLE.audit_event), card_access: linkUpdate(TABLE.card_access) };

/** Oldest first: by time recorded, then table, then the table's own order. */
function byRecorded(a: ChainEntry, b: ChainEntry): number {
  const at = String(a.content.created_at).localeCompare(String(b.content.created_at));
  if (at !== 0) return at;
  if (a.kind !== b.kind) return a.kind < b.kind ? -1 : 1;
  return a.seq - b.seq;
}

function checkpointOf(row: Database['audit_checkpoints']): ChainCheckpoint {
  return { position: Number(row.position), hash: row.hash, signedAt: row.signed_at, keyId: row.key_id, signature: row.signature, anchor: row.anchor === 1 };
}

/** The hash chain over `audit_events` and `card_access_records` (docs/audit.md). */
export class AuditChainRepo implements AuditChainRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async lockHead(): Promise<ChainHead> {
    let query = this.db.selectFrom('audit_chain_head').select(['position', 'hash']).where('id', '=', 1);
    if (this.dialect === 'postgres') query = query.forUpdate();
    const row = await query.executeTakeFirstOrThrow();
    return { position: Number(row.position), hash: row.hash };
  }

  async head(): Promise<ChainHead> {
    const row = await this.db.selectFrom('audit_chain_head').select(['position', 'hash']).where('id', '=', 1).executeTakeFirstOrThrow();
    return { position: Number(row.position), hash: row.hash };
  }

  async setHead(head: ChainHead, at: string): Promise<void> {
    await this.db.updateTable('audit_chain_head').set({ position: head.position, hash: head.hash, updated_at: at }).where('id', '=', 1).execute();
  }

  async unchained(limit: number): Promise<ChainEntry[]> {
    const events = await this.db.selectFrom('audit_events').selectAll().where('chain_position', 'is', null).orderBy('seq').limit(limit).execute();
    const accesses = await this.db.selectFrom('card_access_records').selectAll().where('chain_position', 'is', null).orderBy('seq').limit(limit).execute();
    return [...events.map(auditEventEntry), ...accesses.map(cardAccessEntry)].sort(byRecorded).slice(0, limit);
  }

  async link(links: readonly ChainLink[]): Promise<void> {
    // Nothing reads their results: deferrable, on PostgreSQL they go out back to back in the transaction.
    for (const link of links) await this.db.executeQuery(LINK[link.kind].query(this.db, '', [link.position, link.prevHash, link.hash, link.seq]));
  }

  async chainedAfter(position: number, limit: number): Promise<ChainEntry[]> {
    const events = await this.db.selectFrom('audit_events').selectAll().where('chain_position', '>', position).orderBy('chain_position').limit(limit).execute();
    const accesses = await this.db.selectFrom('card_access_records').selectAll().where('chain_position', '>', position).orderBy('chain_position').limit(limit).execute();
    return [...events.map(auditEventEntry), ...accesses.map(cardAccessEntry)].sort((a, b) => (a.position as number) - (b.position as number)).slice(0, limit);
  }

  async findByHash(hash: string): Promise<ChainEntry | undefined> {
    const event = await this.db.selectFrom('audit_events').selectAll().where('chain_hash', '=', hash).executeTakeFirst();
    if (event !== undefined) return auditEventEntry(event);
    const access = await this.db.selectFrom('card_access_records').selectAll().where('chain_hash', '=', hash).executeTakeFirst();
    return access === undefined ? undefined : cardAccessEntry(access);
  }

  async lastPositionBefore(before: string): Promise<number> {
    let last = 0;
    for (const table of Object.values(TABLE)) {
      const row = await this.db.selectFrom(table).select((eb) => eb.fn.max('chain_position').as('last')).where('created_at', '<', before).executeTakeFirst();
      if (row?.last !== null && row?.last !== undefined) last = Math.max(last, Number(row.last));
    }
    return last;
  }

  async pruneThrough(position: number): Promise<number> {
    let deleted = 0;
    for (const table of Object.values(TABLE)) {
      const result = await this.db.deleteFrom(table).where('chain_position', '<=', position).executeTakeFirst();
      deleted += Number(result.numDeletedRows);
    }
    return deleted;
  }

  async insertCheckpoint(checkpoint: ChainCheckpoint): Promise<void> {
    await this.db
      .insertInto('audit_checkpoints')
      .values({ position: checkpoint.position, hash: checkpoint.hash, signed_at: checkpoint.signedAt, key_id: checkpoint.keyId, signature: checkpoint.signature, anchor: checkpoint.anchor ? 1 : 0 })
      .onConflict((oc) => oc.column('position').doUpdateSet({ hash: checkpoint.hash, signed_at: checkpoint.signedAt, key_id: checkpoint.keyId, signature: checkpoint.signature, anchor: checkpoint.anchor ? 1 : 0 }))
      .execute();
  }

  async checkpoints(): Promise<ChainCheckpoint[]> {
    return (await this.db.selectFrom('audit_checkpoints').selectAll().orderBy('position').execute()).map(checkpointOf);
  }

  async latestCheckpoint(): Promise<ChainCheckpoint | undefined> {
    const row = await this.db.selectFrom('audit_checkpoints').selectAll().orderBy('position', 'desc').limit(1).executeTakeFirst();
    return row === undefined ? undefined : checkpointOf(row);
  }

  async signingKeys(): Promise<AuditSigningKey[]> {
    const rows = await this.db.selectFrom('audit_signing_keys').selectAll().orderBy('created_at').execute();
    return rows.map((row) => ({ id: row.id, publicKey: row.public_key, sealedPrivateKey: row.sealed_private_key, createdAt: row.created_at }));
  }

  async insertSigningKeyIfAbsent(key: AuditSigningKey): Promise<void> {
    await this.db
      .insertInto('audit_signing_keys')
      .values({ id: key.id, public_key: key.publicKey, sealed_private_key: key.sealedPrivateKey, created_at: key.createdAt })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }
}
