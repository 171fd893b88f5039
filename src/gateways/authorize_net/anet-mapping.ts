import { z } from 'zod';
import {
  avsResult,
  blankResponse,
  cvvResult,
  faultOnServerError,
  GatewayFaultError,
  GatewayResultUnknownError,
  mapErrorCode,
  parseJsonAnswer,
  readAnswer,
  type GatewayResponse,
  type OutboundResponse,
  type StandardErrorCode,
} from '../kit/index.js';

/**
 * Authorize.Net's `createTransactionResponse` in Coffer's terms. Sources: Authorize.Net's API
 * reference (developer.authorize.net/api/reference: "Charge a Credit Card", "Authorize a Credit
 * Card", "Capture a Previously Authorized Amount", "Refund a Transaction", "Void a Transaction" and
 * their response samples; the Response Code tool for reason codes) and ActiveMerchant's authorize_net
 * adapter for the facts of its standard error-code and AVS mapping (see docs/gateways/authorize_net.md).
 */

/**
 * `<responseCode><reasonCode>` → standard code, as ActiveMerchant keys it (2 = declined, 3 = error;
 * the reason code is the digits of `errors[0].errorCode`, leading zeros dropped). The last two
 * lines are Coffer's reading of Authorize.Net's reason texts for 45 and 65 (card code mismatches).
 */
export const ANET_REASON_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '36': 'incorrect_number',
  '237': 'invalid_number',
  '2315': 'invalid_number',
  '37': 'invalid_expiry_date',
  '2316': 'invalid_expiry_date',
  '378': 'invalid_cvc',
  '38': 'expired_card',
  '2317': 'expired_card',
  '244': 'incorrect_cvc',
  '227': 'incorrect_address',
  '2127': 'incorrect_address',
  '22': 'card_declined',
  '23': 'card_declined',
  '3153': 'processing_error',
  '235': 'processing_error',
  '24': 'pickup_card',
  '300': 'config_error',
  '384': 'config_error',
  '3155': 'unsupported_feature',
  '245': 'incorrect_cvc',
  '265': 'incorrect_cvc',
};

/** `messages.message[0].code` of a request refused as a whole (no transactionResponse) → standard code. */
export const ANET_MESSAGE_CODES: Readonly<Record<string, StandardErrorCode>> = {
  E00007: 'config_error', // User authentication failed due to invalid authentication values
  E00008: 'config_error', // User authentication failed. The account or API user is inactive
  E00009: 'test_mode_live_card', // The payment gateway account is in Test Mode
  E00012: 'processing_error', // Duplicate reference id
  E00027: 'processing_error', // The transaction was unsuccessful
};

/**
 * Authorize.Net's AVS letters mapped onto the standard ones, as ActiveMerchant does: B (address not
 * provided) and P (AVS not applicable) become I; letters it does not list are left out.
 */
const AVS_LETTERS: Readonly<Record<string, string>> = { A: 'A', B: 'I', E: 'E', G: 'G', N: 'N', P: 'I', R: 'R', S: 'S', U: 'U', W: 'W', X: 'X', Y: 'Y', Z: 'Z' };

/** Reason codes 310/311: "This transaction has already been voided/captured"; answered 1 but nothing happened. */
const ALREADY_ACTIONED = new Set(['310', '311']);

const answerSchema = z.object({
  transactionResponse: z
    .object({
      responseCode: z.enum(['1', '2', '3', '4']),
      authCode: z.string().optional(),
      avsResultCode: z.string().optional(),
      cvvResultCode: z.string().optional(),
      transId: z.string().optional(),
      accountNumber: z.string().optional(),
      accountType: z.string().optional(),
      networkTransId: z.string().optional(),
      messages: z.array(z.object({ code: z.string(), description: z.string().default('') })).optional(),
      errors: z.array(z.object({ errorCode: z.string(), errorText: z.string().default('') })).optional(),
    })
    .optional(),
  refId: z.string().optional(),
  messages: z.object({
    resultCode: z.enum(['Ok', 'Error']),
    message: z.array(z.object({ code: z.string(), text: z.string().default('') })).min(1),
  }),
});

export type AnetAnswer = z.infer<typeof answerSchema>;

/** One answer: JSON (after a byte-order mark) with `messages.resultCode`; a 5xx, non-2xx or anything else is a fault. */
export function readAnetAnswer(response: OutboundResponse): AnetAnswer {
  faultOnServerError('Authorize.Net', response);
  if (response.status < 200 || response.status > 299) throw new GatewayFaultError('Authorize.Net returned an unexpected response.', `HTTP ${response.status}`);
  return readAnswer('Authorize.Net', answerSchema, parseJsonAnswer('Authorize.Net', response));
}

/** Digits of a code with leading zeros dropped (`"0027"` → `"27"`, `"E00027"` → `"27"`), as ActiveMerchant reads reason codes. */
function reasonDigits(code: string | undefined): string | undefined {
  return code?.match(/0*(\d+)$/)?.[1];
}

function withoutFinalDot(text: string): string {
  return text.replace(/\.$/, '');
}

/** What Coffer keeps as gateway_transaction_id: `transId#last4#action`, ActiveMerchant's authorization (a refund needs the last four). */
export function transactionIdentity(transId: string, accountNumber: string | undefined, action: string): string {
  const lastFour = accountNumber?.replace(/\D/g, '').slice(-4) ?? '';
  return `${transId}#${lastFour}#${action}`;
}

/** `transId#last4#action` (or a bare transId) split back. */
export function splitIdentity(id: string): { transId: string; lastFour: string } {
  const [transId = '', lastFour = ''] = id.split('#');
  return { transId, lastFour };
}

/** An answer as a GatewayResponse for `action` (purchase, authorize, capture, refund, void, verify). */
export function anetResponse(answer: AnetAnswer, action: string): GatewayResponse {
  const transaction = answer.transactionResponse;
  const message = answer.messages.message[0] as { code: string; text: string };
  if (transaction === undefined) {
    // Refused as a whole (authentication, schema): no transaction was attempted.
    return {
      ...blankResponse(false, withoutFinalDot(message.text) || 'Error'),
      errorCode: mapErrorCode(ANET_MESSAGE_CODES, [message.code], 'processing_error'),
      errorDetail: `${message.code}: ${message.text}`,
      specificResponseFields: { authorize_net: { result_code: answer.messages.resultCode, message_code: message.code } },
    };
  }
  const firstError = transaction.errors?.[0];
  const firstMessage = transaction.messages?.[0];
  const reason = reasonDigits(firstError?.errorCode ?? firstMessage?.code ?? message.code);
  const reasonText = firstError?.errorText ?? firstMessage?.description ?? message.text;
  const approved = (transaction.responseCode === '1' || transaction.responseCode === '4') && !ALREADY_ACTIONED.has(reason ?? '');
  const transId = transaction.transId === undefined || transaction.transId === '' ? null : transaction.transId;
  if (approved && (transId === null || transId === '0')) {
    throw new GatewayResultUnknownError('Authorize.Net returned an unexpected response.', 'transactionResponse.transId: missing on an approval');
  }
  const avsLetter = AVS_LETTERS[(transaction.avsResultCode ?? '').toUpperCase()];
  const base: GatewayResponse = {
    ...blankResponse(approved, withoutFinalDot(reasonText) || (approved ? 'Approved' : 'Declined')),
    gatewayTransactionId: transId === null ? null : transactionIdentity(transId, transaction.accountNumber, action),
    ...avsResult(avsLetter),
    ...cvvResult(transaction.cvvResultCode),
    fraudReview: transaction.responseCode === '4',
    networkTransactionId: transaction.networkTransId || null,
    specificResponseFields: {
      authorize_net: {
        response_code: transaction.responseCode,
        response_reason_code: reason ?? null,
        auth_code: transaction.authCode || null,
        trans_id: transId,
        account_number: transaction.accountNumber ?? null,
        account_type: transaction.accountType ?? null,
      },
    },
  };
  if (approved) return base;
  const fallback = transaction.responseCode === '2' ? 'card_declined' : 'processing_error';
  return { ...base, errorCode: mapErrorCode(ANET_REASON_CODES, [`${transaction.responseCode}${reason ?? ''}`], fallback), errorDetail: `${reason ?? '?'}: ${reasonText}` };
}
