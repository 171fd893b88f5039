import type { PaymentMethodPatch } from './payment-method.js';

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
  /** A payment method brought in from another vault (docs/portability.md), under its own token. */
  'ImportPaymentMethod',
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

/** Fields a change that only drops a CVV whose window ended may set (housekeeping). */
const CVV_DROP_FIELDS: readonly string[] = ['sealed', 'cvvLength', 'cvvExpiresAt', 'updatedAt'];

/** What a payment-method patch means; null when it only drops a CVV whose window ended (housekeeping). */
export function paymentMethodPatchEvent(patch: PaymentMethodPatch): EventType | null {
  switch (patch.storageState) {
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
  const cvv = patch.sealed?.cvv;
  if (typeof cvv === 'string') return 'RecachePaymentMethod';
  const cvvOnly = Object.keys(patch).every((field) => CVV_DROP_FIELDS.includes(field)) && Object.keys(patch.sealed ?? {}).every((field) => field === 'cvv');
  return cvv === null && cvvOnly ? null : 'UpdatePaymentMethod';
}

/** What a gateway or receiver patch means. */
export function redactablePatchEvent(kind: 'Gateway' | 'Receiver', patch: { state?: unknown }): EventType {
  return patch.state === 'redacted' ? `Redact${kind}` : `Update${kind}`;
}
