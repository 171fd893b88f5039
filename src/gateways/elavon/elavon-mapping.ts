import { z } from 'zod';
import { avsResult, blankResponse, cvvResult, GatewayResultUnknownError, mapErrorCode, readAnswer, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';

/**
 * Converge's answers in Coffer's terms. Sources: Elavon's Converge developer guide ("Error codes",
 * "Authorization response codes"), the ISO 8583 issuer response codes Converge passes on as
 * `ssl_issuer_response`, and ActiveMerchant's Elavon adapter (ssl_result 0 = approved, errorCode
 * for refused requests, AVS/CVV letters as the networks send them).
 */

/** `errorCode` of a request Converge refused before authorization. */
const ERROR_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '3000': 'processing_error', // Gateway not responding
  '3001': 'processing_error',
  '3002': 'processing_error',
  '3003': 'processing_error',
  '4000': 'config_error', // VID Not Supplied
  '4002': 'config_error', // HTTP Trans Not Allowed
  '4003': 'config_error', // HTTP Referrer Invalid
  '4006': 'invalid_cvc', // CVV2 Not Requested With Data
  '4007': 'invalid_cvc', // CVV2 Requested But No Data
  '4013': 'config_error', // PIN Not Supplied
  '4014': 'config_error', // Not Permitted
  '4016': 'config_error', // Permission Denied
  '4025': 'config_error', // Invalid Credentials
  '5000': 'invalid_number', // Credit Card Number Invalid
  '5001': 'invalid_expiry_date', // Exp Date Invalid
  '5002': 'invalid_amount', // Amount Invalid
  '5021': 'invalid_cvc', // CVV2 value invalid
  '5091': 'invalid_amount', // Invalid amount (exceeds the original)
};

/** `ssl_issuer_response` (ISO 8583 response code of the issuer) of a decline. */
const ISSUER_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '01': 'call_issuer',
  '02': 'call_issuer',
  '04': 'pickup_card',
  '05': 'card_declined',
  '07': 'pickup_card',
  '13': 'invalid_amount',
  '14': 'invalid_number',
  '41': 'pickup_card',
  '43': 'pickup_card',
  '51': 'insufficient_funds',
  '54': 'expired_card',
  '82': 'incorrect_cvc',
  N7: 'incorrect_cvc',
};

/** `ssl_result_message` of a decline, when the issuer code is absent or unknown. */
const RESULT_MESSAGES: Readonly<Record<string, StandardErrorCode>> = {
  DECLINED: 'card_declined',
  'DECLINE CVV2': 'incorrect_cvc',
  'DECLINED CVV2': 'incorrect_cvc',
  'CALL AUTH. CENTER': 'call_issuer',
  'CALL AUTH CENTER': 'call_issuer',
  'PICK UP CARD': 'pickup_card',
  'EXPIRED CARD': 'expired_card',
  'INVALID CARD': 'invalid_number',
  'AMOUNT ERROR': 'invalid_amount',
  'SERV NOT ALLOWED': 'card_declined',
};

const text = z.string().optional();
const errorAnswer = z.object({ errorCode: z.coerce.string(), errorName: text, errorMessage: text });
const resultAnswer = z.object({
  ssl_result: z.string(),
  ssl_result_message: text,
  ssl_txn_id: text,
  ssl_approval_code: text,
  ssl_avs_response: text,
  ssl_cvv2_response: text,
  ssl_issuer_response: text,
  ssl_token: text,
  ssl_token_response: text,
  ssl_oar_data: text,
  ssl_ps2000_data: text,
});
type ResultAnswer = z.infer<typeof resultAnswer>;

function present(value: string | undefined): string | null {
  return value === undefined || value === '' ? null : value;
}

/** A refused request (`errorCode`, `errorName`, `errorMessage`): failed, with its standard code. */
function errorResponse(txn: Record<string, unknown>): GatewayResponse {
  const error = readAnswer('Elavon', errorAnswer, txn);
  const message = error.errorMessage ?? error.errorName ?? `Elavon error ${error.errorCode}`;
  return {
    ...blankResponse(false, message),
    errorCode: mapErrorCode(ERROR_CODES, [error.errorCode], 'processing_error'),
    errorDetail: `${error.errorCode}: ${error.errorName ?? message}`,
    specificResponseFields: { elavon: { error_code: error.errorCode, error_name: error.errorName ?? null } },
  };
}

function specificFields(answer: ResultAnswer): Record<string, unknown> {
  return {
    elavon: {
      result: answer.ssl_result,
      result_message: present(answer.ssl_result_message),
      approval_code: present(answer.ssl_approval_code),
      issuer_response: present(answer.ssl_issuer_response),
      // The network's transaction data, what a later merchant-initiated transaction refers to.
      oar_data: present(answer.ssl_oar_data),
      ps2000_data: present(answer.ssl_ps2000_data),
    },
  };
}

/**
 * A Converge answer as a GatewayResponse. `ssl_result` 0 is an approval (which must carry the
 * `ssl_txn_id` later operations refer to, or the outcome is unknown); any other result is a decline
 * mapped by the issuer's response code, else by the result message.
 */
export function elavonResponse(txn: Record<string, unknown>, approvedMessage: string): GatewayResponse {
  if (txn.errorCode !== undefined) return errorResponse(txn);
  const answer = readAnswer('Elavon', resultAnswer, txn);
  const approved = answer.ssl_result === '0';
  const txnId = present(answer.ssl_txn_id);
  if (approved && txnId === null) throw new GatewayResultUnknownError('Elavon returned an unexpected response.', 'ssl_txn_id: missing on an approval');
  const message = present(answer.ssl_result_message) ?? (approved ? approvedMessage : 'DECLINED');
  const base: GatewayResponse = {
    ...blankResponse(approved, approved ? approvedMessage : message),
    gatewayTransactionId: txnId,
    ...avsResult(present(answer.ssl_avs_response)),
    ...cvvResult(present(answer.ssl_cvv2_response)),
    specificResponseFields: specificFields(answer),
  };
  if (approved) return base;
  const code = mapErrorCode(ISSUER_CODES, [answer.ssl_issuer_response], mapErrorCode(RESULT_MESSAGES, [message.toUpperCase()], 'card_declined'));
  return { ...base, errorCode: code, errorDetail: [present(answer.ssl_issuer_response), message].filter((part) => part !== null).join(': ') };
}

/** A ccgettoken answer: the card's Converge token (`ssl_token`) as the third-party token. */
export function elavonStoreResponse(txn: Record<string, unknown>): GatewayResponse {
  if (txn.errorCode !== undefined) return errorResponse(txn);
  const answer = readAnswer('Elavon', resultAnswer, txn);
  const token = present(answer.ssl_token);
  if (answer.ssl_result !== '0' || token === null) {
    const message = present(answer.ssl_token_response) ?? present(answer.ssl_result_message) ?? 'Card not stored';
    return { ...blankResponse(false, message), errorCode: 'processing_error', errorDetail: message, specificResponseFields: specificFields(answer) };
  }
  return {
    ...blankResponse(true, 'Card stored'),
    gatewayTransactionId: present(answer.ssl_txn_id) ?? token,
    thirdPartyToken: token,
    specificResponseFields: { elavon: { ...(specificFields(answer).elavon as object), token_response: present(answer.ssl_token_response) } },
  };
}
