import { storeAccess } from '../../src/store/store-access.js';
import path from 'node:path';
import { Migrator, sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hashPassword } from '../../src/services/portal-credentials.js';
import { PortalUserService } from '../../src/services/portal-users.service.js';
import { migrateStore, migrationsFor, openStore, type StoreHandle } from '../../src/store/database.js';
import type { PortalSecretBox } from '../../src/vault/portal-secret-box.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { createPostgresDatabase, storeKinds } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

const PASSWORD = 'correct horse battery';
const AT = '2026-03-01T10:00:00.000Z';

/**
 * Migration 017: every portal user of before becomes a person and one membership, keeping the
 * token (TOTP secrets are sealed with it), the password, the second factor, the role and the
 * disabled state; live sessions carry on in their user's organization. Nothing is lost.
 */
describe.each(storeKinds)('migration 017: portal users to people and memberships (%s)', (kind) => {
  let store: StoreHandle;
  let cleanup: () => Promise<void> | void = () => undefined;

  beforeAll(async () => {
    if (kind === 'sqlite') {
      const temp = tempDir('coffer-memberships-');
      cleanup = temp.cleanup;
      store = openStore({ kind: 'sqlite', path: path.join(temp.dir, 'coffer.sqlite') });
    } else {
      const database = await createPostgresDatabase();
      cleanup = database.drop;
      store = openStore({ kind: 'postgres', url: database.url });
    }
    const migrations = migrationsFor(store.dialect);
    const before = new Migrator({ db: store.db, provider: { getMigrations: async () => migrations } });
    const { error } = await before.migrateTo('016-partial-indexes');
    if (error !== undefined) throw error;

    const db = store.db;
    const hash = await hashPassword(PASSWORD);
    for (const org of ['org_one', 'org_two']) await sql`insert into organizations (token, name, active, created_at, updated_at) values (${org}, ${org}, 1, ${AT}, ${AT})`.execute(db);
    const users: Array<[string, string, string, string, string | null, number, string | null]> = [
      ['user_owner', 'org_one', 'owner@example.com', 'owner', 'sealed-totp-in-use', 1, null],
      ['user_setting_up', 'org_one', 'dev@example.com', 'developer', 'sealed-totp-set-up', 0, null],
      ['user_disabled', 'org_two', 'gone@example.com', 'viewer', null, 0, '2026-03-02T00:00:00.000Z'],
    ];
    for (const [token, org, email, role, totp, enabled, disabled] of users) {
      await sql`insert into portal_users (token, organization_token, email, role, password_hash, totp_secret, totp_enabled, disabled_at, created_at, updated_at)
        values (${token}, ${org}, ${email}, ${role}, ${hash}, ${totp}, ${enabled}, ${disabled}, ${AT}, ${AT})`.execute(db);
    }
    await sql`insert into portal_sessions (id_hash, user_token, csrf_token, stage, environment_key, address, consumed_nonce, created_at, last_seen_at, expires_at)
      values ('session_hash', 'user_setting_up', 'csrf', 'active', null, '10.0.0.1', null, ${AT}, ${AT}, '2026-03-01T22:00:00.000Z')`.execute(db);
    // Later migrations run after it; 017 must be the first of them.
    expect((await migrateStore(store))[0]).toBe('017-portal-memberships');
  });
  afterAll(async () => {
    await store.close();
    await cleanup();
  });

  it('makes each user a person with the same token, password and second factor (a set-up never turned on stays pending)', async () => {
    const people = await store.db.selectFrom('portal_people').select(['token', 'email', 'totp_secret', 'totp_pending_secret', 'totp_enabled', 'totp_last_step', 'failed_sign_ins', 'locked_until', 'created_at']).orderBy('seq').execute();
    expect(people).toEqual([
      { token: 'user_owner', email: 'owner@example.com', totp_secret: 'sealed-totp-in-use', totp_pending_secret: null, totp_enabled: 1, totp_last_step: null, failed_sign_ins: 0, locked_until: null, created_at: AT },
      { token: 'user_setting_up', email: 'dev@example.com', totp_secret: null, totp_pending_secret: 'sealed-totp-set-up', totp_enabled: 0, totp_last_step: null, failed_sign_ins: 0, locked_until: null, created_at: AT },
      { token: 'user_disabled', email: 'gone@example.com', totp_secret: null, totp_pending_secret: null, totp_enabled: 0, totp_last_step: null, failed_sign_ins: 0, locked_until: null, created_at: AT },
    ]);
  });

  it('gives each one membership: the organization, role and disabled state', async () => {
    const memberships = await store.db.selectFrom('portal_memberships').select(['token', 'person_token', 'organization_token', 'role', 'disabled_at']).orderBy('seq').execute();
    expect(memberships).toEqual([
      { token: 'user_owner', person_token: 'user_owner', organization_token: 'org_one', role: 'owner', disabled_at: null },
      { token: 'user_setting_up', person_token: 'user_setting_up', organization_token: 'org_one', role: 'developer', disabled_at: null },
      { token: 'user_disabled', person_token: 'user_disabled', organization_token: 'org_two', role: 'viewer', disabled_at: '2026-03-02T00:00:00.000Z' },
    ]);
  });

  it('keeps live sessions, now in their user\'s organization, and drops the old table', async () => {
    const sessions = await store.db.selectFrom('portal_sessions').selectAll().execute();
    expect(sessions).toEqual([
      { id_hash: 'session_hash', person_token: 'user_setting_up', organization_token: 'org_one', csrf_token: 'csrf', stage: 'active', environment_key: null, address: '10.0.0.1', consumed_nonce: null, created_at: AT, last_seen_at: AT, expires_at: '2026-03-01T22:00:00.000Z' },
    ]);
    const tables = (await store.db.introspection.getTables()).map((table) => table.name);
    expect(tables).not.toContain('portal_users');
    expect(tables).not.toContain('portal_sessions_017');
  });

  it('signs the migrated people in with their old passwords; the disabled one has no active membership', async () => {
    const users = new PortalUserService(storeAccess(store), {} as PortalSecretBox, new ManualClock(Date.parse(AT)));
    const owner = await users.authenticate('owner@example.com', PASSWORD, null);
    expect(owner?.token).toBe('user_owner');
    expect((await users.activeMembershipsOf('user_owner')).map((m) => [m.organizationName, m.role])).toEqual([['org_one', 'owner']]);
    expect(await users.activeMembershipsOf('user_disabled')).toEqual([]);
  });
});
