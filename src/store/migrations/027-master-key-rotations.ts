import type { Kysely } from 'kysely';

/**
 * `master_key_rotations` (docs/key-custody.md, "Rotation record"): one row per run of
 * `coffer keys rotate-master` or `coffer master-key rotate --to`, completed or interrupted. The
 * master key is installation-wide, so this is an installation-level record beside the
 * organizations' audit trails; the compliance report reads the latest (PCI DSS 3.6.1, 3.7.4).
 * `from_master_key_ids` is a JSON list of the master keys that wrapped the moved keys.
 */
export const masterKeyRotations = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('master_key_rotations')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('to_provider', 'text', (c) => c.notNull())
      .addColumn('to_master_key_id', 'text', (c) => c.notNull())
      .addColumn('from_master_key_ids', 'text', (c) => c.notNull())
      .addColumn('rewrapped', 'integer', (c) => c.notNull())
      .addColumn('remaining', 'integer', (c) => c.notNull())
      .addColumn('outcome', 'text', (c) => c.notNull())
      .addColumn('problem', 'text')
      .addColumn('started_at', 'text', (c) => c.notNull())
      .addColumn('finished_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('master_key_rotations_finished').on('master_key_rotations').columns(['finished_at']).execute();
  },
};
