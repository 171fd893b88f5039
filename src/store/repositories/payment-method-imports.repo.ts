import type { PaymentMethodImportsRepository } from '../interfaces/payment-method-imports.js';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { importKeyOf, paymentMethodImportOf, paymentMethodImportRow } from '../mappers/payment-method-import.js';
import type { ImportKey, PaymentMethodImport } from '../../domain/payment-method-import.js';

/** Single-query primitives over import jobs and import keys (docs/portability.md). Records no events. */
export class PaymentMethodImportsRepo implements PaymentMethodImportsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(job: PaymentMethodImport): Promise<void> {
    await this.db.insertInto('payment_method_imports').values(paymentMethodImportRow(job)).execute();
  }

  /** Writes the job's state, format, report and error as they are now. */
  async save(job: PaymentMethodImport): Promise<void> {
    const row = paymentMethodImportRow(job);
    await this.db
      .updateTable('payment_method_imports')
      .set({ state: row.state, format: row.format, encrypted: row.encrypted, report: row.report, error: row.error, updated_at: row.updated_at })
      .where('token', '=', job.token)
      .execute();
  }

  async find(environmentKey: string, token: string): Promise<PaymentMethodImport | undefined> {
    const row = await this.db.selectFrom('payment_method_imports').selectAll().where('environment_key', '=', environmentKey).where('token', '=', token).executeTakeFirst();
    return row === undefined ? undefined : paymentMethodImportOf(row);
  }

  /** The environment's jobs, newest first. */
  async list(environmentKey: string, limit: number): Promise<PaymentMethodImport[]> {
    const rows = await this.db.selectFrom('payment_method_imports').selectAll().where('environment_key', '=', environmentKey).orderBy('created_at', 'desc').limit(limit).execute();
    return rows.map(paymentMethodImportOf);
  }

  async findKey(environmentKey: string): Promise<ImportKey | undefined> {
    const row = await this.db.selectFrom('import_keys').selectAll().where('environment_key', '=', environmentKey).executeTakeFirst();
    return row === undefined ? undefined : importKeyOf(row);
  }

  /** Stores the key pair unless the environment has one already (two first uses at once keep one); the one kept. */
  async insertKey(key: ImportKey): Promise<ImportKey> {
    await this.db
      .insertInto('import_keys')
      .values({ environment_key: key.environmentKey, public_key: key.publicKey, sealed_private_key: key.sealedPrivateKey, fingerprint: key.fingerprint, created_at: key.createdAt })
      .onConflict((conflict) => conflict.column('environment_key').doNothing())
      .execute();
    return (await this.findKey(key.environmentKey)) as ImportKey;
  }
}
