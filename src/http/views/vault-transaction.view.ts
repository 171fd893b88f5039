import type { WireObject } from '../format/wire.js';
import { leanTransactionHead } from './lean-transaction.js';
import { paymentMethodView } from './payment-method.view.js';
import type { PaymentMethod } from '../../domain/payment-method.js';
import type { Transaction } from '../../domain/transaction.js';
import type { VaultTransactionDetails } from '../../domain/transaction-details.js';

/** The lean transaction of the vault (AddPaymentMethod, RetainPaymentMethod, RedactPaymentMethod, RecacheSensitiveData). */
export function vaultTransactionView(transaction: Transaction, paymentMethod: PaymentMethod): WireObject {
  let extra: WireObject = {};
  if (transaction.transactionType === 'AddPaymentMethod' || transaction.transactionType === 'ImportPaymentMethod') {
    const details = (transaction.details as VaultTransactionDetails | null) ?? {};
    extra = { retained: details.retained === true };
  }
  // The head is a new object: adding to it is cheaper than spreading it into another.
  const view = leanTransactionHead(transaction, extra);
  view.payment_method = paymentMethodView(paymentMethod);
  return view;
}
