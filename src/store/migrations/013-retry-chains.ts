import type { Kysely } from 'kysely';

/**
 * Retry on backup gateways (docs/routing-retry.md). Every attempt of a retry chain is its own transaction and
 * names the chain's first attempt (the first names itself), so any attempt can show the chain.
 * Null for a transaction that was not part of a chain.
 */
export function retryChains() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('transactions').addColumn('first_attempt_token', 'text').execute();
      await db.schema.createIndex('transactions_by_first_attempt').on('transactions').columns(['environment_key', 'first_attempt_token']).execute();
    },
  };
}
