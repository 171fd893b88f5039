import { WireMessage, type WireObject } from '../format/wire.js';
import { storedDate } from './time.js';
import { TransactionState, type Transaction } from '../../domain/transaction.js';

/**
 * Redacting a gateway or receiver reads `redacted` in the first `<state>` of the document (the gem's
 * `.//state`, asserted by its remote tests): a succeeded redact shows that state, in both formats.
 */
const REDACT_SUBJECT_TYPES = new Set(['RedactGateway', 'RedactReceiver']);

function wireState(transaction: Transaction): string {
  return REDACT_SUBJECT_TYPES.has(transaction.transactionType) && transaction.state === TransactionState.succeeded ? 'redacted' : transaction.state;
}

/**
 * The scalars every lean (non-gateway) transaction starts with, in wire order. The subject
 * (payment method, gateway) follows them: the Ruby gem reads the first element of each name.
 * `retained` sits between `transaction_type` and `state` on AddPaymentMethod only.
 */
export function leanTransactionHead(transaction: Transaction, extra: WireObject = {}): WireObject {
  return {
    token: transaction.token,
    created_at: storedDate(transaction.createdAt),
    updated_at: storedDate(transaction.updatedAt),
    succeeded: transaction.succeeded,
    transaction_type: transaction.transactionType,
    ...extra,
    state: wireState(transaction),
    message: new WireMessage(transaction.messageKey, transaction.message),
  };
}
