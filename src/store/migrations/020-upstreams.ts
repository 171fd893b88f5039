import type { Kysely } from 'kysely';

/**
 * Live migration from a Spreedly-compatible vault (docs/portability.md, "Live migration"):
 *
 * - `environment_upstreams`: one row per environment that names an upstream: where it is, its
 *   sealed access secret, the receiver there that delivers to this Coffer, the count of cards
 *   pulled on demand, and the backfill's progress (its cursor is the upstream token it last
 *   finished, so an interrupted walk resumes after it).
 * - `upstream_failures`: the tokens that could not be pulled and why, one row per token (a later
 *   success deletes it).
 * - `upstream_intake_grants`: one-time intake credentials, by their SHA-256 (the credential itself
 *   is never stored): each admits one delivery of one token into one environment, and holds the
 *   upstream's non-sensitive fields of that token (JSON) for the intake to seal the card with.
 */
export const upstreams = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema
      .createTable('environment_upstreams')
      .addColumn('environment_key', 'text', (c) => c.primaryKey())
      .addColumn('url', 'text', (c) => c.notNull())
      .addColumn('upstream_environment_key', 'text', (c) => c.notNull())
      .addColumn('sealed_access_secret', 'text', (c) => c.notNull())
      .addColumn('public_url', 'text', (c) => c.notNull())
      .addColumn('receiver_token', 'text')
      .addColumn('pulled_on_demand', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('backfill_state', 'text', (c) => c.notNull().defaultTo('idle'))
      .addColumn('backfill_cursor', 'text')
      .addColumn('backfill_seen', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('backfill_backfilled', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('backfill_already_here', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('backfill_failed', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('backfill_started_at', 'text')
      .addColumn('backfill_finished_at', 'text')
      .addColumn('backfill_throttled_until', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('upstream_failures')
      .addColumn('environment_key', 'text', (c) => c.notNull())
      .addColumn('payment_method_token', 'text', (c) => c.notNull())
      .addColumn('reason', 'text', (c) => c.notNull())
      .addColumn('at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('upstream_failures_pk', ['environment_key', 'payment_method_token'])
      .execute();
    await db.schema
      .createTable('upstream_intake_grants')
      .addColumn('credential_hash', 'text', (c) => c.primaryKey())
      .addColumn('environment_key', 'text', (c) => c.notNull())
      .addColumn('payment_method_token', 'text', (c) => c.notNull())
      .addColumn('fields', 'text', (c) => c.notNull())
      .addColumn('purpose', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('used_at', 'text')
      .execute();
    await db.schema.createIndex('upstream_intake_grants_expiry').on('upstream_intake_grants').column('expires_at').execute();
  },
};
