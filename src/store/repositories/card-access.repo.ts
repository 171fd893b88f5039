import type { Insertable, Kysely } from 'kysely';
import type { CardAccessRecordsTable, Database } from '../schema.js';
import type { CardAccessRepository } from '../interfaces/card-access.js';
import { Precompiled, recordOf } from './precompiled.js';
import type { CardAccessActorType, CardAccessFilter, CardAccessOperation, CardAccessRecord, StoredCardAccessRecord } from '../../domain/card-access.js';

/** The columns `record` writes, in the order of the insert's values (the chain columns stay null until linked). */
const RECORD_COLUMNS = ['environment_key', 'payment_method_token', 'operation', 'object_type', 'object_id', 'actor_type', 'actor', 'request_id', 'created_at'] as const;

/** Compiled once per database: a purchase makes one, and building it anew cost more than running it. Deferrable: nobody reads its result. */
const INSERT = new Precompiled((db, values) => db.insertInto('card_access_records').values(recordOf(RECORD_COLUMNS, values) as Insertable<CardAccessRecordsTable>), { deferrable: true });

/** Single-query primitives over `card_access_records` (append only; docs/audit.md). */
export class CardAccessRepo implements CardAccessRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Its result is never read: declared deferrable, it costs a purchase no round trip of its own on PostgreSQL. */
  async record(record: CardAccessRecord): Promise<void> {
    const values = [record.environmentKey, record.paymentMethodToken, record.operation, record.objectType, record.objectId, record.actorType, record.actor, record.requestId, record.createdAt];
    await this.db.executeQuery(INSERT.query(this.db, '', values));
  }

  async list(environmentKey: string, paymentMethodToken: string, filter: CardAccessFilter): Promise<StoredCardAccessRecord[]> {
    let query = this.db
      .selectFrom('card_access_records')
      .selectAll()
      .where('environment_key', '=', environmentKey)
      .where('payment_method_token', '=', paymentMethodToken);
    if (filter.before !== undefined) query = query.where('seq', '<', filter.before);
    const rows = await query.orderBy('seq', 'desc').limit(filter.count).execute();
    return rows.map((row) => ({
      environmentKey: row.environment_key,
      paymentMethodToken: row.payment_method_token,
      operation: row.operation as CardAccessOperation,
      objectType: row.object_type,
      objectId: row.object_id,
      actorType: row.actor_type as CardAccessActorType,
      actor: row.actor,
      requestId: row.request_id,
      createdAt: row.created_at,
      cursor: Number(row.seq),
    }));
  }
}
