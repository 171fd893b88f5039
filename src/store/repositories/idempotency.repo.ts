import type { Kysely, Selectable } from 'kysely';
import type { Database, IdempotencyKeysTable } from '../schema.js';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

/** Single-query primitives over `idempotency_keys`. */
export class IdempotencyRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** Claims a key; false when a row for it already exists. */
  async insertRunning(row: IdempotencyRow): Promise<boolean> {
    const result = await this.db
      .insertInto('idempotency_keys')
      .values(row)
      .onConflict((oc) => oc.columns(['environment_key', 'idempotency_key']).doNothing())
      .executeTakeFirst();
    return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
  }

  find(environmentKey: string, key: string): Promise<IdempotencyRow | undefined> {
    return this.db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('environment_key', '=', environmentKey)
      .where('idempotency_key', '=', key)
      .executeTakeFirst();
  }

  /** Replaces an expired or abandoned claim, only if it is still the one that was read. */
  async takeOver(previous: IdempotencyRow, next: IdempotencyRow): Promise<boolean> {
    const result = await this.db
      .updateTable('idempotency_keys')
      .set(next)
      .where('environment_key', '=', previous.environment_key)
      .where('idempotency_key', '=', previous.idempotency_key)
      .where('created_at', '=', previous.created_at)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async complete(environmentKey: string, key: string, response: { status: number; contentType: string; body: string }): Promise<void> {
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
