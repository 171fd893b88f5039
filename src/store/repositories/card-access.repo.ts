import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { CardAccessRepository } from '../interfaces/card-access.js';
import { deferrable } from '../deferrable-query.js';
import type { CardAccessActorType, CardAccessFilter, CardAccessOperation, CardAccessRecord, StoredCardAccessRecord } from '../../domain/card-access.js';

/** Single-query primitives over `card_access_records` (append only; docs/audit.md). */
export class CardAccessRepo implements CardAccessRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Its result is never read: declared deferrable, it costs a purchase no round trip of its own on PostgreSQL. */
  async record(record: CardAccessRecord): Promise<void> {
    const insert = this.db.insertInto('card_access_records').values({
      environment_key: record.environmentKey,
      payment_method_token: record.paymentMethodToken,
      operation: record.operation,
      object_type: record.objectType,
      object_id: record.objectId,
      actor_type: record.actorType,
      actor: record.actor,
      request_id: record.requestId,
      created_at: record.createdAt,
      chain_position: null,
      chain_prev_hash: null,
      chain_hash: null,
    });
    await this.db.executeQuery(deferrable(insert.compile()));
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
