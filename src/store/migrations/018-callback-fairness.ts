import { sql, type Kysely } from 'kysely';

/**
 * Fair, concurrent callback delivery (docs/events.md, "Delivery"):
 *
 * - `callback_deliveries.destination`: the key a destination's failures are counted under, the
 *   first 200 characters of the URL (computed in SQL where the row is queued, so the claim can
 *   join on it; callbacks.repo.ts keeps the same length). Existing rows are filled in here.
 * - `callback_destinations`: one row per destination of an environment that failed its last
 *   attempt: consecutive failures and, past the threshold, when it may be tried again. In the
 *   database so that every node sharing it sees the same backoff.
 * - `callback_deliveries_queue` (state, environment_key, next_attempt_at) in place of
 *   `callback_deliveries_due` (state, next_attempt_at): the claim walks the environments that have
 *   a queue and reads the head of each, so one environment's backlog is never read through to
 *   reach another's (the abandoning and deferring of due rows go through it too).
 * - `callback_deliveries_leased`: the rows a node holds right now (a lease), which the claim
 *   counts per environment. Few rows; partial, so the queue's inserts and the delivered rows do
 *   not pay for it.
 */
export const callbackFairness = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('callback_deliveries').addColumn('destination', 'text').execute();
    await sql`update callback_deliveries set destination = substr(url, 1, 200)`.execute(db);
    await db.schema
      .createTable('callback_destinations')
      .addColumn('environment_key', 'text', (c) => c.notNull())
      .addColumn('destination', 'text', (c) => c.notNull())
      .addColumn('failures', 'integer', (c) => c.notNull())
      .addColumn('blocked_until', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('callback_destinations_pk', ['environment_key', 'destination'])
      .execute();
    await db.schema.dropIndex('callback_deliveries_due').execute();
    await db.schema.createIndex('callback_deliveries_queue').on('callback_deliveries').columns(['state', 'environment_key', 'next_attempt_at']).execute();
    await db.schema
      .createIndex('callback_deliveries_leased')
      .on('callback_deliveries')
      .columns(['claimed_until'])
      .where(sql.ref('claimed_until'), 'is not', null)
      .execute();
  },
};
