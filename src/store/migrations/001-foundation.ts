import type { Kysely } from 'kysely';
import { withSeq } from './columns.js';
import type { Dialect } from '../dialect.js';

/** Organizations, environments, access secrets, wrapped keys, gateways and transactions. */
export function foundation(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('organizations')
        .addColumn('token', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();

      await withSeq(db.schema.createTable('environments'), dialect)
        .addColumn('key', 'text', (c) => c.notNull().unique())
        .addColumn('organization_token', 'text', (c) => c.notNull().references('organizations.token'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('production', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('environments_by_org').on('environments').columns(['organization_token', 'seq']).execute();

      await withSeq(db.schema.createTable('access_secrets'), dialect)
        .addColumn('key', 'text', (c) => c.notNull().unique())
        .addColumn('organization_token', 'text', (c) => c.notNull().references('organizations.token'))
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('environment_keys', 'text')
        .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
        .addColumn('revoked_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('wrapped_keys')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('purpose', 'text', (c) => c.notNull())
        .addColumn('environment_key', 'text')
        .addColumn('wrapped', 'text', (c) => c.notNull())
        .addColumn('master_key_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('wrapped_keys_by_purpose').on('wrapped_keys').columns(['purpose', 'environment_key']).execute();

      await withSeq(db.schema.createTable('gateways'), dialect)
        .addColumn('token', 'text', (c) => c.notNull().unique())
        .addColumn('environment_key', 'text', (c) => c.notNull().references('environments.key'))
        .addColumn('gateway_type', 'text', (c) => c.notNull())
        .addColumn('description', 'text')
        .addColumn('merchant_profile_key', 'text')
        .addColumn('sub_merchant_key', 'text')
        .addColumn('sandbox', 'integer', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('safe_credentials', 'text')
        .addColumn('sealed_credentials', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('gateways_by_env').on('gateways').columns(['environment_key', 'seq']).execute();

      await withSeq(db.schema.createTable('transactions'), dialect)
        .addColumn('token', 'text', (c) => c.notNull().unique())
        .addColumn('environment_key', 'text', (c) => c.notNull().references('environments.key'))
        .addColumn('transaction_type', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('succeeded', 'integer', (c) => c.notNull())
        .addColumn('message_key', 'text')
        .addColumn('message', 'text')
        .addColumn('gateway_token', 'text')
        .addColumn('payment_method_token', 'text')
        .addColumn('reference_token', 'text')
        .addColumn('amount', 'bigint')
        .addColumn('currency_code', 'text')
        .addColumn('details', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('transactions_by_env').on('transactions').columns(['environment_key', 'seq']).execute();
      await db.schema.createIndex('transactions_by_gateway').on('transactions').columns(['gateway_token', 'seq']).execute();
    },
  };
}
