import type { CertificatesRepository } from '../interfaces/certificates.js';
import type { Kysely } from 'kysely';
import type { Certificate, NewCertificate } from '../../domain/certificate.js';
import type { Database } from '../schema.js';
import { certificateOf, certificateRow } from '../mappers/certificate.js';
import { applyPage, readPage, type PageRequest } from './page.js';

/**
 * Single-query primitives over `certificates`; every read is scoped to one environment, so another
 * environment's token is simply not found. The writes record no event: the service that makes a
 * change records it in the same unit of work (docs/events.md).
 */
export class CertificatesRepo implements CertificatesRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(certificate: NewCertificate): Promise<void> {
    await this.db.insertInto('certificates').values(certificateRow(certificate)).execute();
  }

  async find(environmentKey: string, token: string): Promise<Certificate | undefined> {
    const row = await this.scoped(environmentKey).selectAll().where('token', '=', token).executeTakeFirst();
    return row === undefined ? undefined : certificateOf(row);
  }

  /** Where a certificate sits in the environment's list (a page cursor); undefined when it is not there. */
  positionOf(environmentKey: string, token: string): Promise<{ seq: number } | undefined> {
    return this.scoped(environmentKey).select('seq').where('token', '=', token).executeTakeFirst();
  }

  /** A page; read a part at a time (page.ts): a certificate's PEM alone may be 64 KiB. */
  async list(environmentKey: string, page: PageRequest): Promise<Certificate[]> {
    const rows = await readPage(page, (part) => applyPage(this.scoped(environmentKey).selectAll(), 'seq', part).execute());
    return rows.map(certificateOf);
  }

  async usable(environmentKey: string, limit: number): Promise<Certificate[]> {
    const rows = await this.scoped(environmentKey).selectAll().where('redacted_at', 'is', null).orderBy('seq', 'asc').limit(limit).execute();
    return rows.map(certificateOf);
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

  /**
   * Erases the private key, the signed certificate and the CSR and marks the row redacted; false
   * when there is no such certificate or it is redacted already.
   */
  async redact(environmentKey: string, token: string, redactedAt: string): Promise<boolean> {
    const result = await this.db
      .updateTable('certificates')
      .set({ sealed_private_key: '', pem: null, csr: null, redacted_at: redactedAt, updated_at: redactedAt })
      .where('environment_key', '=', environmentKey)
      .where('token', '=', token)
      .where('redacted_at', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  private scoped(environmentKey: string) {
    return this.db.selectFrom('certificates').where('environment_key', '=', environmentKey);
  }
}
