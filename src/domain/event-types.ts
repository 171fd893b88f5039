/**
 * The event types Coffer records, and how a repository write maps to one. Names follow
 * Spreedly's (`AddGateway`, `RedactPaymentMethod`); docs/events.md lists them all.
 */
export const EVENT_TYPES = [
  'AddGateway',
  'UpdateGateway',
  'RetainGateway',
  'RedactGateway',
  'AddPaymentMethod',
  'UpdatePaymentMethod',
  'RetainPaymentMethod',
  'RedactPaymentMethod',
  'RecachePaymentMethod',
  'UsePaymentMethod',
  'ClosePaymentMethod',
  'TransactionCreated',
  'TransactionSucceeded',
  'TransactionFailed',
  'TransactionPending',
  'TransactionResultUnknown',
  'TransactionReconciled',
  /** A retry chain moved on to a backup gateway; the event points at the new attempt. */
  'TransactionFailedOver',
  'AddReceiver',
  'UpdateReceiver',
  'RedactReceiver',
  'AddCertificate',
  'UpdateCertificate',
  'RedactCertificate',
  // Routing workflows, and the decision a workflow made for a transaction.
  'AddWorkflow',
  'UpdateWorkflow',
  'RemoveWorkflow',
  'TransactionRouted',
  'AddEnvironment',
  'UpdateEnvironment',
  'RegenerateSigningSecret',
  'CreateAccessSecret',
  'RevokeAccessSecret',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** The event a transaction entering `state` records; null for states that are not an outcome. */
export function transactionStateEvent(state: string | undefined): EventType | null {
  switch (state) {
    case 'succeeded':
      return 'TransactionSucceeded';
    case 'failed':
    case 'gateway_processing_failed':
      return 'TransactionFailed';
    case 'pending':
      return 'TransactionPending';
    case 'gateway_processing_result_unknown':
      return 'TransactionResultUnknown';
    default:
      return null;
  }
}

/** What a payment-method patch means; null when it only drops a CVV whose window ended (housekeeping). */
export function paymentMethodPatchEvent(patch: { storage_state?: unknown; sealed_cvv?: unknown; [column: string]: unknown }): EventType | null {
  switch (patch.storage_state) {
    case 'retained':
      return 'RetainPaymentMethod';
    case 'redacted':
      return 'RedactPaymentMethod';
    case 'used':
      return 'UsePaymentMethod';
    case 'closed':
      return 'ClosePaymentMethod';
    default:
      break;
  }
  if (typeof patch.sealed_cvv === 'string') return 'RecachePaymentMethod';
  const cvvOnly = Object.keys(patch).every((column) => ['sealed_cvv', 'cvv_length', 'cvv_expires_at', 'updated_at'].includes(column));
  return patch.sealed_cvv === null && cvvOnly ? null : 'UpdatePaymentMethod';
}

/** What a gateway or receiver patch means. */
export function redactablePatchEvent(kind: 'Gateway' | 'Receiver', patch: { state?: unknown }): EventType {
  return patch.state === 'redacted' ? `Redact${kind}` : `Update${kind}`;
}
