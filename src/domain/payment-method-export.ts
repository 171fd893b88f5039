/**
 * Exports of an environment's payment methods (docs/portability.md, "Exporting"): requested by one
 * person, approved by a different one (dual control), downloaded once, then gone.
 *
 * - `pending`: waiting for a second person's approval until `expiresAt`;
 * - `approved`: may be downloaded once until `expiresAt`;
 * - `downloading`: its one download is streaming;
 * - `downloaded`: the file was handed out (`paymentMethods` counts what it held);
 * - `failed`: the download stopped part-way (the export is spent all the same: request a new one);
 * - `cancelled`: its requester withdrew it while it was pending (`closedBy` is the requester);
 * - `rejected`: another admin refused it while it was pending (`closedBy` is who refused it);
 * - `expired`: a pending or approved export whose `expiresAt` passed (computed on read, never stored).
 */
export const EXPORT_STATES = ['pending', 'approved', 'downloading', 'downloaded', 'failed', 'cancelled', 'rejected', 'expired'] as const;
export type ExportState = (typeof EXPORT_STATES)[number];

/** The storage states an export may select: the ones whose card can still be read. */
export const EXPORTABLE_STATES = ['retained', 'cached'] as const;
export type ExportableState = (typeof EXPORTABLE_STATES)[number];

/** Which payment methods go in the file; every field optional (empty: all retained and cached ones). */
export interface ExportFilter {
  storageStates: ExportableState[];
  /** ISO-8601 bounds on `created_at`: from inclusive, to exclusive. */
  createdFrom: string | null;
  createdTo: string | null;
  /** Metadata key → value (compared as text), all of which must match. */
  metadata: Record<string, string>;
}

/** Who took a step: a portal user (by email) or an API access secret (by its key), or the CLI with a secret. */
export interface ExportActor {
  type: 'user' | 'access_secret';
  id: string;
}

export interface PaymentMethodExport {
  token: string;
  environmentKey: string;
  state: Exclude<ExportState, 'expired'>;
  filter: ExportFilter;
  /** The recipient's armored OpenPGP public key: the file is encrypted to it, and only to it. */
  recipientPublicKey: string;
  /** Its fingerprint (hex) and user ids, for the approver to check against a second channel. */
  recipientFingerprint: string;
  recipientUserIds: string[];
  requestedBy: ExportActor;
  approvedBy: ExportActor | null;
  downloadedBy: ExportActor | null;
  /** Who cancelled (the requester) or rejected (another admin) it while pending; null otherwise. */
  closedBy: ExportActor | null;
  /** How many payment methods the file held; null until downloaded. */
  paymentMethods: number | null;
  /** Why the download stopped; never a value of the file. */
  error: string | null;
  /** Approval deadline while pending; download deadline once approved. */
  expiresAt: string;
  createdAt: string;
  approvedAt: string | null;
  downloadedAt: string | null;
  /** When it was cancelled or rejected. */
  closedAt: string | null;
  updatedAt: string;
}

/** A change of state, taken only from `from` and before `notAfter` when given (one conditional write). */
export interface ExportTransition {
  from: PaymentMethodExport['state'];
  to: PaymentMethodExport['state'];
  /** The write happens only while `expiresAt` is later than this (ISO-8601). */
  unexpiredAt?: string;
  approvedBy?: ExportActor;
  downloadedBy?: ExportActor;
  /** Who cancelled or rejected it (the transition's time is recorded as `closedAt`). */
  closedBy?: ExportActor;
  paymentMethods?: number;
  error?: string;
  expiresAt?: string;
  at: string;
}

/** The state as a reader sees it: a pending or approved export past its deadline is expired. */
export function exportStateAt(job: PaymentMethodExport, now: string): ExportState {
  if ((job.state === 'pending' || job.state === 'approved') && job.expiresAt <= now) return 'expired';
  return job.state;
}

/** Two actors are the same person when type and id match (a portal user and an API secret never do). */
export function sameActor(first: ExportActor, second: ExportActor): boolean {
  return first.type === second.type && first.id === second.id;
}
