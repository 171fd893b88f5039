import { avsResult, blankResponse, cvvResult, mapErrorCode, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';

/**
 * Checkout.com's answers in Coffer's terms. Sources: Checkout.com's "Response codes" reference
 * (response_code of a payment), its API reference's 422 `error_codes`, and ActiveMerchant's
 * checkout_v2 adapter for the standard-code and AVS/CVV mappings (facts, not code).
 */

/** response_code of a declined payment → standard code; unlisted declines are `card_declined`. */
const RESPONSE_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '20001': 'call_issuer', // Refer to card issuer
  '20002': 'call_issuer', // Refer to card issuer - special conditions
  '20005': 'card_declined', // Declined - Do not honour
  '20012': 'card_declined', // Invalid transaction
  '20013': 'invalid_amount', // Invalid value/amount
  '20014': 'invalid_number', // Invalid account number (no such number)
  '20051': 'insufficient_funds', // Insufficient funds
  '20054': 'expired_card', // Expired card
  '20062': 'card_declined', // Restricted card
  '20082': 'incorrect_cvc', // Negative CAM, dCVV, iCVV or CVV results
  '20087': 'incorrect_cvc', // Bad track data (invalid CVV and/or expiry date)
  '20088': 'processing_error',
  '20100': 'invalid_expiry_date', // Invalid expiry date format
  '30004': 'pickup_card', // Pick up card (no fraud)
  '30041': 'pickup_card', // Lost card - pick up
  '30043': 'pickup_card', // Stolen card - pick up
  '40104': 'incorrect_cvc',
  '40108': 'incorrect_zip',
  '40111': 'incorrect_address',
};

/** The first of a 422's `error_codes` Coffer knows → standard code; others are `processing_error`. */
const VALIDATION_CODES: Readonly<Record<string, StandardErrorCode>> = {
  card_number_invalid: 'invalid_number',
  card_number_required: 'invalid_number',
  cvv_invalid: 'invalid_cvc',
  card_expired: 'expired_card',
  card_expiry_month_invalid: 'invalid_expiry_date',
  card_expiry_year_invalid: 'invalid_expiry_date',
  card_expiry_month_required: 'invalid_expiry_date',
  card_expiry_year_required: 'invalid_expiry_date',
  amount_invalid: 'invalid_amount',
  amount_required: 'invalid_amount',
  currency_invalid: 'invalid_amount',
};

/** cvv_check letters that differ from the standard CVV vocabulary (Checkout.com's Y = match). */
const CVV_LETTERS: Readonly<Record<string, string>> = { Y: 'M' };

/** What Coffer reads of a payment answer (unknown fields are ignored). */
export interface CheckoutPaymentAnswer {
  id: string;
  action_id?: string | undefined;
  approved?: boolean | undefined;
  status: string;
  response_code?: string | undefined;
  response_summary?: string | undefined;
  auth_code?: string | undefined;
  scheme_id?: string | undefined;
  source?: { id?: string | undefined; avs_check?: string | undefined; cvv_check?: string | undefined } | undefined;
}

/** Statuses of an approved card payment (Authorized, Captured, Card Verified). */
export const APPROVED_STATUSES = new Set(['Authorized', 'Captured', 'Card Verified', 'Paid']);

/** A payment answer (HTTP 201) as a GatewayResponse; `approvedMessage` for an approval. */
export function paymentResponse(answer: CheckoutPaymentAnswer, approvedMessage: string): GatewayResponse {
  const approved = answer.approved === true && APPROVED_STATUSES.has(answer.status);
  const cvv = answer.source?.cvv_check;
  const base: GatewayResponse = {
    ...blankResponse(approved, approved ? approvedMessage : (answer.response_summary ?? answer.status)),
    gatewayTransactionId: answer.id,
    // The card scheme's transaction id: previous_payment_id of later merchant-initiated payments.
    networkTransactionId: answer.scheme_id ?? null,
    ...avsResult(answer.source?.avs_check),
    ...cvvResult(cvv === undefined ? undefined : (CVV_LETTERS[cvv] ?? cvv)),
    specificResponseFields: {
      checkout_v2: {
        status: answer.status,
        response_code: answer.response_code ?? null,
        auth_code: answer.auth_code ?? null,
        action_id: answer.action_id ?? null,
      },
    },
  };
  if (approved) return base;
  return {
    ...base,
    errorCode: mapErrorCode(RESPONSE_CODES, [answer.response_code], 'card_declined'),
    errorDetail: [answer.response_code, answer.response_summary].filter((part) => part !== undefined).join(': ') || answer.status,
  };
}

/** A 422 (request_invalid with error_codes): a failed transaction with the standard code of its first known code. */
export function validationResponse(errorType: string, errorCodes: readonly string[]): GatewayResponse {
  return {
    ...blankResponse(false, `${errorType}: ${errorCodes.join(', ')}`),
    errorCode: mapErrorCode(VALIDATION_CODES, errorCodes, 'processing_error'),
    errorDetail: errorCodes.join(', ') || errorType,
    specificResponseFields: { checkout_v2: { error_type: errorType, error_codes: errorCodes.join(',') } },
  };
}

/** A 4xx without a body Coffer can map (401 bad key, 403 action not allowed, 404 unknown payment). */
export function refusalResponse(message: string, code: StandardErrorCode, httpStatus: number): GatewayResponse {
  return { ...blankResponse(false, message), errorCode: code, errorDetail: `HTTP ${httpStatus}` };
}
