import { blankResponse, mapErrorCode, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';

/**
 * dLocal's answers in Coffer's terms. Sources: dLocal's Payins API reference ("Payment status
 * codes", "Error codes") and ActiveMerchant's d_local adapter (which status codes count as
 * success). Facts only.
 */

/** `status_code` of a REJECTED payment → standard code; unlisted rejections are `card_declined`. */
const STATUS_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '300': 'card_declined', // The payment was rejected
  '301': 'card_declined', // Rejected by bank
  '302': 'insufficient_funds', // Insufficient amount
  '303': 'card_declined', // Card blacklisted
  '304': 'card_declined', // Score validation
  '305': 'card_declined', // Max attempts reached
  '306': 'call_issuer', // Call bank for authorization
  '307': 'processing_error', // Duplicated payment
  '308': 'card_declined', // Credit card disabled
  '309': 'expired_card', // Card expired
  '310': 'pickup_card', // Card reported lost
  '311': 'pickup_card', // Card requested by the bank
  '312': 'card_declined', // Card restricted by the bank
  '313': 'pickup_card', // Card reported stolen
  '314': 'incorrect_number', // Invalid card number
  '315': 'incorrect_cvc', // Invalid security code
  '316': 'processing_error', // Unsupported operation
  '317': 'card_declined', // Rejected due to high risk
  '318': 'processing_error', // Invalid transaction
  '319': 'invalid_amount', // Amount exceeded
};

/** `code` of an error body (HTTP 4xx) → standard code. */
const ERROR_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '3001': 'config_error', // Invalid credentials
  '3002': 'config_error', // Unregistered IP address
  '3003': 'config_error', // Merchant has no authorization to use this API
  '5007': 'invalid_amount', // Amount exceeded
  '5016': 'invalid_amount', // Amount too low
};

/** `param` of an "Invalid parameter" error naming a card field → standard code. */
const PARAM_CODES: Readonly<Record<string, StandardErrorCode>> = {
  'card.number': 'invalid_number',
  'card.cvv': 'invalid_cvc',
  'card.expiration_month': 'invalid_expiry_date',
  'card.expiration_year': 'invalid_expiry_date',
};

/** What Coffer reads of a payment, capture, cancel or refund answer; unknown fields are ignored. */
export interface DLocalAnswer {
  id: string;
  status: string;
  status_code: string;
  status_detail?: string | undefined;
  payment_id?: string | undefined;
  network_tx_reference?: string | undefined;
}

/** Payment status codes that have not settled (the money may still move). */
export const UNDECIDED_CODES = new Set(['100', '101']);

/** An answer as a GatewayResponse: `approvedCodes` are the status codes this operation succeeds with. */
export function answerResponse(answer: DLocalAnswer, approvedCodes: readonly string[], approvedMessage: string): GatewayResponse {
  const approved = approvedCodes.includes(answer.status_code);
  const detail = answer.status_detail ?? answer.status;
  const base: GatewayResponse = {
    ...blankResponse(approved, approved ? approvedMessage : detail),
    gatewayTransactionId: answer.id,
    specificResponseFields: {
      d_local: { status: answer.status, status_code: answer.status_code, status_detail: answer.status_detail ?? null, network_tx_reference: answer.network_tx_reference ?? null },
    },
  };
  if (approved) return base;
  const code: StandardErrorCode = answer.status === 'REJECTED' ? mapErrorCode(STATUS_CODES, [answer.status_code], 'card_declined') : 'processing_error';
  return { ...base, errorCode: code, errorDetail: `${answer.status_code}: ${detail}` };
}

/** What Coffer reads of an error body. */
export interface DLocalError {
  code: string;
  message: string;
  param?: string | undefined;
}

/** A request dLocal refused (4xx): a failed transaction; 401/403 are the credentials' fault. */
export function errorResponse(httpStatus: number, error: DLocalError): GatewayResponse {
  const security = httpStatus === 401 || httpStatus === 403;
  const code = security ? 'config_error' : mapErrorCode({ ...PARAM_CODES, ...ERROR_CODES }, [error.param, error.code], 'processing_error');
  return {
    ...blankResponse(false, error.message),
    errorCode: code,
    errorDetail: [error.code, error.message, error.param].filter((part) => part !== undefined && part !== '').join(': '),
    specificResponseFields: { d_local: { error_code: error.code, param: error.param ?? null } },
  };
}
