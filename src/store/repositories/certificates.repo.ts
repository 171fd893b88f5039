import type { Kysely, Selectable } from 'kysely';
import type { CertificatesTable, Database } from '../schema.js';
import { EnvironmentScopedRepo } from './environment-scoped.repo.js';
import { changeIf, journaled } from '../change-journal.js';

export type CertificateRow = Selectable<CertificatesTable>;

/** Single-query primitives over `certificates`; every read is scoped to one environment. */
export class CertificatesRepo extends EnvironmentScopedRepo<'certificates'> {
  constructor(db: Kysely<Database>) {
    super(db, 'certificates');
  }

  /** Attaches (or replaces) the signed certificate; false when there is no such certificate. */
  async attachPem(environmentKey: string, token: string, pem: string, updatedAt: string): Promise<boolean> {
    return journaled(this.db, async (db) => {
      const result = await db
        .updateTable('certificates')
        .set({ pem, updated_at: updatedAt })
        .where('environment_key', '=', environmentKey)
        .where('token', '=', token)
        .executeTakeFirst();
      const changed = Number(result.numUpdatedRows) > 0;
      return { result: changed, changes: changeIf(changed, { environmentKey, eventType: 'UpdateCertificate', objectType: 'certificate', objectKey: token, at: updatedAt }) };
    });
  }

  /**
   * Erases the private key, the signed certificate and the CSR and marks the row redacted; false
   * when there is no such certificate or it is redacted already.
   */
  async redact(environmentKey: string, token: string, redactedAt: string): Promise<boolean> {
    return journaled(this.db, async (db) => {
      const result = await db
        .updateTable('certificates')
        .set({ sealed_private_key: '', pem: null, csr: null, redacted_at: redactedAt, updated_at: redactedAt })
        .where('environment_key', '=', environmentKey)
        .where('token', '=', token)
        .where('redacted_at', 'is', null)
        .executeTakeFirst();
      const changed = Number(result.numUpdatedRows) > 0;
      return { result: changed, changes: changeIf(changed, { environmentKey, eventType: 'RedactCertificate', objectType: 'certificate', objectKey: token, at: redactedAt }) };
    });
  }
}
