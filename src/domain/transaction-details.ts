/**
 * What a transaction records besides its own fields (`Transaction.details`): a gateway
 * transaction's request and answer, a vault transaction's flag, a receiver transaction's delivery.
 * Field names are the wire's (snake_case): most are shown as they are (wire-reference §3.1).
 */

/** A shipping address as sent and shown. */
export interface ShippingAddress {
  name: string | null;
  address1: string | null;
  address2: string | null;
  city: string | null;
  state: string | null;
  zip: string | null;
  country: string | null;
  phone_number: string | null;
}

export const EMPTY_SHIPPING_ADDRESS: ShippingAddress = {
  name: null,
  address1: null,
  address2: null,
  city: null,
  state: null,
  zip: null,
  country: null,
  phone_number: null,
};

/** The gateway's raw result as the `response` sub-object shows it (wire-reference §3.1). */
export interface ResponseRecord {
  success: boolean;
  message: string;
  avs_code: string | null;
  avs_message: string | null;
  cvv_code: string | null;
  cvv_message: string | null;
  pending: boolean;
  result_unknown: boolean;
  error_code: string | null;
  error_detail: string | null;
  cancelled: boolean;
  fraud_review: boolean | null;
  created_at: string;
  updated_at: string;
}

/** Why a retry chain moved on to the attempt that records it (docs/routing.md). */
export interface FailoverNote {
  /** The attempt that came before (null when the gateways before were skipped without a call). */
  from_transaction_token: string | null;
  from_gateway_token: string;
  /** One sentence: "connection refused (ECONNREFUSED)", "soft decline: processing_error". */
  reason: string;
  /** Gateways passed over without a call (breaker open, busy), oldest first. */
  skipped: Array<{ gateway_token: string; reason: string }>;
}

/** How reconciliation settled an unknown result, and what the transaction said before. */
export interface ReconciliationNote {
  reconciled_at: string;
  outcome: 'not_received' | 'succeeded' | 'failed';
  original: { state: string; message_key: string | null; message: string | null; response: ResponseRecord | null };
}

/** Everything a gateway transaction records besides its own fields. */
export interface GatewayTransactionDetails {
  on_test_gateway: boolean;
  gateway_type: string;
  order_id: string | null;
  ip: string | null;
  description: string | null;
  email: string | null;
  merchant_name_descriptor: string | null;
  merchant_location_descriptor: string | null;
  gateway_specific_fields: Record<string, unknown> | null;
  gateway_specific_response_fields: Record<string, unknown>;
  gateway_transaction_id: string | null;
  gateway_latency_ms: number | null;
  retain_on_success: boolean;
  payment_method_added: boolean;
  attempt_3dsecure: boolean;
  shipping_address: ShippingAddress;
  response: ResponseRecord | null;
  /** Validation errors of an inline payment method that could not be vaulted. */
  payment_method_errors?: Array<{ key: string; message: string; attribute?: string }>;
  /**
   * The payment method's storage_state when the transaction began: the nested payment method
   * shows it (a retain_on_success purchase on a cached card reads `cached`).
   */
  payment_method_storage_state?: string | null;
  /** Stored credentials as sent (echoed); the gateway saw them only when both were. */
  stored_credential_initiator?: string | null;
  stored_credential_reason_type?: string | null;
  /** The card network's id of this transaction, when the gateway returned one. */
  network_transaction_id?: string | null;
  /** 3-D Secure 2 / offsite: what was asked and what the gateway said the cardholder must do. */
  three_ds_version?: string | null;
  redirect_url?: string | null;
  callback_url?: string | null;
  callback_format?: string | null;
  three_ds_context?: string | null;
  required_action?: string | null;
  device_fingerprint_form?: string | null;
  challenge_form?: string | null;
  challenge_url?: string | null;
  checkout_url?: string | null;
  /** Store: the gateway's token and the card it was made from. */
  third_party_token?: string | null;
  basis_payment_method_token?: string | null;
  /** While `processing`: when the gateway call has certainly ended (abandoned-calls.ts). */
  call_deadline?: string | null;
  /** On an attempt a retry chain moved on to, why it did. */
  failover?: FailoverNote;
  /** Once an unknown result was settled by asking the gateway. */
  reconciliation?: ReconciliationNote;
}

/** AddPaymentMethod: whether the method was retained as it was added. */
export interface VaultTransactionDetails {
  retained?: boolean;
}

/**
 * The details of any transaction: one of the shapes above, or a receiver transaction's delivery
 * (its shape is the receivers' own: services/receivers/receiver-transaction-details.ts).
 */
export type TransactionDetails = GatewayTransactionDetails | VaultTransactionDetails | object;
