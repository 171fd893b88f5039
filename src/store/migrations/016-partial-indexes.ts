import { sql, type Kysely } from 'kysely';

/**
 * Indexes on columns that are null for most rows hold only the rows that are not.
 * A purchase by retained token has no reference, no retry chain, nothing to reconcile and, once
 * its CVV is consumed, no CVV expiry: each of those indexes took an entry (and a page write) per
 * row for nothing. Every query that uses them compares the column (`=`, `IN`, `<=`), which both
 * SQLite and PostgreSQL accept as implying `IS NOT NULL`, so the plans keep the index
 * (test/store/partial-indexes.test.ts checks them).
 */
export const PARTIAL_INDEXES: ReadonlyArray<{ name: string; table: string; columns: string[]; notNull: string }> = [
  { name: 'transactions_by_reference', table: 'transactions', columns: ['reference_token', 'seq'], notNull: 'reference_token' },
  { name: 'transactions_by_first_attempt', table: 'transactions', columns: ['environment_key', 'first_attempt_token'], notNull: 'first_attempt_token' },
  { name: 'transactions_to_reconcile', table: 'transactions', columns: ['reconcile_next_at'], notNull: 'reconcile_next_at' },
  { name: 'transactions_by_order', table: 'transactions', columns: ['environment_key', 'order_id'], notNull: 'order_id' },
  { name: 'payment_methods_cvv_expiry', table: 'payment_methods', columns: ['cvv_expires_at'], notNull: 'cvv_expires_at' },
  { name: 'payment_methods_cache_expiry', table: 'payment_methods', columns: ['storage_state', 'cache_expires_at'], notNull: 'cache_expires_at' },
];

export const partialIndexes = {
  async up(db: Kysely<unknown>): Promise<void> {
    for (const index of PARTIAL_INDEXES) {
      await db.schema.dropIndex(index.name).execute();
      await db.schema
        .createIndex(index.name)
        .on(index.table)
        .columns(index.columns)
        .where(sql.ref(index.notNull), 'is not', null)
        .execute();
    }
  },
};
