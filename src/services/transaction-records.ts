import type { Insertable } from 'kysely';
import { orderedToken, TOKEN_LENGTH } from '../domain/tokens.js';
import type { TransactionsTable } from '../store/schema.js';

/** The message a succeeded transaction carries. */
export const SUCCEEDED_MESSAGE = { key: 'messages.transaction_succeeded', text: 'Succeeded!' } as const;

export interface TransactionRecordInput {
  environmentKey: string;
  transactionType: string;
  /**
   * Succeeded; refused by Coffer itself (`failed`) with its message; or `processing`, a gateway
   * transaction committed before its call (its outcome is written after).
   */
  outcome: 'succeeded' | 'processing' | { state: 'failed'; messageKey: string; message: string };
  /** Chosen by the caller when it must know the token before the row exists (gateway idempotency). */
  token?: string;
  gatewayToken?: string | null;
  paymentMethodToken?: string | null;
  referenceToken?: string | null;
  amount?: number | null;
  currencyCode?: string | null;
  details?: object;
  now: string;
}

const PROCESSING = { state: 'processing', messageKey: null, message: null };
const SUCCEEDED = { state: 'succeeded', messageKey: SUCCEEDED_MESSAGE.key, message: SUCCEEDED_MESSAGE.text };

/** A new row for the transactions table. */
export function newTransactionRow(input: TransactionRecordInput): Insertable<TransactionsTable> {
  const outcome = input.outcome === 'succeeded' ? SUCCEEDED : input.outcome === 'processing' ? PROCESSING : input.outcome;
  return {
    token: input.token ?? orderedToken(TOKEN_LENGTH.item),
    environment_key: input.environmentKey,
    transaction_type: input.transactionType,
    state: outcome.state,
    succeeded: input.outcome === 'succeeded' ? 1 : 0,
    message_key: outcome.messageKey,
    message: outcome.message,
    gateway_token: input.gatewayToken ?? null,
    payment_method_token: input.paymentMethodToken ?? null,
    reference_token: input.referenceToken ?? null,
    amount: input.amount ?? null,
    currency_code: input.currencyCode ?? null,
    details: input.details === undefined ? null : JSON.stringify(input.details),
    created_at: input.now,
    updated_at: input.now,
  };
}
