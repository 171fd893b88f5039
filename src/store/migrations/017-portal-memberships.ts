import { sql, type Kysely } from 'kysely';
import { withSeq } from './columns.js';
import type { Dialect } from '../dialect.js';

/**
 * Portal people and memberships (docs/portal.md "Accounts and organizations"). Until now a portal
 * user was an email bound to one organization, and emails were unique across organizations, so
 * one organization learnt that an address had an account elsewhere. Now a person (email,
 * password, second factor, lockout) belongs to organizations through memberships (role,
 * disabled), joins a new one through an invitation, and a session acts in one organization at a
 * time.
 *
 * Every existing user becomes a person and one membership, both keeping the user's token: TOTP
 * secrets are sealed with the token as associated data, and audit entries name it. A TOTP secret
 * that was set up but never turned on becomes the pending one. Sessions carry on in their
 * user's organization.
 */
export function portalMemberships(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await withSeq(db.schema.createTable('portal_people'), dialect)
        .addColumn('token', 'text', (c) => c.notNull().unique())
        // Stored lower case: one person per address whatever the capitals typed.
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('totp_secret', 'text')
        .addColumn('totp_pending_secret', 'text')
        .addColumn('totp_enabled', 'integer', (c) => c.notNull())
        // RFC 6238 steps are ~5.9e7 today: an integer until long after this code is gone.
        .addColumn('totp_last_step', 'integer')
        .addColumn('failed_sign_ins', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('locked_until', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();

      await withSeq(db.schema.createTable('portal_memberships'), dialect)
        .addColumn('token', 'text', (c) => c.notNull().unique())
        .addColumn('person_token', 'text', (c) => c.notNull().references('portal_people.token'))
        .addColumn('organization_token', 'text', (c) => c.notNull().references('organizations.token'))
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('disabled_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('portal_memberships_person_org', ['organization_token', 'person_token'])
        .execute();
      await db.schema.createIndex('portal_memberships_by_org').on('portal_memberships').columns(['organization_token', 'seq']).execute();
      await db.schema.createIndex('portal_memberships_by_person').on('portal_memberships').columns(['person_token']).execute();

      await withSeq(db.schema.createTable('portal_invitations'), dialect)
        .addColumn('token', 'text', (c) => c.notNull().unique())
        .addColumn('organization_token', 'text', (c) => c.notNull().references('organizations.token'))
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('secret_hash', 'text', (c) => c.notNull().unique())
        .addColumn('invited_by', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        // One open invitation per address and organization: inviting again replaces it.
        .addUniqueConstraint('portal_invitations_org_email', ['organization_token', 'email'])
        .execute();

      await sql`insert into portal_people (token, email, password_hash, totp_secret, totp_pending_secret, totp_enabled, totp_last_step, failed_sign_ins, locked_until, created_at, updated_at)
        select token, email, password_hash,
          case when totp_enabled = 1 then totp_secret else null end,
          case when totp_enabled = 1 then null else totp_secret end,
          totp_enabled, null, 0, null, created_at, updated_at
        from portal_users order by seq`.execute(db);
      await sql`insert into portal_memberships (token, person_token, organization_token, role, disabled_at, created_at, updated_at)
        select token, token, organization_token, role, disabled_at, created_at, updated_at
        from portal_users order by seq`.execute(db);

      // portal_sessions referenced portal_users: a new table, the live sessions copied over.
      await db.schema
        .createTable('portal_sessions_017')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('person_token', 'text', (c) => c.notNull().references('portal_people.token'))
        .addColumn('organization_token', 'text', (c) => c.notNull().references('organizations.token'))
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('stage', 'text', (c) => c.notNull())
        .addColumn('environment_key', 'text')
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('consumed_nonce', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('last_seen_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await sql`insert into portal_sessions_017 (id_hash, person_token, organization_token, csrf_token, stage, environment_key, address, consumed_nonce, created_at, last_seen_at, expires_at)
        select s.id_hash, s.user_token, u.organization_token, s.csrf_token, s.stage, s.environment_key, s.address, s.consumed_nonce, s.created_at, s.last_seen_at, s.expires_at
        from portal_sessions s join portal_users u on u.token = s.user_token`.execute(db);
      await db.schema.dropTable('portal_sessions').execute();
      await db.schema.alterTable('portal_sessions_017').renameTo('portal_sessions').execute();
      await db.schema.createIndex('portal_sessions_by_person').on('portal_sessions').columns(['person_token', 'organization_token']).execute();
      await db.schema.dropTable('portal_users').execute();
    },
  };
}
