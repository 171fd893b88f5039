import type { GatewayResponse } from '../../gateways/kit/index.js';
import type { Transaction } from '../../domain/transaction.js';
import type { GatewayTransactionDetails, ResponseRecord } from '../../domain/transaction-details.js';

export function responseRecord(response: GatewayResponse, at: string, flags: { resultUnknown?: boolean; cancelled?: boolean } = {}): ResponseRecord {
  return {
    success: response.success,
    message: response.message,
    avs_code: response.avsCode,
    avs_message: response.avsMessage,
    cvv_code: response.cvvCode,
    cvv_message: response.cvvMessage,
    pending: response.pending,
    result_unknown: flags.resultUnknown === true,
    error_code: response.errorCode,
    error_detail: response.errorDetail,
    cancelled: flags.cancelled === true,
    fraud_review: response.fraudReview,
    created_at: at,
    updated_at: at,
  };
}

/**
 * A gateway transaction's details (the gateway's types record GatewayTransactionDetails, a refusal
 * included; docs/events.md). Only asked of transactions that went, or were to go, to a gateway.
 */
export function detailsOf(transaction: Transaction): GatewayTransactionDetails | null {
  return transaction.details as GatewayTransactionDetails | null;
}
