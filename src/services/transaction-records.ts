import type { Insertable } from 'kysely';
import { randomToken, TOKEN_LENGTH } from '../domain/tokens.js';
import type { TransactionsTable } from '../store/schema.js';

/** The message a succeeded transaction carries. */
export const SUCCEEDED_MESSAGE = { key: 'messages.transaction_succeeded', text: 'Succeeded!' } as const;

export interface TransactionRecordInput {
  environmentKey: string;
  transactionType: string;
  /** Succeeded, or refused by Coffer itself (`failed`) with its message. */
  outcome: 'succeeded' | { state: 'failed'; messageKey: string; message: string };
  gatewayToken?: string;
  paymentMethodToken?: string;
  details?: Record<string, unknown>;
  now: string;
}

/** A new row for the transactions table, for the vault's own (non-gateway) transactions. */
export function newTransactionRow(input: TransactionRecordInput): Insertable<TransactionsTable> {
  const succeeded = input.outcome === 'succeeded';
  const outcome = input.outcome === 'succeeded' ? { state: 'succeeded', messageKey: SUCCEEDED_MESSAGE.key, message: SUCCEEDED_MESSAGE.text } : input.outcome;
  return {
    token: randomToken(TOKEN_LENGTH.item),
    environment_key: input.environmentKey,
    transaction_type: input.transactionType,
    state: outcome.state,
    succeeded: succeeded ? 1 : 0,
    message_key: outcome.messageKey,
    message: outcome.message,
    gateway_token: input.gatewayToken ?? null,
    payment_method_token: input.paymentMethodToken ?? null,
    reference_token: null,
    amount: null,
    currency_code: null,
    details: input.details === undefined ? null : JSON.stringify(input.details),
    created_at: input.now,
    updated_at: input.now,
  };
}
