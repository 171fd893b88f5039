import type { Kysely, Selectable } from 'kysely';
import type { CertificatesTable, Database } from '../schema.js';
import { EnvironmentScopedRepo } from './environment-scoped.repo.js';

export type CertificateRow = Selectable<CertificatesTable>;

/** Single-query primitives over `certificates`; every read is scoped to one environment. */
export class CertificatesRepo extends EnvironmentScopedRepo<'certificates'> {
  constructor(db: Kysely<Database>) {
    super(db, 'certificates');
  }

  /** Attaches (or replaces) the signed certificate; false when there is no such certificate. */
  async attachPem(environmentKey: string, token: string, pem: string, updatedAt: string): Promise<boolean> {
    const result = await this.db
      .updateTable('certificates')
      .set({ pem, updated_at: updatedAt })
      .where('environment_key', '=', environmentKey)
      .where('token', '=', token)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Certificates of an environment whose private key was not sealed by `keyId`, for re-encryption. */
  sealedWithOtherKey(environmentKey: string, keyId: string, limit: number): Promise<Array<{ token: string; sealed_private_key: string }>> {
    return this.db
      .selectFrom('certificates')
      .select(['token', 'sealed_private_key'])
      .where('environment_key', '=', environmentKey)
      .where('sealed_private_key', 'not like', `c1.${keyId}.%`)
      .limit(limit)
      .execute();
  }

  /** Replaces the sealed private key only if it is still the blob that was read. */
  async replaceSealed(environmentKey: string, token: string, from: string, to: string): Promise<boolean> {
    const result = await this.db
      .updateTable('certificates')
      .set({ sealed_private_key: to })
      .where('environment_key', '=', environmentKey)
      .where('token', '=', token)
      .where('sealed_private_key', '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
