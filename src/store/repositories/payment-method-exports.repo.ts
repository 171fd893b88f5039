import type { Kysely, Updateable } from 'kysely';
import type { ExportTransition, PaymentMethodExport } from '../../domain/payment-method-export.js';
import type { PaymentMethodExportsRepository } from '../interfaces/payment-method-exports.js';
import { paymentMethodExportOf, paymentMethodExportRow } from '../mappers/payment-method-export.js';
import type { Database, PaymentMethodExportsTable } from '../schema.js';

/** Single-query primitives over export requests (docs/portability.md, "Exporting"). Records no events. */
export class PaymentMethodExportsRepo implements PaymentMethodExportsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(job: PaymentMethodExport): Promise<void> {
    await this.db.insertInto('payment_method_exports').values(paymentMethodExportRow(job)).execute();
  }

  async find(environmentKey: string, token: string): Promise<PaymentMethodExport | undefined> {
    const row = await this.db.selectFrom('payment_method_exports').selectAll().where('environment_key', '=', environmentKey).where('token', '=', token).executeTakeFirst();
    return row === undefined ? undefined : paymentMethodExportOf(row);
  }

  async list(environmentKey: string, limit: number): Promise<PaymentMethodExport[]> {
    const rows = await this.db.selectFrom('payment_method_exports').selectAll().where('environment_key', '=', environmentKey).orderBy('created_at', 'desc').orderBy('token', 'desc').limit(limit).execute();
    return rows.map(paymentMethodExportOf);
  }

  async transition(environmentKey: string, token: string, change: ExportTransition): Promise<PaymentMethodExport | undefined> {
    const set: Updateable<PaymentMethodExportsTable> = { state: change.to, updated_at: change.at };
    if (change.approvedBy !== undefined) Object.assign(set, { approver_type: change.approvedBy.type, approver: change.approvedBy.id, approved_at: change.at });
    if (change.downloadedBy !== undefined) Object.assign(set, { downloader_type: change.downloadedBy.type, downloader: change.downloadedBy.id, downloaded_at: change.at });
    if (change.closedBy !== undefined) Object.assign(set, { closer_type: change.closedBy.type, closer: change.closedBy.id, closed_at: change.at });
    if (change.paymentMethods !== undefined) set.payment_methods = change.paymentMethods;
    if (change.error !== undefined) set.error = change.error;
    if (change.expiresAt !== undefined) set.expires_at = change.expiresAt;
    let query = this.db.updateTable('payment_method_exports').set(set).where('environment_key', '=', environmentKey).where('token', '=', token).where('state', '=', change.from);
    if (change.unexpiredAt !== undefined) query = query.where('expires_at', '>', change.unexpiredAt);
    const row = await query.returningAll().executeTakeFirst();
    return row === undefined ? undefined : paymentMethodExportOf(row);
  }
}
