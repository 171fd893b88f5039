import type { Kysely } from 'kysely';

/**
 * The overview's figures (docs/portal.md, "Overview"; src/domain/rollup.ts): one count per
 * environment, UTC hour, figure, gateway and label (a decline code, a latency bucket, a workflow
 * rule), filled lazily for hours that have ended, and the mark up to which they are complete.
 * They replace `transaction_rollups` (succeeded and failed gateway transactions per hour), whose
 * counts the new `payments`/`approved` figures restate for payments only; the old tables are
 * dropped and their hours are filled again from the transactions on the first overview.
 */
export const overviewFigures = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('overview_rollups')
      .addColumn('environment_key', 'text', (c) => c.notNull())
      .addColumn('hour', 'text', (c) => c.notNull())
      .addColumn('figure', 'text', (c) => c.notNull())
      .addColumn('gateway_token', 'text', (c) => c.notNull())
      .addColumn('label', 'text', (c) => c.notNull())
      .addColumn('count', 'integer', (c) => c.notNull())
      .addPrimaryKeyConstraint('overview_rollups_pk', ['environment_key', 'hour', 'figure', 'gateway_token', 'label'])
      .execute();
    await db.schema
      .createTable('overview_rollup_marks')
      .addColumn('environment_key', 'text', (c) => c.primaryKey())
      .addColumn('complete_until', 'text', (c) => c.notNull())
      .execute();
    await db.schema.dropTable('transaction_rollups').execute();
    await db.schema.dropTable('transaction_rollup_marks').execute();
  },
};
