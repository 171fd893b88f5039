import type { Insertable, Kysely, Selectable } from 'kysely';
import type { AccessSecretsTable, Database } from '../schema.js';
import { applyPage, type PageRequest } from './page.js';
import { journaled, type Change } from '../change-journal.js';

/** An access secret's events: in the feed of its first environment, or organization-wide (null). */
function secretChange(row: { key: string; environment_keys: string | null }, eventType: string, at: string): Change {
  const environments = row.environment_keys === null ? [] : (JSON.parse(row.environment_keys) as string[]);
  return { environmentKey: environments[0] ?? null, eventType, objectType: 'access_secret', objectKey: row.key, at };
}

export type AccessSecretRow = Selectable<AccessSecretsTable>;

/** Single-query primitives over `access_secrets`. */
export class AccessSecretsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** Inserts the secret (only its hash is stored) and records CreateAccessSecret with its key. */
  async insert(row: Insertable<AccessSecretsTable>): Promise<void> {
    await journaled(this.db, async (db) => {
      await db.insertInto('access_secrets').values(row).execute();
      return { result: undefined, changes: [secretChange({ key: row.key, environment_keys: row.environment_keys ?? null }, 'CreateAccessSecret', row.created_at)] };
    });
  }

  /** The live (not revoked) secret with this hash, if any. */
  findLiveByHash(secretHash: string): Promise<AccessSecretRow | undefined> {
    return this.db
      .selectFrom('access_secrets')
      .selectAll()
      .where('secret_hash', '=', secretHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
  }

  find(key: string): Promise<AccessSecretRow | undefined> {
    return this.db.selectFrom('access_secrets').selectAll().where('key', '=', key).executeTakeFirst();
  }

  listByOrganization(organizationToken: string | null, page: PageRequest): Promise<AccessSecretRow[]> {
    let query = this.db.selectFrom('access_secrets').selectAll();
    if (organizationToken !== null) query = query.where('organization_token', '=', organizationToken);
    return applyPage(query, 'seq', page).execute();
  }

  async revoke(key: string, revokedAt: string): Promise<boolean> {
    return journaled(this.db, async (db) => {
      const revoked = await db
        .updateTable('access_secrets')
        .set({ revoked_at: revokedAt, updated_at: revokedAt })
        .where('key', '=', key)
        .where('revoked_at', 'is', null)
        .returning(['key', 'environment_keys'])
        .executeTakeFirst();
      return { result: revoked !== undefined, changes: revoked === undefined ? [] : [secretChange(revoked, 'RevokeAccessSecret', revokedAt)] };
    });
  }

  /** Records a use (callers throttle this to once a minute per secret). */
  async touch(key: string, usedAt: string): Promise<void> {
    await this.db.updateTable('access_secrets').set({ last_used_at: usedAt }).where('key', '=', key).execute();
  }
}
