import type { DeliverySubject } from '../../receivers/template-variables.js';
import type { PaymentMethodSealer } from '../payment-method-sealer.js';
import type { PaymentMethod } from '../../domain/payment-method.js';
import { cardAccessActor, type CardAccessRecord } from '../../domain/card-access.js';
import type { RequestMeta } from '../../domain/request.js';

/**
 * A vaulted payment method opened for a receiver's template: its descriptive fields and its
 * secrets in clear. Null when nothing sensitive is left to send (redacted).
 */
export async function openDeliverySubject(sealer: PaymentMethodSealer, row: PaymentMethod): Promise<DeliverySubject | null> {
  const opened = await sealer.open(row);
  // An offsite (sprel) method holds nothing a receiver could be sent; a wallet's single-use
  // cryptogram is for a gateway transaction, not a delivery (docs/wallets.md).
  if (opened === null || opened.type === 'sprel' || opened.type === 'apple_pay' || opened.type === 'google_pay') return null;
  const subject: DeliverySubject = {
    token: row.token,
    paymentMethodType: opened.type,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
    email: row.email,
    fields: row.details,
  };
  if (opened.type === 'credit_card') {
    subject.number = opened.number.reveal();
    if (opened.verificationValue !== null) subject.verificationValue = opened.verificationValue.reveal();
  } else if (opened.type === 'bank_account') {
    subject.routingNumber = opened.routingNumber.reveal();
    subject.accountNumber = opened.accountNumber.reveal();
  }
  return subject;
}

/** The values of a subject that must never leave in a transcript or a stored response. */
export function sensitiveValuesOf(subject: DeliverySubject): string[] {
  return [subject.number, subject.verificationValue, subject.accountNumber, subject.routingNumber].filter((value): value is string => value !== undefined && value !== '');
}

/** The card access record of a delivery or an export of a payment method (docs/audit.md). */
export function deliveryAccess(environment: { key: string }, paymentMethodToken: string, operation: 'deliver' | 'export', transactionToken: string, request: RequestMeta, at: string): CardAccessRecord {
  return {
    environmentKey: environment.key,
    paymentMethodToken,
    operation,
    objectType: 'transaction',
    objectId: transactionToken,
    ...cardAccessActor(request),
    requestId: request.id,
    createdAt: at,
  };
}
