import type { Insertable, Selectable, Updateable } from 'kysely';
import type { PaymentMethodsTable } from '../schema.js';
import type { JsonValue, Metadata, NewPaymentMethod, PaymentMethod, PaymentMethodPatch, StorageState } from '../../domain/payment-method.js';

export type PaymentMethodRow = Selectable<PaymentMethodsTable>;
export type PaymentMethodRowPatch = Omit<Updateable<PaymentMethodsTable>, 'seq' | 'token' | 'environment_key' | 'payment_method_type' | 'created_at'>;

function parsedOrNull<T>(json: string | null): T | null {
  return json === null ? null : (JSON.parse(json) as T);
}

function jsonOrNull(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/**
 * A row as the domain sees it: 0/1 as booleans, JSON columns parsed, sealed columns grouped.
 * Plain object construction (it runs for every method a page or a purchase reads); the stored
 * kind and its details are trusted to match, as the service wrote them together.
 */
export function paymentMethodOf(row: PaymentMethodRow): PaymentMethod {
  return {
    token: row.token,
    environmentKey: row.environment_key,
    paymentMethodType: row.payment_method_type,
    storageState: row.storage_state as StorageState,
    test: row.test === 1,
    singleUse: row.single_use === 1,
    email: row.email,
    data: parsedOrNull<JsonValue>(row.data),
    metadata: parsedOrNull<Metadata>(row.metadata),
    callbackUrl: row.callback_url,
    details: JSON.parse(row.details) as PaymentMethod['details'],
    sealed: { number: row.sealed_number, cvv: row.sealed_cvv, routingNumber: row.sealed_routing_number, accountNumber: row.sealed_account_number },
    fingerprint: row.fingerprint,
    cvvLength: row.cvv_length,
    cvvExpiresAt: row.cvv_expires_at,
    cacheExpiresAt: row.cache_expires_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  } as PaymentMethod;
}

/** The row a new payment method is stored as. */
export function newPaymentMethodRow(method: NewPaymentMethod): Insertable<PaymentMethodsTable> {
  return {
    token: method.token,
    environment_key: method.environmentKey,
    payment_method_type: method.paymentMethodType,
    storage_state: method.storageState,
    test: method.test ? 1 : 0,
    single_use: method.singleUse ? 1 : 0,
    email: method.email,
    data: jsonOrNull(method.data),
    metadata: jsonOrNull(method.metadata),
    callback_url: method.callbackUrl,
    details: JSON.stringify(method.details),
    sealed_number: method.sealed?.number ?? null,
    fingerprint: method.fingerprint ?? null,
    sealed_cvv: method.sealed?.cvv ?? null,
    cvv_length: method.cvvLength ?? null,
    cvv_expires_at: method.cvvExpiresAt ?? null,
    sealed_routing_number: method.sealed?.routingNumber ?? null,
    sealed_account_number: method.sealed?.accountNumber ?? null,
    cache_expires_at: method.cacheExpiresAt ?? null,
    created_at: method.createdAt,
    updated_at: method.updatedAt,
  };
}

/**
 * The columns a patch sets, always in this order: the conditional update is precompiled per set
 * of columns (precompiled.ts), so one kind of change is one statement.
 */
export function paymentMethodRowPatch(patch: PaymentMethodPatch): PaymentMethodRowPatch {
  const row: PaymentMethodRowPatch = {};
  if (patch.storageState !== undefined) row.storage_state = patch.storageState;
  if (patch.test !== undefined) row.test = patch.test ? 1 : 0;
  if (patch.singleUse !== undefined) row.single_use = patch.singleUse ? 1 : 0;
  if (patch.email !== undefined) row.email = patch.email;
  if (patch.data !== undefined) row.data = jsonOrNull(patch.data);
  if (patch.metadata !== undefined) row.metadata = jsonOrNull(patch.metadata);
  if (patch.callbackUrl !== undefined) row.callback_url = patch.callbackUrl;
  if (patch.details !== undefined) row.details = JSON.stringify(patch.details);
  const sealed = patch.sealed;
  if (sealed?.number !== undefined) row.sealed_number = sealed.number;
  if (patch.fingerprint !== undefined) row.fingerprint = patch.fingerprint;
  if (sealed?.cvv !== undefined) row.sealed_cvv = sealed.cvv;
  if (patch.cvvLength !== undefined) row.cvv_length = patch.cvvLength;
  if (patch.cvvExpiresAt !== undefined) row.cvv_expires_at = patch.cvvExpiresAt;
  if (sealed?.routingNumber !== undefined) row.sealed_routing_number = sealed.routingNumber;
  if (sealed?.accountNumber !== undefined) row.sealed_account_number = sealed.accountNumber;
  if (patch.cacheExpiresAt !== undefined) row.cache_expires_at = patch.cacheExpiresAt;
  if (patch.updatedAt !== undefined) row.updated_at = patch.updatedAt;
  return row;
}
