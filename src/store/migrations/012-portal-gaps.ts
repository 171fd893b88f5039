import type { Kysely } from 'kysely';

/**
 * Gaps of the portal (docs/portal.md): certificates can be redacted (their private key and pem are
 * erased; the row stays so receivers naming it fail clearly), and a date-range-only search of
 * transactions reads one page of an index in (environment, created_at, seq) order instead of
 * sorting the whole range.
 */
export function portalGaps() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('certificates').addColumn('redacted_at', 'text').execute();
      await db.schema.createIndex('transactions_by_env_created_seq').on('transactions').columns(['environment_key', 'created_at', 'seq']).execute();
      // The new index serves every query the (environment_key, created_at) one served.
      await db.schema.dropIndex('transactions_by_env_created').execute();
    },
  };
}
