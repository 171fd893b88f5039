import type { Insertable, Kysely, Selectable } from 'kysely';
import type { AccessSecretsTable, Database } from '../schema.js';
import { applyPage, type PageRequest } from './page.js';

export type AccessSecretRow = Selectable<AccessSecretsTable>;

/** Single-query primitives over `access_secrets`. */
export class AccessSecretsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Insertable<AccessSecretsTable>): Promise<void> {
    await this.db.insertInto('access_secrets').values(row).execute();
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
    const result = await this.db
      .updateTable('access_secrets')
      .set({ revoked_at: revokedAt, updated_at: revokedAt })
      .where('key', '=', key)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Records a use (callers throttle this to once a minute per secret). */
  async touch(key: string, usedAt: string): Promise<void> {
    await this.db.updateTable('access_secrets').set({ last_used_at: usedAt }).where('key', '=', key).execute();
  }
}
