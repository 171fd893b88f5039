import { WireList, type WireObject } from '../format/wire.js';
import type { PaymentMethodImport } from '../../domain/payment-method-import.js';

/**
 * An import job as the API shows it (docs/portability.md): its progress counts, and the refused
 * rows (number, reason, field name) and new tokens; never a value of the file.
 */
export function paymentMethodImportView(job: PaymentMethodImport): WireObject {
  const { rows, imported, skipped, rejected, rejections, remapped, truncated } = job.report;
  return {
    token: job.token,
    state: job.state,
    format: job.format,
    encrypted: job.encrypted,
    rows,
    imported,
    skipped,
    rejected,
    rejections: new WireList(
      'rejection',
      rejections.map((rejection) => ({ row: rejection.row, reason: rejection.reason, field: rejection.field ?? null })),
    ),
    remapped: new WireList(
      'token_map',
      remapped.map((remap) => ({ row: remap.row, old_token: remap.old_token, new_token: remap.new_token })),
    ),
    truncated,
    error: job.error,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
  };
}
