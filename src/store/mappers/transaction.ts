import type { Insertable, Selectable, Updateable } from 'kysely';
import type { TransactionsTable } from '../schema.js';
import type { NewTransaction, RoutedBy, Transaction, TransactionPatch, TransactionState } from '../../domain/transaction.js';
import type { TransactionDetails } from '../../domain/transaction-details.js';

/**
 * Rows of `transactions` ↔ domain transactions: 0/1 ↔ boolean, JSON text ↔ parsed objects,
 * snake_case ↔ camelCase. Plain object construction only: every read of a transaction comes
 * through here (no validation on the read path; the writers are Coffer's own).
 */

export type TransactionRow = Selectable<TransactionsTable>;

/** The domain transaction of a stored row; `details` when the caller holds them parsed already (just written). */
export function transactionOf(row: TransactionRow, details?: TransactionDetails | null): Transaction {
  return {
    token: row.token,
    environmentKey: row.environment_key,
    transactionType: row.transaction_type,
    state: row.state as TransactionState,
    succeeded: row.succeeded === 1,
    messageKey: row.message_key,
    message: row.message,
    gatewayToken: row.gateway_token,
    paymentMethodToken: row.payment_method_token,
    referenceToken: row.reference_token,
    amount: row.amount,
    currencyCode: row.currency_code,
    details: details !== undefined ? details : row.details === null ? null : (JSON.parse(row.details) as TransactionDetails),
    transcript: row.transcript,
    receiverToken: row.receiver_token,
    orderId: row.order_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    callbackUrl: row.callback_url,
    callbackFormat: row.callback_format,
    reconcileNextAt: row.reconcile_next_at,
    reconcileAttempts: row.reconcile_attempts,
    reconciledAt: row.reconciled_at,
    firstAttemptToken: row.first_attempt_token,
    routedBy: row.routed_by === null ? null : (JSON.parse(row.routed_by) as RoutedBy),
    position: row.seq,
  };
}

/**
 * The row of a new transaction. Its columns come in one order whatever the transaction (the
 * insert is compiled once per set of columns, precompiled.ts); the optional ones left out are
 * the table's defaults. `order_id` is `details.order_id`, copied so the portal can search it.
 */
export function newTransactionRow(transaction: NewTransaction): Insertable<TransactionsTable> {
  const row: Insertable<TransactionsTable> = {
    token: transaction.token,
    environment_key: transaction.environmentKey,
    transaction_type: transaction.transactionType,
    state: transaction.state,
    succeeded: transaction.succeeded ? 1 : 0,
    message_key: transaction.messageKey,
    message: transaction.message,
    gateway_token: transaction.gatewayToken,
    payment_method_token: transaction.paymentMethodToken,
    reference_token: transaction.referenceToken,
    amount: transaction.amount,
    currency_code: transaction.currencyCode,
    details: transaction.details === null ? null : JSON.stringify(transaction.details),
    created_at: transaction.createdAt,
    updated_at: transaction.updatedAt,
  };
  if (transaction.callbackUrl !== undefined) row.callback_url = transaction.callbackUrl;
  if (transaction.callbackFormat !== undefined) row.callback_format = transaction.callbackFormat;
  if (transaction.firstAttemptToken !== undefined) row.first_attempt_token = transaction.firstAttemptToken;
  if (transaction.receiverToken !== undefined) row.receiver_token = transaction.receiverToken;
  const orderId = transaction.details === null ? undefined : (transaction.details as { order_id?: unknown }).order_id;
  if (typeof orderId === 'string') row.order_id = orderId;
  return row;
}

const PATCH_COLUMNS: { readonly [Field in keyof Required<TransactionPatch>]: keyof TransactionsTable } = {
  state: 'state',
  succeeded: 'succeeded',
  messageKey: 'message_key',
  message: 'message',
  paymentMethodToken: 'payment_method_token',
  details: 'details',
  transcript: 'transcript',
  updatedAt: 'updated_at',
  reconcileNextAt: 'reconcile_next_at',
  reconciledAt: 'reconciled_at',
};

/** The columns a patch sets, in the patch's own order (an undefined field sets nothing, as in Kysely). */
export function transactionPatchRow(patch: TransactionPatch): Updateable<TransactionsTable> {
  const row: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(patch)) {
    if (value === undefined) continue;
    const column = PATCH_COLUMNS[field as keyof TransactionPatch];
    if (field === 'succeeded') row[column] = value === true ? 1 : 0;
    else if (field === 'details') row[column] = value === null ? null : JSON.stringify(value);
    else row[column] = value;
  }
  return row as Updateable<TransactionsTable>;
}

/** `transaction` with the fields `patch` sets (an undefined field sets nothing). */
export function patchedTransaction(transaction: Transaction, patch: TransactionPatch): Transaction {
  const result: Record<string, unknown> = { ...transaction };
  for (const [field, value] of Object.entries(patch)) if (value !== undefined) result[field] = value;
  return result as unknown as Transaction;
}
