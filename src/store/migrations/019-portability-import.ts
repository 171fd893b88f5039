import type { Kysely } from 'kysely';

/**
 * Vault portability, import (docs/portability.md):
 *
 * - `payment_method_imports`: one row per import job, its state, progress and report (JSON),
 *   read by `GET /v1/payment_methods/imports/<id>` while the job runs and after;
 * - `import_keys`: each environment's OpenPGP import key pair, the public half armored, the private
 *   half sealed with the environment's data key (which the master key wraps), like other secrets.
 */
export const portabilityImport = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('payment_method_imports')
      .addColumn('token', 'text', (c) => c.primaryKey())
      .addColumn('environment_key', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('format', 'text')
      .addColumn('encrypted', 'integer', (c) => c.notNull())
      .addColumn('report', 'text', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('payment_method_imports_by_env').on('payment_method_imports').columns(['environment_key', 'created_at']).execute();
    await db.schema
      .createTable('import_keys')
      .addColumn('environment_key', 'text', (c) => c.primaryKey())
      .addColumn('public_key', 'text', (c) => c.notNull())
      .addColumn('sealed_private_key', 'text', (c) => c.notNull())
      .addColumn('fingerprint', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
  },
};
