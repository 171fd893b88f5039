import type { Kysely } from 'kysely';

/**
 * Key custody (docs/key-custody.md): one row per master key split into custodian shares.
 *
 * - `check_value`: HMAC-SHA-256 of a fixed label under the master key, hex: the combined shares
 *   are accepted only when they reproduce it. It reveals nothing of the key.
 * - `share_digests`: JSON array of the SHA-256 (hex) of each share, so a share that does not
 *   belong to this key is refused the moment it is submitted. A share is 33 random-looking
 *   bytes: its digest cannot be inverted.
 * - `threshold`/`shares`: how many shares unseal, of how many printed.
 */
export const masterKeyChecks = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('master_key_checks')
      .addColumn('master_key_id', 'text', (c) => c.primaryKey())
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('check_value', 'text', (c) => c.notNull())
      .addColumn('share_digests', 'text', (c) => c.notNull())
      .addColumn('threshold', 'integer', (c) => c.notNull())
      .addColumn('shares', 'integer', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
  },
};
