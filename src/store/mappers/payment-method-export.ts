import type { ExportActor, ExportFilter, PaymentMethodExport } from '../../domain/payment-method-export.js';
import type { PaymentMethodExportsTable } from '../schema.js';

export type PaymentMethodExportRow = PaymentMethodExportsTable;

function actorOf(type: string | null, id: string | null): ExportActor | null {
  return type === null || id === null ? null : { type: type as ExportActor['type'], id };
}

export function paymentMethodExportOf(row: PaymentMethodExportRow): PaymentMethodExport {
  return {
    token: row.token,
    environmentKey: row.environment_key,
    state: row.state as PaymentMethodExport['state'],
    filter: JSON.parse(row.filter) as ExportFilter,
    recipientPublicKey: row.recipient_public_key,
    recipientFingerprint: row.recipient_fingerprint,
    recipientUserIds: JSON.parse(row.recipient_user_ids) as string[],
    requestedBy: actorOf(row.requester_type, row.requester) as ExportActor,
    approvedBy: actorOf(row.approver_type, row.approver),
    downloadedBy: actorOf(row.downloader_type, row.downloader),
    closedBy: actorOf(row.closer_type, row.closer),
    paymentMethods: row.payment_methods === null ? null : Number(row.payment_methods),
    error: row.error,
    expiresAt: row.expires_at,
    createdAt: row.created_at,
    approvedAt: row.approved_at,
    downloadedAt: row.downloaded_at,
    closedAt: row.closed_at,
    updatedAt: row.updated_at,
  };
}

export function paymentMethodExportRow(job: PaymentMethodExport): PaymentMethodExportRow {
  return {
    token: job.token,
    environment_key: job.environmentKey,
    state: job.state,
    filter: JSON.stringify(job.filter),
    recipient_public_key: job.recipientPublicKey,
    recipient_fingerprint: job.recipientFingerprint,
    recipient_user_ids: JSON.stringify(job.recipientUserIds),
    requester_type: job.requestedBy.type,
    requester: job.requestedBy.id,
    approver_type: job.approvedBy?.type ?? null,
    approver: job.approvedBy?.id ?? null,
    downloader_type: job.downloadedBy?.type ?? null,
    downloader: job.downloadedBy?.id ?? null,
    closer_type: job.closedBy?.type ?? null,
    closer: job.closedBy?.id ?? null,
    payment_methods: job.paymentMethods,
    error: job.error,
    expires_at: job.expiresAt,
    created_at: job.createdAt,
    approved_at: job.approvedAt,
    downloaded_at: job.downloadedAt,
    closed_at: job.closedAt,
    updated_at: job.updatedAt,
  };
}
