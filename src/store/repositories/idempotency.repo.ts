import type { IdempotencyRepository } from '../interfaces/idempotency.js';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { idempotencyRecordOf, idempotencyRow } from '../mappers/idempotency.js';
import type { IdempotencyRecord, StoredResponse } from '../../domain/idempotency.js';

/** Single-query primitives over `idempotency_keys`. */
export class IdempotencyRepo implements IdempotencyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Claims a key; false when a row for it already exists. */
  async insertRunning(record: IdempotencyRecord): Promise<boolean> {
    const result = await this.db
      .insertInto('idempotency_keys')
      .values(idempotencyRow(record))
      .onConflict((oc) => oc.columns(['environment_key', 'idempotency_key']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  async find(environmentKey: string, key: string): Promise<IdempotencyRecord | undefined> {
    const row = await this.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('environment_key', '=', environmentKey)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
    return row === undefined ? undefined : idempotencyRecordOf(row);
  }

  /** Replaces an expired or abandoned claim, only if it is still the one that was read. */
  async takeOver(previous: IdempotencyRecord, next: IdempotencyRecord): Promise<boolean> {
    const result = await this.db
      .updateTable('idempotency_keys')
      .set(idempotencyRow(next))
      .where('environment_key', '=', previous.environmentKey)
      .where('idempotency_key', '=', previous.key)
      .where('created_at', '=', previous.createdAt)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async complete(environmentKey: string, key: string, response: StoredResponse): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({ state: 'done', response_status: response.status, response_content_type: response.contentType, response_body: response.body })
      .where('environment_key', '=', environmentKey)
      .where('idempotency_key', '=', key)
      .execute();
  }

  /** The request finished but its response is not kept (it carried a secret). */
  async markNotReplayable(environmentKey: string, key: string): Promise<void> {
    await this.db
      .updateTable('idempotency_keys')
      .set({ state: 'not_replayable', response_status: null, response_content_type: null, response_body: null })
      .where('environment_key', '=', environmentKey)
      .where('idempotency_key', '=', key)
      .execute();
  }

  async remove(environmentKey: string, key: string): Promise<void> {
    await this.db.deleteFrom('idempotency_keys').where('environment_key', '=', environmentKey).where('idempotency_key', '=', key).execute();
  }

  async removeExpired(now: string): Promise<number> {
    const result = await this.db.deleteFrom('idempotency_keys').where('expires_at', '<=', now).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
