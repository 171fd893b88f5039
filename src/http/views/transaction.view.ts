import { detailsOf } from '../../services/transactions/transaction-details.js';
import { WireErrors, WireMessage, type Wire, type WireObject } from '../format/wire.js';
import { paymentMethodView } from './payment-method.view.js';
import { storedDate } from './time.js';
import { routedByView } from './workflow.view.js';
import { leanTransactionHead } from './lean-transaction.js';
import { vaultTransactionView } from './vault-transaction.view.js';
import { receiverTransactionView } from './receiver-transaction.view.js';
import { RECEIVER_TRANSACTION_TYPES } from '../../services/receivers/receiver-transaction-details.js';
import { apiUrlsField, attemptsField, NO_ATTEMPTS, type AttemptsLookup } from './attempts.view.js';
import type { PaymentMethod } from '../../domain/payment-method.js';
import { isGatewayTransactionType, type Transaction } from '../../domain/transaction.js';
import type { GatewayTransactionDetails } from '../../domain/transaction-details.js';

/** Payment methods a transaction view may nest, by token. */
export type PaymentMethodLookup = (token: string | null) => PaymentMethod | null;

function responseView(details: GatewayTransactionDetails): Wire {
  const response = details.response;
  if (response === null) return null;
  return {
    success: response.success,
    message: response.message,
    avs_code: response.avs_code,
    avs_message: response.avs_message,
    cvv_code: response.cvv_code,
    cvv_message: response.cvv_message,
    pending: response.pending,
    result_unknown: response.result_unknown,
    error_code: response.error_code,
    error_detail: response.error_detail,
    cancelled: response.cancelled,
    fraud_review: response.fraud_review,
    created_at: storedDate(response.created_at),
    updated_at: storedDate(response.updated_at),
  };
}

/** An inline payment method that failed validation: not vaulted, shown with its errors. */
function invalidPaymentMethodView(details: GatewayTransactionDetails): WireObject {
  return { token: null, storage_state: null, payment_method_type: 'credit_card', errors: new WireErrors(details.payment_method_errors ?? []) };
}

/**
 * 3-D Secure and offsite fields (wire-reference §3.1, §9), after `api_urls` and before the payment
 * method; present only on transactions that asked for 3-D Secure, gave a redirect or callback URL,
 * or were left pending by the gateway.
 */
function secureAndOffsiteFields(details: GatewayTransactionDetails): WireObject {
  const relevant = details.attempt_3dsecure || (details.redirect_url ?? null) !== null || (details.callback_url ?? null) !== null || (details.required_action ?? null) !== null || (details.checkout_url ?? null) !== null;
  if (!relevant) return {};
  return {
    attempt_3dsecure: details.attempt_3dsecure,
    three_ds_version: details.three_ds_version ?? null,
    three_ds_context: details.three_ds_context ?? null,
    required_action: details.required_action ?? null,
    challenge_url: details.challenge_url ?? null,
    challenge_form: details.challenge_form ?? null,
    device_fingerprint_form: details.device_fingerprint_form ?? null,
    redirect_url: details.redirect_url ?? null,
    callback_url: details.callback_url ?? null,
    callback_format: details.callback_format ?? null,
    checkout_url: details.checkout_url ?? null,
  };
}

/** The nested payment method with the storage_state it had when the transaction began. */
function paymentMethodAtStart(paymentMethod: PaymentMethod, details: GatewayTransactionDetails): WireObject {
  const view = paymentMethodView(paymentMethod);
  const atStart = details.payment_method_storage_state;
  // A successful Store nests the new third-party method instead; it has no earlier state.
  if (typeof atStart === 'string' && (details.basis_payment_method_token ?? null) === null) view.storage_state = atStart;
  return view;
}

/**
 * A gateway transaction, fields in wire-reference §3.1 order: the transaction's own scalars
 * (token, state, message, amounts) come before `shipping_address`, `response` and
 * `payment_method`, because the Ruby gem reads the first element of each name; and
 * `gateway_specific_fields` / `gateway_specific_response_fields` are always present.
 */
export function gatewayTransactionView(row: Transaction, details: GatewayTransactionDetails, lookup: PaymentMethodLookup, attemptsOf: AttemptsLookup = NO_ATTEMPTS): WireObject {
  const attempts = attemptsOf(row);
  const view: WireObject = {
    on_test_gateway: details.on_test_gateway,
    created_at: storedDate(row.createdAt),
    updated_at: storedDate(row.updatedAt),
    succeeded: row.succeeded,
    state: row.state,
    token: row.token,
    transaction_type: row.transactionType,
    order_id: details.order_id,
    ip: details.ip,
    description: details.description,
    email: details.email,
    merchant_name_descriptor: details.merchant_name_descriptor,
    merchant_location_descriptor: details.merchant_location_descriptor,
    gateway_specific_fields: details.gateway_specific_fields as Wire,
    gateway_specific_response_fields: details.gateway_specific_response_fields as Wire,
    gateway_transaction_id: details.gateway_transaction_id,
    gateway_latency_ms: details.gateway_latency_ms,
    amount: row.amount,
    currency_code: row.currencyCode,
    retain_on_success: details.retain_on_success,
    payment_method_added: details.payment_method_added,
    stored_credential_initiator: details.stored_credential_initiator ?? null,
    stored_credential_reason_type: details.stored_credential_reason_type ?? null,
    network_transaction_id: details.network_transaction_id ?? null,
    message: new WireMessage(row.messageKey, row.message),
    gateway_token: row.gatewayToken,
    gateway_type: details.gateway_type,
  };
  // The workflow decision, on transactions a workflow routed (docs/routing.md).
  if (row.routedBy !== null) view.routed_by = routedByView(row.routedBy);
  if (row.referenceToken !== null) view.reference_token = row.referenceToken;
  if (row.transactionType === 'Store') view.third_party_token = details.third_party_token ?? null;
  view.shipping_address = { ...details.shipping_address };
  view.response = responseView(details);
  // A retry chain's attempts, each naming its gateway; the answer says which one settled it.
  const attemptList = attemptsField(attempts);
  if (attemptList !== undefined) view.attempts = attemptList;
  view.api_urls = apiUrlsField(row, attempts);
  Object.assign(view, secureAndOffsiteFields(details));
  const paymentMethod = lookup(row.paymentMethodToken);
  if (details.payment_method_errors !== undefined) view.payment_method = invalidPaymentMethodView(details);
  else if (paymentMethod !== null) view.payment_method = paymentMethodAtStart(paymentMethod, details);
  if (row.transactionType === 'Store') {
    // A failed or refused Store has no third-party method: its basis is the card it was given,
    // shown all the same (the gem parses `.//basis_payment_method` on every Store).
    const basis = lookup(details.basis_payment_method_token ?? row.paymentMethodToken);
    if (basis !== null) view.basis_payment_method = paymentMethodView(basis);
  }
  return view;
}

/** Any transaction: gateway transactions in full, the vault's own lean, RedactGateway by its own view. */
export function transactionView(row: Transaction, lookup: PaymentMethodLookup, attemptsOf: AttemptsLookup = NO_ATTEMPTS): WireObject {
  const details = detailsOf(row);
  if (isGatewayTransactionType(row.transactionType) && details !== null) return gatewayTransactionView(row, details, lookup, attemptsOf);
  const paymentMethod = lookup(row.paymentMethodToken);
  if (RECEIVER_TRANSACTION_TYPES.has(row.transactionType)) return receiverTransactionView(row, paymentMethod);
  if (paymentMethod !== null) return vaultTransactionView(row, paymentMethod);
  return { ...leanTransactionHead(row), gateway_token: row.gatewayToken };
}
