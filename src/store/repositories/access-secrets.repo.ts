import type { AccessSecretsRepository } from '../interfaces/access-secrets.js';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { applyPage, type PageRequest } from './page.js';
import { accessSecretOf, newAccessSecretRow } from '../mappers/access-secret.js';
import type { AccessSecret, NewAccessSecret } from '../../domain/access-secret.js';

/**
 * Single-query primitives over `access_secrets`. The events of their changes are recorded by the
 * services that decide them (docs/events.md).
 */
export class AccessSecretsRepo implements AccessSecretsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Inserts the secret's record (only its hash is stored). */
  async insert(secret: NewAccessSecret): Promise<void> {
    await this.db.insertInto('access_secrets').values(newAccessSecretRow(secret)).execute();
  }

  /** The live (not revoked) secret with this hash, if any. */
  async findLiveByHash(secretHash: string): Promise<AccessSecret | undefined> {
    const row = await this.db
      .selectFrom('access_secrets')
      .selectAll()
      .where('secret_hash', '=', secretHash)
      .where('revoked_at', 'is', null)
      .executeTakeFirst();
    return row === undefined ? undefined : accessSecretOf(row);
  }

  async find(key: string): Promise<AccessSecret | undefined> {
    const row = await this.db.selectFrom('access_secrets').selectAll().where('key', '=', key).executeTakeFirst();
    return row === undefined ? undefined : accessSecretOf(row);
  }

  async listByOrganization(organizationToken: string | null, page: PageRequest): Promise<AccessSecret[]> {
    let query = this.db.selectFrom('access_secrets').selectAll();
    if (organizationToken !== null) query = query.where('organization_token', '=', organizationToken);
    return (await applyPage(query, 'seq', page).execute()).map(accessSecretOf);
  }

  /** Revokes a live secret: the secret as revoked, or undefined when none was live. */
  async revoke(key: string, revokedAt: string): Promise<AccessSecret | undefined> {
    const row = await this.db
      .updateTable('access_secrets')
      .set({ revoked_at: revokedAt, updated_at: revokedAt })
      .where('key', '=', key)
      .where('revoked_at', 'is', null)
      .returningAll()
      .executeTakeFirst();
    return row === undefined ? undefined : accessSecretOf(row);
  }

  /** Records a use (callers throttle this to once a minute per secret). */
  async touch(key: string, usedAt: string): Promise<void> {
    await this.db.updateTable('access_secrets').set({ last_used_at: usedAt }).where('key', '=', key).execute();
  }
}
