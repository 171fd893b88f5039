import type { Kysely } from 'kysely';

/**
 * Vault portability, second pass (docs/portability.md):
 *
 * - `payment_method_exports.closer_type`, `closer`, `closed_at`: who ended a pending export
 *   without it running (its requester cancelling it, another admin rejecting it) and when; the
 *   state (`cancelled` or `rejected`) says which.
 * - `upstream_intake_grants.request_id`: the X-Request-Id of the API request that caused a pull
 *   (the request that named a missing token, or the one that started the backfill), so the
 *   events the intake records for the card carry it like every other event (docs/events.md).
 */
export const portabilityClosing = {
  async up(db: Kysely<unknown>): Promise<void> {
    await db.schema.alterTable('payment_method_exports').addColumn('closer_type', 'text').execute();
    await db.schema.alterTable('payment_method_exports').addColumn('closer', 'text').execute();
    await db.schema.alterTable('payment_method_exports').addColumn('closed_at', 'text').execute();
    await db.schema.alterTable('upstream_intake_grants').addColumn('request_id', 'text').execute();
  },
};
