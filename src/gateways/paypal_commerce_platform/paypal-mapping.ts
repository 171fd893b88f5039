import { avsResult, blankResponse, cvvResult, mapErrorCode, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';

/**
 * PayPal's answers in Coffer's terms. Sources: PayPal's Orders v2 and Payments v2 references
 * (`processor_response` enums, error `details[].issue` names), its "Handle decline errors" page
 * (AVS and CVV codes) and ActiveMerchant's standard error-code vocabulary.
 */

/** `processor_response.response_code` → standard code; unlisted declines are `card_declined`. */
const RESPONSE_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '00N7': 'incorrect_cvc', // CVV2_FAILURE_POSSIBLE_RETRY_WITH_CVV
  '0100': 'call_issuer', // REFERRAL
  '0390': 'incorrect_number', // ACCOUNT_NOT_FOUND
  '0960': 'processing_error', // SYSTEM_MALFUNCTION
  '1310': 'invalid_amount', // INVALID_AMOUNT
  '1330': 'incorrect_number', // INVALID_ACCOUNT
  '1350': 'config_error', // INVALID_MERCHANT
  '1380': 'invalid_expiry_date', // INVALID_EXPIRATION
  '1382': 'invalid_cvc', // INVALID_CARD_VERIFICATION_VALUE
  '5110': 'incorrect_cvc', // CVV2_FAILURE
  '5120': 'insufficient_funds', // INSUFFICIENT_FUNDS_OR_OVER_CREDIT_LIMIT
  '5150': 'pickup_card', // PICKUP_CARD_SPECIAL_CONDITIONS
  '5170': 'incorrect_address', // AVS_FAILURE
  '5400': 'expired_card', // EXPIRED_CARD
  '5910': 'processing_error', // ISSUER_NOT_AVAILABLE_NOT_RETRIABLE
  '5920': 'processing_error', // ISSUER_NOT_AVAILABLE_RETRIABLE
  '8000': 'processing_error', // PROCESSOR_SYSTEM_ERROR
  '8010': 'processing_error', // HOST_KEY_ERROR
  '8020': 'config_error', // CONFIGURATION_ERROR
  '8030': 'unsupported_feature', // UNSUPPORTED_OPERATION
  '8100': 'processing_error', // FATAL_COMMUNICATION_ERROR
  '8110': 'processing_error', // RETRIABLE_COMMUNICATION_ERROR
  '8220': 'processing_error', // SYSTEM_UNAVAILABLE
  '9520': 'pickup_card', // LOST_OR_STOLEN
  '9530': 'call_issuer', // HOLD_CALL_CENTER
  PCVV: 'incorrect_cvc', // CVV_FAILURE
  PPAD: 'incorrect_address', // BILLING_ADDRESS
  PPAV: 'incorrect_address', // ARC_AVS
  PPC2: 'incorrect_cvc', // ARC_CVV
  PPEX: 'invalid_expiry_date', // EXPIRY_DATE
  PPER: 'processing_error', // INTERNAL_SYSTEM_ERROR
};

/** `details[0].issue` of a 4xx error → standard code; others are `processing_error`. */
const ISSUE_CODES: Readonly<Record<string, StandardErrorCode>> = {
  INSTRUMENT_DECLINED: 'card_declined',
  TRANSACTION_REFUSED: 'card_declined',
  CARD_EXPIRED: 'expired_card',
  CARD_CLOSED: 'card_declined',
  INVALID_SECURITY_CODE_LENGTH: 'invalid_cvc',
  CARD_NUMBER_REQUIRED: 'invalid_number',
  INVALID_EXPIRY_DATE: 'invalid_expiry_date',
  DECIMAL_PRECISION: 'invalid_amount',
  AMOUNT_MISMATCH: 'invalid_amount',
  AMOUNT_EXCEEDED: 'invalid_amount',
  MAX_CAPTURE_AMOUNT_EXCEEDED: 'invalid_amount',
  REFUND_AMOUNT_EXCEEDED: 'invalid_amount',
  CURRENCY_NOT_SUPPORTED_FOR_CARD_TYPE: 'unsupported_feature',
  CARD_TYPE_NOT_SUPPORTED: 'unsupported_feature',
  PERMISSION_DENIED: 'config_error',
  NOT_AUTHORIZED: 'config_error',
  PAYEE_ACCOUNT_RESTRICTED: 'config_error',
};

/** PayPal's CVV results for Maestro (digits) as the network letters; the card brands' letters pass through. */
const CVV_DIGITS: Readonly<Record<string, string>> = { '0': 'M', '1': 'N', '2': 'U', '3': 'P', '4': 'S' };
/** PayPal's AVS results for Maestro (digits) as the network letters. */
const AVS_DIGITS: Readonly<Record<string, string>> = { '0': 'M', '1': 'N', '2': 'Z', '3': 'A', '4': 'U' };

export interface ProcessorResponse {
  response_code?: string | undefined;
  avs_code?: string | undefined;
  cvv_code?: string | undefined;
  payment_advice_code?: string | undefined;
}

/** What Coffer reads of a capture, authorization or refund object. */
export interface PayPalPaymentAnswer {
  id: string;
  status: string;
  status_details?: { reason?: string | undefined } | undefined;
  processor_response?: ProcessorResponse | undefined;
  network_transaction_reference?: { id?: string | undefined; network?: string | undefined } | undefined;
}

/** What Coffer reads of a 4xx error body. */
export interface PayPalErrorAnswer {
  name: string;
  message?: string | undefined;
  debug_id?: string | undefined;
  details?: Array<{ issue: string; description?: string | undefined; field?: string | undefined }> | undefined;
}

function avsLetter(code: string | undefined): string | undefined {
  if (code === undefined) return undefined;
  return AVS_DIGITS[code] ?? code;
}

function cvvLetter(code: string | undefined): string | undefined {
  if (code === undefined) return undefined;
  // "E" (error, unrecognized result) and "I" (not checked) mean no check took place.
  if (code === 'E' || code === 'I') return 'P';
  return CVV_DIGITS[code] ?? code;
}

/**
 * A capture, authorization or refund as a GatewayResponse: approved when its status is one of
 * `approvedStatuses`, else a decline mapped by its processor response code.
 */
export function paymentResponse(answer: PayPalPaymentAnswer, approvedStatuses: readonly string[], approvedMessage: string, extra: Record<string, unknown> = {}): GatewayResponse {
  const processor = answer.processor_response ?? {};
  const approved = approvedStatuses.includes(answer.status);
  const base: GatewayResponse = {
    ...blankResponse(approved, approved ? approvedMessage : declineMessage(answer)),
    gatewayTransactionId: answer.id,
    ...avsResult(avsLetter(processor.avs_code)),
    ...cvvResult(cvvLetter(processor.cvv_code)),
    specificResponseFields: {
      paypal_commerce_platform: {
        status: answer.status,
        response_code: processor.response_code ?? null,
        ...(answer.status_details?.reason === undefined ? {} : { status_reason: answer.status_details.reason }),
        ...(answer.network_transaction_reference?.id === undefined ? {} : { network_transaction_id: answer.network_transaction_reference.id }),
        ...extra,
      },
    },
  };
  if (approved) return base;
  return {
    ...base,
    errorCode: mapErrorCode(RESPONSE_CODES, [processor.response_code], 'card_declined'),
    errorDetail: [answer.status, processor.response_code, answer.status_details?.reason].filter((part) => part !== undefined).join(': '),
  };
}

function declineMessage(answer: PayPalPaymentAnswer): string {
  const code = answer.processor_response?.response_code;
  return code === undefined ? `PayPal answered ${answer.status}` : `PayPal answered ${answer.status} (processor response ${code})`;
}

/** A 4xx error as a failed transaction: `forced` when the status alone decides (401/403 → config_error). */
export function errorAnswerResponse(httpStatus: number, error: PayPalErrorAnswer, forced: StandardErrorCode | null): GatewayResponse {
  const issue = error.details?.[0]?.issue;
  const description = error.details?.[0]?.description;
  const code = forced ?? mapErrorCode(ISSUE_CODES, [issue], 'processing_error');
  return {
    ...blankResponse(false, description ?? error.message ?? error.name),
    errorCode: code,
    errorDetail: [`HTTP ${httpStatus}`, error.name, issue].filter((part) => part !== undefined).join(': '),
    specificResponseFields: { paypal_commerce_platform: { error_name: error.name, issue: issue ?? null, debug_id: error.debug_id ?? null } },
  };
}
