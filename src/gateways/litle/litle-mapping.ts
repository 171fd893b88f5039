import { avsResult, blankResponse, cvvResult, GatewayFaultError, GatewayResultUnknownError, mapErrorCode, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';
import type { LitleAnswer } from './litle-api.js';

/**
 * cnpAPI answers in Coffer's terms. Sources: the cnpAPI reference's response code table and
 * fraudResult values; ActiveMerchant's litle.rb (the approving codes, the AVS letter per avsResult).
 */

/** Response codes that approve a payment (ActiveMerchant's list less 010, partial approval, which Coffer never asks for). */
const APPROVED = new Set(['000', '001', '136', '141', '142', '470', '473']);
/** Response codes that register a token: approved, registered, previously registered. */
const TOKEN_APPROVED = new Set(['000', '801', '802']);

/** cnpAPI response code → standard code; other declines are `card_declined`. */
export const RESPONSE_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '100': 'processing_error', // Processing network unavailable
  '101': 'processing_error', // Issuer unavailable
  '102': 'processing_error', // Re-submit transaction
  '110': 'insufficient_funds', // Insufficient funds
  '111': 'insufficient_funds', // Authorization amount has already been depleted
  '120': 'call_issuer', // Call issuer
  '121': 'call_issuer', // Call AMEX
  '122': 'call_issuer', // Call Diners Club
  '123': 'call_issuer', // Call Discover
  '124': 'call_issuer', // Call JBS
  '125': 'call_issuer', // Call Visa/MasterCard
  '126': 'call_issuer', // Call issuer: update cardholder data
  '127': 'insufficient_funds', // Exceeds approval amount limit
  '130': 'call_issuer', // Call indicated number
  '301': 'incorrect_number', // Invalid account number
  '302': 'incorrect_number', // Account number does not match payment type
  '303': 'pickup_card', // Pick up card
  '304': 'pickup_card', // Lost/stolen card
  '305': 'expired_card', // Expired card
  '307': 'card_declined', // Restricted card
  '320': 'invalid_expiry_date', // Invalid expiration date
  '321': 'config_error', // Invalid merchant
  '322': 'processing_error', // Invalid transaction
  '323': 'incorrect_number', // No such issuer
  '340': 'invalid_amount', // Invalid amount
  '349': 'card_declined', // Do not honor
  '350': 'card_declined', // Generic decline
  '352': 'incorrect_cvc', // Decline CVV2/CID fail
  '353': 'incorrect_address', // Merchant requested decline due to AVS result
  '360': 'processing_error', // No transaction found with specified litleTxnId
  '361': 'processing_error', // Authorization no longer available
  '362': 'processing_error', // Transaction not voided: already settled
  '365': 'invalid_amount', // Total credit amount exceeds capture amount
  '370': 'processing_error', // Internal system error
  '501': 'account_closed', // The account was closed
  '820': 'invalid_number', // Credit card number was invalid
  '821': 'config_error', // Merchant is not authorized for tokens
  '822': 'invalid_number', // Token was not found
  '823': 'invalid_number', // Token invalid
  '952': 'config_error', // The merchant profile does not allow the requested operation
};

/** fraudResult/avsResult → network letter (ActiveMerchant's map). */
const AVS: Readonly<Record<string, string>> = {
  '00': 'Y', '01': 'X', '02': 'D', '10': 'Z', '11': 'W', '12': 'A', '13': 'A', '14': 'P', '20': 'N', '30': 'S', '31': 'R', '32': 'U', '33': 'R', '34': 'I', '40': 'E',
};

function text(fields: Record<string, unknown>, name: string): string | undefined {
  const value = fields[name];
  const raw = typeof value === 'string' ? value : typeof (value as { '#text'?: unknown } | undefined)?.['#text'] === 'string' ? (value as { '#text': string })['#text'] : undefined;
  const trimmed = raw?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed;
}

/**
 * The kind of a Coffer Worldpay eCommerce id (`<kind letter><litleTxnId>`): A authorization,
 * S sale, C capture, R credit. The letter is glued to the digits on purpose: a bare 18-digit
 * litleTxnId passes the Luhn check one time in ten, and Coffer masks card-like numbers in
 * gateway answers; a digit run touching a letter is never taken for a card.
 */
const KIND_LETTER: Readonly<Record<string, string>> = { authorizationResponse: 'A', saleResponse: 'S', captureResponse: 'C', creditResponse: 'R', authReversalResponse: 'V', voidResponse: 'V' };

export function litleTransactionId(kind: string, litleTxnId: string): string {
  return `${KIND_LETTER[kind] ?? 'T'}${litleTxnId}`;
}

/** The litleTxnId and kind letter of a Coffer id; a bare litleTxnId (all digits) is accepted too. */
export function splitLitleId(id: string | null | undefined): { litleTxnId: string; kind: string | null } | null {
  if (id === null || id === undefined) return null;
  const match = /^([A-Z])?(\d{1,19})$/.exec(id);
  return match === null ? null : { litleTxnId: match[2] as string, kind: match[1] ?? null };
}

/**
 * One answer as a GatewayResponse. `expected` is the response element the request asks for
 * (`saleResponse`…). A root `response` other than 0 is a request Vantiv refused unread (schema,
 * authentication): failed, nothing processed.
 */
export function litleResponse(answer: LitleAnswer, expected: string, approvedMessage: string): GatewayResponse {
  if (answer.rootResponse !== '0') {
    const message = answer.rootMessage || 'Worldpay eCommerce refused the request';
    // The reference gives no code for a refused login; its message names it.
    const credentials = /user|password|authenticat|merchant/i.test(message) && !/schema/i.test(message);
    return { ...blankResponse(false, message), errorCode: credentials ? 'config_error' : 'processing_error', errorDetail: `response ${answer.rootResponse}: ${message}`, specificResponseFields: { litle: { root_response: answer.rootResponse } } };
  }
  if (answer.kind !== expected) throw new GatewayFaultError('Worldpay eCommerce returned an unexpected response.', `litleOnlineResponse/${expected}: missing`);
  const { fields } = answer;
  const code = text(fields, 'response');
  if (code === undefined) throw new GatewayFaultError('Worldpay eCommerce returned an unexpected response.', `${expected}/response: missing`);
  const success = expected === 'registerTokenResponse' ? TOKEN_APPROVED.has(code) : APPROVED.has(code);
  const txnId = text(fields, 'litleTxnId');
  if (success && txnId === undefined) throw new GatewayResultUnknownError('Worldpay eCommerce approved the request but returned no litleTxnId.', `${expected}/litleTxnId: missing`);
  const message = text(fields, 'message') ?? code;
  const fraud = (fields.fraudResult ?? {}) as Record<string, unknown>;
  const avs = text(fraud, 'avsResult');
  const cvv = text(fraud, 'cardValidationResult');
  const duplicate = fields['@_duplicate'] === 'true';
  const base: GatewayResponse = {
    ...blankResponse(success, success ? approvedMessage : message),
    gatewayTransactionId: txnId === undefined ? null : litleTransactionId(expected, txnId),
    ...avsResult(AVS[avs ?? '']),
    ...cvvResult(cvv),
    networkTransactionId: text(fields, 'networkTransactionId') ?? null,
    specificResponseFields: {
      litle: {
        response: code,
        message,
        auth_code: text(fields, 'authCode') ?? null,
        order_id: text(fields, 'orderId') ?? null,
        avs_result: avs ?? null,
        card_validation_result: cvv ?? null,
        duplicate,
      },
    },
  };
  if (success) return base;
  const errorCode = mapErrorCode(RESPONSE_CODES, [code], 'card_declined');
  return { ...base, errorCode, errorDetail: `${code}: ${message}`, accountClosed: errorCode === 'account_closed' };
}

/** The token of a registerTokenResponse. */
export function litleToken(answer: LitleAnswer): string | undefined {
  return text(answer.fields, 'litleToken');
}
