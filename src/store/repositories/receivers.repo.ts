import type { Kysely, Selectable, Updateable } from 'kysely';
import type { Database, ReceiversTable } from '../schema.js';
import { EnvironmentScopedRepo, updateUnlessRedacted } from './environment-scoped.repo.js';

export type ReceiverRow = Selectable<ReceiversTable>;
export type ReceiverPatch = Omit<Updateable<ReceiversTable>, 'seq' | 'token' | 'environment_key' | 'receiver_type' | 'created_at'>;

/** Single-query primitives over `receivers`; every read is scoped to one environment. */
export class ReceiversRepo extends EnvironmentScopedRepo<'receivers'> {
  constructor(db: Kysely<Database>) {
    super(db, 'receivers');
  }

  /** Updates a receiver that is not redacted; false when there is none (a redact won a race). */
  updateUnlessRedacted(environmentKey: string, token: string, patch: ReceiverPatch): Promise<boolean> {
    return updateUnlessRedacted(this.db, 'receivers', { environmentKey, token }, patch);
  }

  /** Receivers of an environment with a `column` blob not sealed by `keyId`, for re-encryption. */
  sealedWithOtherKey(environmentKey: string, column: SealedReceiverColumn, keyId: string, limit: number): Promise<Array<{ token: string; blob: string | null }>> {
    return this.db
      .selectFrom('receivers')
      .select(['token', `${column} as blob`])
      .where('environment_key', '=', environmentKey)
      .where(column, 'is not', null)
      .where(column, 'not like', `c1.${keyId}.%`)
      .limit(limit)
      .execute();
  }

  /** Replaces a sealed blob only if it is still the one that was read. */
  async replaceSealed(environmentKey: string, token: string, column: SealedReceiverColumn, from: string, to: string): Promise<boolean> {
    const result = await this.db
      .updateTable('receivers')
      .set({ [column]: to })
      .where('environment_key', '=', environmentKey)
      .where('token', '=', token)
      .where(column, '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}

export const SEALED_RECEIVER_COLUMNS = ['sealed_credentials', 'sealed_protocol'] as const;
export type SealedReceiverColumn = (typeof SEALED_RECEIVER_COLUMNS)[number];
