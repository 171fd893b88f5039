import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withSeq } from './columns.js';

/** The vault's payment methods. Descriptive, non-sensitive fields live in `details` (JSON). */
export function paymentMethods(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withSeq(db.schema.createTable('payment_methods'), dialect)
        .addColumn('token', 'text', (c) => c.notNull().unique())
        .addColumn('environment_key', 'text', (c) => c.notNull().references('environments.key'))
        .addColumn('payment_method_type', 'text', (c) => c.notNull())
        .addColumn('storage_state', 'text', (c) => c.notNull())
        .addColumn('test', 'integer', (c) => c.notNull())
        .addColumn('single_use', 'integer', (c) => c.notNull())
        .addColumn('email', 'text')
        .addColumn('data', 'text')
        .addColumn('metadata', 'text')
        .addColumn('callback_url', 'text')
        .addColumn('details', 'text', (c) => c.notNull())
        .addColumn('sealed_number', 'text')
        .addColumn('fingerprint', 'text')
        .addColumn('sealed_cvv', 'text')
        .addColumn('cvv_length', 'integer')
        .addColumn('cvv_expires_at', 'text')
        .addColumn('sealed_routing_number', 'text')
        .addColumn('sealed_account_number', 'text')
        .addColumn('cache_expires_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('payment_methods_by_env').on('payment_methods').columns(['environment_key', 'seq']).execute();
      await db.schema.createIndex('payment_methods_cache_expiry').on('payment_methods').columns(['storage_state', 'cache_expires_at']).execute();
      await db.schema.createIndex('payment_methods_cvv_expiry').on('payment_methods').columns(['cvv_expires_at']).execute();
      await db.schema.createIndex('transactions_by_payment_method').on('transactions').columns(['payment_method_token', 'seq']).execute();
    },
  };
}
