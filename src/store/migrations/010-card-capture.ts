import type { Kysely } from 'kysely';

/**
 * Card capture in the browser (docs/card-capture.md): per-environment allowed origins and the enhanced
 * security switch of the iFrame, and the nonces already spent by signed tokenizations.
 */
export function cardCapture() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // JSON array of origins ("https://shop.example"); null or [] = any origin.
      await db.schema.alterTable('environments').addColumn('allowed_origins', 'text').execute();
      await db.schema
        .alterTable('environments')
        .addColumn('enhanced_iframe_security', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      // One row per nonce a signed tokenization spent; the primary key refuses a replay even
      // when two nodes see it at once. Rows are purged once their timestamp window has passed.
      await db.schema
        .createTable('used_nonces')
        .addColumn('environment_key', 'text', (c) => c.notNull())
        .addColumn('nonce', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('used_nonces_pk', ['environment_key', 'nonce'])
        .execute();
      await db.schema.createIndex('used_nonces_by_expiry').on('used_nonces').column('expires_at').execute();
    },
  };
}
