import type { Kysely } from 'kysely';

/** Transcripts, per-gateway settings and the idempotency-key store. */
export function gatewayTransactions() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('transactions').addColumn('transcript', 'text').execute();
      await db.schema.alterTable('gateways').addColumn('settings', 'text').execute();
      await db.schema
        .createTable('idempotency_keys')
        .addColumn('environment_key', 'text', (c) => c.notNull())
        .addColumn('idempotency_key', 'text', (c) => c.notNull())
        .addColumn('request_hash', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('response_content_type', 'text')
        .addColumn('response_body', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('idempotency_keys_pk', ['environment_key', 'idempotency_key'])
        .execute();
      await db.schema.createIndex('idempotency_keys_expiry').on('idempotency_keys').column('expires_at').execute();
      await db.schema.createIndex('transactions_by_reference').on('transactions').columns(['reference_token', 'seq']).execute();
    },
  };
}
