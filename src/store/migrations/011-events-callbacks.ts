import type { Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import { withSeq } from './columns.js';

/**
 * The events feed, signed callbacks (per-environment signing secret, a delivery queue
 * with its attempt log) and the reconciliation of unknown gateway results (docs/events.md).
 */
export function eventsAndCallbacks(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // One row per change of an API object, written in the transaction of the change.
      await withSeq(db.schema.createTable('events'), dialect)
        .addColumn('token', 'text', (c) => c.notNull().unique())
        // Null for organization-wide objects (an access secret valid in every environment).
        .addColumn('environment_key', 'text')
        .addColumn('request_id', 'text')
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('object_type', 'text', (c) => c.notNull())
        .addColumn('object_key', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('events_by_environment').on('events').columns(['environment_key', 'seq']).execute();
      await db.schema.createIndex('events_by_object').on('events').columns(['environment_key', 'object_key', 'seq']).execute();
      await db.schema.createIndex('events_by_age').on('events').column('created_at').execute();

      // The signing secret of callbacks (sealed with the environment's data key) and the
      // environment-level callback subscription.
      await db.schema.alterTable('environments').addColumn('sealed_signing_secret', 'text').execute();
      await db.schema.alterTable('environments').addColumn('callback_url', 'text').execute();
      await db.schema.alterTable('environments').addColumn('callback_format', 'text').execute();
      // JSON array of subscribed event types; null = every type.
      await db.schema.alterTable('environments').addColumn('callback_event_types', 'text').execute();

      await db.schema.alterTable('transactions').addColumn('callback_url', 'text').execute();
      await db.schema.alterTable('transactions').addColumn('callback_format', 'text').execute();
      // Reconciliation of gateway_processing_result_unknown: when to ask the gateway next, how
      // often it was asked, and when the answer was recorded.
      await db.schema.alterTable('transactions').addColumn('reconcile_next_at', 'text').execute();
      await db.schema.alterTable('transactions').addColumn('reconcile_attempts', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('transactions').addColumn('reconciled_at', 'text').execute();
      await db.schema.createIndex('transactions_to_reconcile').on('transactions').columns(['reconcile_next_at']).execute();

      // One row per callback to send; the queue survives restarts and is claimed row by row.
      await withSeq(db.schema.createTable('callback_deliveries'), dialect)
        .addColumn('token', 'text', (c) => c.notNull().unique())
        .addColumn('environment_key', 'text', (c) => c.notNull())
        .addColumn('event_token', 'text', (c) => c.notNull())
        // 'event' (the environment's subscription) or 'transaction' (the transaction's callback_url).
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('format', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        .addColumn('claimed_until', 'text')
        .addColumn('claim_id', 'text')
        .addColumn('give_up_at', 'text', (c) => c.notNull())
        .addColumn('last_status', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('callback_deliveries_due').on('callback_deliveries').columns(['state', 'next_attempt_at']).execute();
      await db.schema.createIndex('callback_deliveries_by_event').on('callback_deliveries').columns(['event_token']).execute();

      // The delivery log: one row per attempt (status and latency; never the body).
      await withSeq(db.schema.createTable('callback_attempts'), dialect)
        .addColumn('delivery_token', 'text', (c) => c.notNull())
        .addColumn('attempt', 'integer', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('latency_ms', 'integer', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('callback_attempts_by_delivery').on('callback_attempts').columns(['delivery_token', 'attempt']).execute();
    },
  };
}
