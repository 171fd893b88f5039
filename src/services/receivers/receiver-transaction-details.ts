import type { Receiver } from '../../domain/receiver.js';
import type { Transaction } from '../../domain/transaction.js';

/** A receiver as it was when the transaction ran, without any secret (rendered in the transaction). */
export type ReceiverSnapshot = Omit<Receiver, 'sealed_credentials' | 'sealed_protocol' | 'seq' | 'environment_key'>;

/** What the receiver answered, scrubbed of card data (body base64 when `encode_response`). */
export interface ReceiverResponse {
  status: number;
  headers: string;
  body: string;
}

/** `details` of DeliverPaymentMethod and ExportPaymentMethods transactions. */
export interface ReceiverTransactionDetails {
  /** The rendered destination with card data replaced by [FILTERED]. */
  url: string;
  request_method?: string;
  deliver_time_ms: number | null;
  response: ReceiverResponse | null;
  receiver: ReceiverSnapshot;
  callback_url?: string | null;
  payment_methods_included?: string[];
  /** token → reason it was left out. */
  payment_methods_excluded?: Record<string, string>;
}

export const RECEIVER_TRANSACTION_TYPES = new Set(['DeliverPaymentMethod', 'ExportPaymentMethods', 'RedactReceiver']);

export function receiverSnapshot(row: Receiver): ReceiverSnapshot {
  return {
    token: row.token,
    receiver_type: row.receiver_type,
    hostnames: row.hostnames,
    state: row.state,
    company_name: row.company_name,
    sub_merchant_key: row.sub_merchant_key,
    credentials: row.credentials,
    protocol_user: row.protocol_user,
    host_key: row.host_key,
    certificate_token: row.certificate_token,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

export function receiverDetailsOf(row: Transaction): ReceiverTransactionDetails | null {
  return row.details === null ? null : (JSON.parse(row.details) as ReceiverTransactionDetails);
}
