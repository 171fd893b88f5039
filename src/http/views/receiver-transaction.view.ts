import type { RedactedReceiver } from '../../services/receiver.service.js';
import { receiverDetailsOf, snapshotOf } from '../../services/receivers/receiver-transaction-details.js';
import { WireList, type WireObject } from '../format/wire.js';
import { leanTransactionHead } from './lean-transaction.js';
import { paymentMethodView } from './payment-method.view.js';
import { receiverView } from './receiver.view.js';
import type { PaymentMethod } from '../../domain/payment-method.js';
import type { Transaction } from '../../domain/transaction.js';

/** The lean RedactReceiver transaction wrapping the redacted receiver (the gem reads it as a transaction). */
export function redactReceiverView({ transaction, receiver }: RedactedReceiver): WireObject {
  return { ...leanTransactionHead(transaction), receiver: receiverView(receiver.row) };
}

/**
 * DeliverPaymentMethod and ExportPaymentMethods in the order of wire-reference §3.6: the
 * transaction's own scalars, then `response`, `receiver` and `payment_method`. The receiver is
 * shown as it was when the transaction ran.
 */
export function receiverTransactionView(row: Transaction, paymentMethod: PaymentMethod | null): WireObject {
  const details = receiverDetailsOf(row);
  const head = leanTransactionHead(row);
  if (details === null || details.receiver === undefined) return { ...head, receiver_token: row.receiverToken };
  const view: WireObject = { ...head, url: details.url };
  if (row.transactionType === 'ExportPaymentMethods') {
    Object.assign(view, {
      callback_url: details.callback_url ?? null,
      payment_methods_included: new WireList('payment_method_token', details.payment_methods_included ?? []),
      payment_methods_excluded: { ...(details.payment_methods_excluded ?? {}) },
      deliver_time_ms: details.deliver_time_ms,
      receiver: receiverView(snapshotOf(details.receiver)),
    });
    return view;
  }
  Object.assign(view, {
    deliver_time_ms: details.deliver_time_ms,
    response: details.response === null ? null : { status: details.response.status, headers: details.response.headers, body: details.response.body },
    receiver: receiverView(snapshotOf(details.receiver)),
  });
  if (paymentMethod !== null) view.payment_method = paymentMethodView(paymentMethod);
  return view;
}
