import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { journaled } from '../change-journal.js';

/**
 * A workflow's routing decision on the transactions it produced (`transactions.routed_by`
 * on every attempt of the chain) and one `TransactionRouted` event naming the transaction that
 * answered, written together (docs/routing.md, "Where the decision is recorded").
 */
export class RoutingRecordsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Records the decision on the answering transaction and on every attempt of its retry chain
   * (those whose first attempt is `firstAttemptToken`); false when the answer is not found.
   */
  async record(environmentKey: string, answer: { token: string; firstAttemptToken: string | null }, routedBy: string, at: string): Promise<boolean> {
    return journaled(this.db, async (db) => {
      let update = db.updateTable('transactions').set({ routed_by: routedBy }).where('environment_key', '=', environmentKey);
      const { firstAttemptToken } = answer;
      update =
        firstAttemptToken === null
          ? update.where('token', '=', answer.token)
          : update.where((eb) => eb.or([eb('token', '=', answer.token), eb('first_attempt_token', '=', firstAttemptToken)]));
      const result = await update.executeTakeFirst();
      const changed = Number(result.numUpdatedRows) > 0;
      return { result: changed, changes: changed ? [{ environmentKey, eventType: 'TransactionRouted', objectType: 'transaction', objectKey: answer.token, at }] : [] };
    });
  }
}
