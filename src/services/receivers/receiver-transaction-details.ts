import type { Receiver, ReceiverCredential, ReceiverSnapshot, ReceiverState } from '../../domain/receiver.js';
import type { Transaction } from '../../domain/transaction.js';

/**
 * A receiver as it was when the transaction ran, without any secret, as the transaction's details
 * keep it: the document written since receivers began (snake_case; `hostnames` one comma-separated
 * text, `credentials` JSON text or null), so details written before read the same.
 */
export interface StoredReceiverSnapshot {
  token: string;
  receiver_type: string;
  hostnames: string;
  state: string;
  company_name: string | null;
  sub_merchant_key: string | null;
  credentials: string | null;
  protocol_user: string | null;
  host_key: string | null;
  certificate_token: string | null;
  created_at: string;
  updated_at: string;
}

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
  receiver: StoredReceiverSnapshot;
  callback_url?: string | null;
  payment_methods_included?: string[];
  /** token → reason it was left out. */
  payment_methods_excluded?: Record<string, string>;
}

export const RECEIVER_TRANSACTION_TYPES = new Set(['DeliverPaymentMethod', 'ExportPaymentMethods', 'RedactReceiver']);

/** The snapshot of `receiver` a transaction's details keep. */
export function receiverSnapshot(receiver: Receiver): StoredReceiverSnapshot {
  return {
    token: receiver.token,
    receiver_type: receiver.receiverType,
    hostnames: receiver.hostnames.join(','),
    state: receiver.state,
    company_name: receiver.companyName,
    sub_merchant_key: receiver.subMerchantKey,
    credentials: receiver.credentials.length === 0 ? null : JSON.stringify(receiver.credentials),
    protocol_user: receiver.protocolUser,
    host_key: receiver.hostKey,
    certificate_token: receiver.certificateToken,
    created_at: receiver.createdAt,
    updated_at: receiver.updatedAt,
  };
}

/** The receiver a transaction's details kept, as the domain names it (to render it). */
export function snapshotOf(stored: StoredReceiverSnapshot): ReceiverSnapshot {
  return {
    token: stored.token,
    receiverType: stored.receiver_type,
    hostnames: stored.hostnames === '' ? [] : stored.hostnames.split(','),
    state: stored.state as ReceiverState,
    companyName: stored.company_name,
    subMerchantKey: stored.sub_merchant_key,
    credentials: stored.credentials === null ? [] : (JSON.parse(stored.credentials) as ReceiverCredential[]),
    protocolUser: stored.protocol_user,
    hostKey: stored.host_key,
    certificateToken: stored.certificate_token,
    createdAt: stored.created_at,
    updatedAt: stored.updated_at,
  };
}

export function receiverDetailsOf(row: Transaction): ReceiverTransactionDetails | null {
  return row.details as ReceiverTransactionDetails | null;
}
