import type { ImportKey, ImportReport, ImportState, PaymentMethodImport } from '../../domain/payment-method-import.js';
import type { ImportKeysTable, PaymentMethodImportsTable } from '../schema.js';

export type PaymentMethodImportRow = PaymentMethodImportsTable;

export function paymentMethodImportOf(row: PaymentMethodImportRow): PaymentMethodImport {
  return {
    token: row.token,
    environmentKey: row.environment_key,
    state: row.state as ImportState,
    format: row.format,
    encrypted: row.encrypted === 1,
    report: JSON.parse(row.report) as ImportReport,
    error: row.error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function paymentMethodImportRow(job: PaymentMethodImport): PaymentMethodImportRow {
  return {
    token: job.token,
    environment_key: job.environmentKey,
    state: job.state,
    format: job.format,
    encrypted: job.encrypted ? 1 : 0,
    report: JSON.stringify(job.report),
    error: job.error,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
  };
}

export function importKeyOf(row: ImportKeysTable): ImportKey {
  return { environmentKey: row.environment_key, publicKey: row.public_key, sealedPrivateKey: row.sealed_private_key, fingerprint: row.fingerprint, createdAt: row.created_at };
}
