import { sql, type Kysely } from 'kysely';
import { withSeq } from './columns.js';
import type { Dialect } from '../dialect.js';

/**
 * The merchant portal: its users, their server-side sessions, the audit log, and when each
 * access secret was last used (shown in the portal; written at most once a minute per secret).
 */
export function portal(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withSeq(db.schema.createTable('portal_users'), dialect)
        .addColumn('token', 'text', (c) => c.notNull().unique())
        .addColumn('organization_token', 'text', (c) => c.notNull().references('organizations.token'))
        // Stored lower case: one account per address whatever the capitals typed.
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        // Sealed under the secret-hash key's sibling (see services/portal-users.service.ts).
        .addColumn('totp_secret', 'text')
        .addColumn('totp_enabled', 'integer', (c) => c.notNull())
        .addColumn('disabled_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('portal_users_by_org').on('portal_users').columns(['organization_token', 'seq']).execute();

      await db.schema
        .createTable('portal_sessions')
        // SHA-256 of the cookie value: a read of the table does not hand out live sessions.
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_token', 'text', (c) => c.notNull().references('portal_users.token'))
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        // 'password' until the second factor is given, then 'active'.
        .addColumn('stage', 'text', (c) => c.notNull())
        .addColumn('environment_key', 'text')
        .addColumn('address', 'text', (c) => c.notNull())
        // The one-time value of the last form that showed a secret: a reload (re-POST) shows nothing.
        .addColumn('consumed_nonce', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_seen_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('portal_sessions_by_user').on('portal_sessions').columns(['user_token']).execute();

      await withSeq(db.schema.createTable('audit_events'), dialect)
        .addColumn('token', 'text', (c) => c.notNull().unique())
        .addColumn('organization_token', 'text', (c) => c.notNull().references('organizations.token'))
        .addColumn('actor_type', 'text', (c) => c.notNull())
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('object_type', 'text', (c) => c.notNull())
        .addColumn('object_id', 'text')
        .addColumn('environment_key', 'text')
        .addColumn('address', 'text')
        .addColumn('details', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('audit_events_by_org').on('audit_events').columns(['organization_token', 'seq']).execute();

      await db.schema.alterTable('access_secrets').addColumn('last_used_at', 'text').execute();

      // Transactions searchable by order id: the value of details.order_id, in a column of its own.
      await db.schema.alterTable('transactions').addColumn('order_id', 'text').execute();
      const orderId = dialect === 'postgres' ? sql`(details::json ->> 'order_id')` : sql`json_extract(details, '$.order_id')`;
      await sql`update transactions set order_id = ${orderId} where details is not null`.execute(db);
      // The overview's 24-hour and 30-day aggregates read a time range of one environment.
      await db.schema.createIndex('transactions_by_env_created').on('transactions').columns(['environment_key', 'created_at']).execute();
      // Transactions filtered by state (the portal's search, the overview's last failures).
      await db.schema.createIndex('transactions_by_env_state').on('transactions').columns(['environment_key', 'state', 'seq']).execute();
      // Hourly counts of gateway transactions per gateway, filled lazily for hours that have ended
      // (the overview reads these instead of aggregating a month of transactions on every load).
      await db.schema
        .createTable('transaction_rollups')
        .addColumn('environment_key', 'text', (c) => c.notNull())
        .addColumn('gateway_token', 'text', (c) => c.notNull())
        .addColumn('hour', 'text', (c) => c.notNull())
        .addColumn('succeeded', 'integer', (c) => c.notNull())
        .addColumn('failed', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('transaction_rollups_pk', ['environment_key', 'gateway_token', 'hour'])
        .execute();
      // Per environment: every hour before `complete_until` has its rollups.
      await db.schema
        .createTable('transaction_rollup_marks')
        .addColumn('environment_key', 'text', (c) => c.primaryKey())
        .addColumn('complete_until', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('transactions_by_order').on('transactions').columns(['environment_key', 'order_id']).execute();
    },
  };
}
