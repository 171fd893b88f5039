import type { TransactionRow } from '../../store/repositories/transactions.repo.js';
import { WireMessage, type WireObject } from '../format/wire.js';
import { storedDate } from './time.js';

/**
 * The scalars every lean (non-gateway) transaction starts with, in wire order. The subject
 * (payment method, gateway) follows them: the Ruby gem reads the first element of each name.
 * `retained` sits between `transaction_type` and `state` on AddPaymentMethod only.
 */
export function leanTransactionHead(transaction: TransactionRow, extra: WireObject = {}): WireObject {
  return {
    token: transaction.token,
    created_at: storedDate(transaction.created_at),
    updated_at: storedDate(transaction.updated_at),
    succeeded: transaction.succeeded === 1,
    transaction_type: transaction.transaction_type,
    ...extra,
    state: transaction.state,
    message: new WireMessage(transaction.message_key, transaction.message),
  };
}
