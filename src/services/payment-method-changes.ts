import { paymentMethodPatchEvent } from '../domain/event-types.js';
import type { NewPaymentMethod, PaymentMethod, PaymentMethodPatch, StorageState } from '../domain/payment-method.js';
import type { Repositories } from '../store/repositories.js';

/**
 * The writes of a payment method and the events they mean (docs/events.md), for the services
 * that decide them. `work` is the repositories of an open unit of work (`inTransaction`), so a
 * change and its event land together or not at all.
 */
export type PaymentMethodWork = Pick<Repositories, 'paymentMethods' | 'journal'>;

/** Stores a new payment method and records AddPaymentMethod. */
export async function addPaymentMethod(work: PaymentMethodWork, method: NewPaymentMethod): Promise<void> {
  await work.paymentMethods.insert(method);
  await work.journal.record({ environmentKey: method.environmentKey, eventType: 'AddPaymentMethod', objectType: 'payment_method', objectKey: method.token, at: method.createdAt });
}

/** Records what `patch` means for the method, once it applied (nothing for a CVV-only drop). */
async function recordPatch(work: PaymentMethodWork, environmentKey: string, token: string, patch: PaymentMethodPatch): Promise<void> {
  const eventType = paymentMethodPatchEvent(patch);
  if (eventType === null) return;
  await work.journal.record({ environmentKey, eventType, objectType: 'payment_method', objectKey: token, at: patch.updatedAt });
}

/** Applies `patch` when the method is still in one of `fromStates` and records its event; false (and nothing recorded) when it was not. */
export async function changePaymentMethodIfState(
  work: PaymentMethodWork,
  environmentKey: string,
  token: string,
  fromStates: readonly StorageState[],
  patch: PaymentMethodPatch,
): Promise<boolean> {
  const changed = await work.paymentMethods.updateIfState(environmentKey, token, fromStates, patch);
  if (changed) await recordPatch(work, environmentKey, token, patch);
  return changed;
}

/** As `changePaymentMethodIfState`, only when the method is also unchanged since `method` was read. */
export async function changePaymentMethodIfUnchanged(work: PaymentMethodWork, method: PaymentMethod, fromStates: readonly StorageState[], patch: PaymentMethodPatch): Promise<boolean> {
  const changed = await work.paymentMethods.updateIfUnchanged(method, fromStates, patch);
  if (changed) await recordPatch(work, method.environmentKey, method.token, patch);
  return changed;
}
