import { blankResponse, mapErrorCode, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';

/**
 * EBANX's answers in Coffer's terms. Sources: EBANX's Direct API reference (payment status codes
 * CO/PE/CA/OP, `transaction_status`, the error answer `{status: ERROR, status_code, status_message}`)
 * and ActiveMerchant's ebanx adapter (which status means success per operation). Facts only.
 */

/** `status_code` of an ERROR answer → standard code; others are `processing_error`. */
const ERROR_CODES: Readonly<Record<string, StandardErrorCode>> = {
  'DA-1': 'config_error', // Invalid integration key
  'BP-CAP-11': 'unsupported_feature', // Partial capture not available
};

/**
 * Decline reasons as EBANX words them in `transaction_status.description` (its sandbox writes
 * "…declined reason insufficientFunds"; production texts name the reason in words). Read in order.
 */
const DECLINE_REASONS: ReadonlyArray<[RegExp, StandardErrorCode]> = [
  [/insufficient/i, 'insufficient_funds'],
  [/expired/i, 'expired_card'],
  [/cvv|security code/i, 'incorrect_cvc'],
  [/invalid card number|invalidcardnumber|invalid card\b/i, 'incorrect_number'],
  [/stolen|lost/i, 'pickup_card'],
  [/call (the )?issuer|contact (the )?issuer/i, 'call_issuer'],
];

export interface EbanxPayment {
  hash: string;
  status: string;
  transaction_status?: { code?: string | undefined; description?: string | undefined; authcode?: string | undefined } | undefined;
  merchant_payment_code?: string | undefined;
  payment_type_code?: string | undefined;
  capture_available?: boolean | undefined;
}

/** A decline's standard code, from the reason EBANX gives. */
export function declineCode(description: string | undefined): StandardErrorCode {
  for (const [pattern, code] of DECLINE_REASONS) if (description !== undefined && pattern.test(description)) return code;
  return 'card_declined';
}

/** A payment answer as a GatewayResponse: `approved` is the payment status this operation succeeds with. */
export function paymentResponse(payment: EbanxPayment, approved: boolean, approvedMessage: string): GatewayResponse {
  const status = payment.transaction_status;
  const base: GatewayResponse = {
    ...blankResponse(approved, approved ? (status?.description ?? approvedMessage) : (status?.description ?? `Payment ${payment.status}`)),
    gatewayTransactionId: payment.hash,
    specificResponseFields: {
      ebanx: {
        hash: payment.hash,
        status: payment.status,
        transaction_status_code: status?.code ?? null,
        authcode: status?.authcode ?? null,
        payment_type_code: payment.payment_type_code ?? null,
        merchant_payment_code: payment.merchant_payment_code ?? null,
      },
    },
  };
  if (approved) return base;
  return { ...base, errorCode: declineCode(status?.description), errorDetail: [payment.status, status?.code, status?.description].filter((part) => part !== undefined && part !== '').join(': ') };
}

/** An ERROR answer: EBANX refused the request. */
export function errorResponse(statusCode: string, message: string): GatewayResponse {
  return {
    ...blankResponse(false, message),
    errorCode: mapErrorCode(ERROR_CODES, [statusCode], 'processing_error'),
    errorDetail: `${statusCode}: ${message}`,
    specificResponseFields: { ebanx: { status_code: statusCode } },
  };
}
