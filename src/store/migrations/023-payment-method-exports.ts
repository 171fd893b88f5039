import type { Kysely } from 'kysely';

/**
 * Vault portability, export (docs/portability.md, "Exporting"): one row per export request, its
 * filter (JSON), the recipient's public key, who requested, approved and downloaded it, and its
 * state. The file itself is never stored: it is made as it is downloaded, encrypted as it streams.
 */
export const paymentMethodExports = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('payment_method_exports')
      .addColumn('token', 'text', (c) => c.primaryKey())
      .addColumn('environment_key', 'text', (c) => c.notNull())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('filter', 'text', (c) => c.notNull())
      .addColumn('recipient_public_key', 'text', (c) => c.notNull())
      .addColumn('recipient_fingerprint', 'text', (c) => c.notNull())
      .addColumn('recipient_user_ids', 'text', (c) => c.notNull())
      .addColumn('requester_type', 'text', (c) => c.notNull())
      .addColumn('requester', 'text', (c) => c.notNull())
      .addColumn('approver_type', 'text')
      .addColumn('approver', 'text')
      .addColumn('downloader_type', 'text')
      .addColumn('downloader', 'text')
      .addColumn('payment_methods', 'integer')
      .addColumn('error', 'text')
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('approved_at', 'text')
      .addColumn('downloaded_at', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('payment_method_exports_by_env').on('payment_method_exports').columns(['environment_key', 'created_at']).execute();
  },
};
