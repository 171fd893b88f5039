import { avsResult, blankResponse, cvvResult, mapErrorCode, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';

/**
 * Adyen's answers in Coffer's terms. Sources: Adyen's "Refusal reasons" page (refusalReasonCode),
 * "Response handling" (ServiceError errorCode), and ActiveMerchant's Adyen adapter for the
 * standard-code, AVS and CVC mappings (facts, not code).
 */

/** refusalReasonCode of a Refused/Cancelled payment → standard code; unlisted refusals are `card_declined`. */
const REFUSAL_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '3': 'call_issuer', // Referral
  '4': 'processing_error', // Acquirer Error
  '5': 'pickup_card', // Blocked Card
  '6': 'expired_card', // Expired Card
  '7': 'invalid_amount', // Invalid Amount
  '8': 'incorrect_number', // Invalid Card Number
  '9': 'processing_error', // Issuer Unavailable
  '12': 'insufficient_funds', // Not enough balance
  '21': 'processing_error', // Not Submitted
  '24': 'incorrect_cvc', // CVC Declined
  '32': 'incorrect_address', // AVS Declined
  '39': 'processing_error', // RReq not received from DS
  '42': 'processing_error', // 3DS Authentication Error
};

/** errorCode of a ServiceError (HTTP 4xx validation and security errors), as ActiveMerchant maps them. */
const SERVICE_ERROR_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '0': 'processing_error',
  '10': 'config_error',
  '100': 'invalid_amount',
  '101': 'incorrect_number',
  '103': 'invalid_cvc',
  '104': 'incorrect_address',
  '131': 'incorrect_address',
  '132': 'incorrect_address',
  '133': 'incorrect_address',
  '134': 'incorrect_address',
  '135': 'incorrect_address',
};

/** `additionalData.avsResult` ("4 AVS not supported for this card type") by its leading number → standard letter. */
const AVS_LETTERS: Readonly<Record<string, string>> = {
  '0': 'R', '1': 'A', '2': 'N', '3': 'R', '4': 'E', '5': 'U', '6': 'Z', '7': 'D', '8': 'U', '9': 'B',
  '10': 'N', '11': 'U', '12': 'B', '13': 'U', '14': 'P', '15': 'P', '16': 'N', '17': 'U', '18': 'I',
  '19': 'L', '20': 'V', '21': 'O', '22': 'K', '23': 'F', '24': 'H', '25': 'T', '26': 'N',
};

/** `additionalData.cvcResult` ("1 Matches") by its leading digit → standard letter. */
const CVC_LETTERS: Readonly<Record<string, string>> = { '0': 'P', '1': 'M', '2': 'N', '3': 'P', '4': 'S', '5': 'U', '6': 'P' };

function leadingNumber(text: string | undefined): string | undefined {
  return text === undefined ? undefined : /^\s*(\d{1,2})\b/.exec(text)?.[1];
}

/** What Coffer reads of a /payments answer (unknown fields are ignored). */
export interface AdyenPaymentAnswer {
  pspReference?: string | undefined;
  resultCode: string;
  refusalReason?: string | undefined;
  refusalReasonCode?: string | undefined;
  additionalData?: Record<string, unknown> | undefined;
}

/** A payment answer (HTTP 200) as a GatewayResponse; `approvedMessage` for an authorisation. */
export function paymentResponse(answer: AdyenPaymentAnswer, approvedMessage: string): GatewayResponse {
  const data = answer.additionalData ?? {};
  const text = (name: string) => (typeof data[name] === 'string' ? data[name] : undefined);
  const avs = AVS_LETTERS[leadingNumber(text('avsResult')) ?? ''];
  const cvc = CVC_LETTERS[leadingNumber(text('cvcResult'))?.slice(0, 1) ?? ''];
  const approved = answer.resultCode === 'Authorised' || answer.resultCode === 'Received';
  const base: GatewayResponse = {
    ...blankResponse(approved, approved ? approvedMessage : refusalMessage(answer)),
    gatewayTransactionId: answer.pspReference ?? null,
    // Returned under the card schemes' MIT framework; Coffer keeps it after a cardholder-initiated payment.
    networkTransactionId: text('networkTxReference') ?? null,
    ...avsResult(avs),
    ...cvvResult(cvc),
    specificResponseFields: {
      adyen: {
        result_code: answer.resultCode,
        refusal_reason_code: answer.refusalReasonCode ?? null,
        auth_code: text('authCode') ?? null,
        ...(text('refusalReasonRaw') === undefined ? {} : { refusal_reason_raw: text('refusalReasonRaw') }),
      },
    },
  };
  if (approved) return base;
  const code: StandardErrorCode = answer.resultCode === 'Error' ? 'processing_error' : mapErrorCode(REFUSAL_CODES, [answer.refusalReasonCode], 'card_declined');
  return { ...base, errorCode: code, errorDetail: [answer.refusalReasonCode, answer.refusalReason].filter((part) => part !== undefined).join(': ') || null };
}

/** Adyen's own words for a refusal, with the raw acquirer answer when the account returns it. */
function refusalMessage(answer: AdyenPaymentAnswer): string {
  const raw = answer.additionalData?.refusalReasonRaw;
  const reason = answer.refusalReason ?? answer.resultCode;
  return typeof raw === 'string' && raw !== '' && raw !== reason ? `${reason} | ${raw}` : reason;
}

/** What Coffer reads of a ServiceError body (HTTP 4xx). */
export interface AdyenServiceError {
  status?: number | undefined;
  errorCode: string;
  message: string;
  errorType?: string | undefined;
  pspReference?: string | undefined;
}

/** A request Adyen refused (4xx): a failed transaction with the standard code of its errorCode. */
export function serviceErrorResponse(httpStatus: number, error: AdyenServiceError): GatewayResponse {
  const security = httpStatus === 401 || httpStatus === 403 || error.errorType === 'security';
  const code = security ? 'config_error' : mapErrorCode(SERVICE_ERROR_CODES, [error.errorCode], 'processing_error');
  return {
    ...blankResponse(false, error.message),
    gatewayTransactionId: error.pspReference ?? null,
    errorCode: code,
    errorDetail: `${error.errorCode}: ${error.message}`,
    specificResponseFields: { adyen: { error_code: error.errorCode, error_type: error.errorType ?? null } },
  };
}
