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
}
