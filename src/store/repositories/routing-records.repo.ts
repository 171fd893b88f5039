import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { changeIf, journaled } from '../change-journal.js';

/**
 * Issue 18: the routing decision on the transaction it produced (`transactions.routed_by`) and its
 * `TransactionRouted` event, written together.
 */
export class RoutingRecordsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** Records the decision on the transaction; false when there is no such transaction. */
  async record(environmentKey: string, transactionToken: string, routedBy: string, at: string): Promise<boolean> {
    return journaled(this.db, async (db) => {
      const result = await db.updateTable('transactions').set({ routed_by: routedBy }).where('environment_key', '=', environmentKey).where('token', '=', transactionToken).executeTakeFirst();
      const changed = Number(result.numUpdatedRows) > 0;
      return { result: changed, changes: changeIf(changed, { environmentKey, eventType: 'TransactionRouted', objectType: 'transaction', objectKey: transactionToken, at }) };
    });
  }
}
