import type { ExportActor } from '../../domain/payment-method-export.js';
import type { ExportView } from '../../services/portability/export.service.js';
import { WireList, type WireObject } from '../format/wire.js';

function actorView(actor: ExportActor | null): WireObject | null {
  return actor === null ? null : { type: actor.type, id: actor.id };
}

/**
 * An export as the API shows it (docs/portability.md, "Exporting"): its state (expiry applied),
 * filter, the recipient's key and fingerprint (for the approver to check), who requested,
 * approved, downloaded, cancelled or rejected it, and how many methods the file held. Never a card value.
 */
export function paymentMethodExportView(job: ExportView): WireObject {
  return {
    token: job.token,
    state: job.shownState,
    storage_state: new WireList('storage_state', [...job.filter.storageStates]),
    created_from: job.filter.createdFrom,
    created_to: job.filter.createdTo,
    metadata: { ...job.filter.metadata },
    recipient_fingerprint: job.recipientFingerprint,
    recipient_user_ids: new WireList('user_id', [...job.recipientUserIds]),
    recipient_public_key: job.recipientPublicKey,
    requested_by: actorView(job.requestedBy),
    approved_by: actorView(job.approvedBy),
    downloaded_by: actorView(job.downloadedBy),
    closed_by: actorView(job.closedBy),
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
