import { avsResult, blankResponse, cvvResult, mapErrorCode, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';

/**
 * Nuvei's REST API 1.0 answers in Coffer's terms. Sources: Nuvei's "Response Handling" page (the
 * three stages: `status`/`errCode`/`reason` of the API, `transactionStatus`/`gwErrorCode`/
 * `gwErrorReason`/`gwExtendedErrorCode` of the gateway and bank, and the "API Response Codes"
 * table), the payment answer fields of the API reference (`issuerDeclineCode`, `avsCode`,
 * `cvv2Reply`), and ActiveMerchant's nuvei adapter (success is `status` SUCCESS with an APPROVED
 * `transactionStatus`). Facts only.
 */

/** `errCode` of a request the API refused (status ERROR) → standard code; others are `processing_error`. */
const ERR_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '1001': 'config_error', // Invalid checksum (a wrong secret key)
  '1013': 'config_error', // Invalid merchant ID
  '1022': 'config_error', // Invalid merchant site ID
  '1004': 'invalid_number', // Missing or invalid CardData data
  '1028': 'invalid_number', // Invalid card issuer
  '1029': 'invalid_expiry_date', // Invalid expired date
  '1062': 'invalid_cvc', // Invalid CVV
  '1040': 'invalid_amount', // Invalid or missing amount
};

/**
 * `issuerDeclineCode` of a DECLINED card transaction: the issuer's ISO 8583 response code, which
 * Nuvei passes through → standard code. Unlisted declines are `card_declined`.
 */
const ISSUER_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '01': 'call_issuer', // Refer to card issuer
  '02': 'call_issuer', // Refer to card issuer, special condition
  '04': 'pickup_card', // Pick up card
  '05': 'card_declined', // Do not honour
  '07': 'pickup_card', // Pick up card, special condition
  '12': 'card_declined', // Invalid transaction
  '13': 'invalid_amount', // Invalid amount
  '14': 'incorrect_number', // Invalid card number
  '15': 'incorrect_number', // No such issuer
  '41': 'pickup_card', // Lost card
  '43': 'pickup_card', // Stolen card
  '51': 'insufficient_funds', // Not sufficient funds
  '54': 'expired_card', // Expired card
  '57': 'card_declined', // Transaction not permitted to cardholder
  '61': 'card_declined', // Exceeds withdrawal amount limit
  '62': 'card_declined', // Restricted card
  '82': 'incorrect_cvc', // Negative CVV results
  N7: 'incorrect_cvc', // Decline for CVV2 failure (Visa)
  '91': 'processing_error', // Issuer unavailable
  '96': 'processing_error', // System malfunction
};

/** `gwErrorReason` texts (lower case) of a decline without an issuer code → standard code. */
const REASON_TEXTS: Readonly<Record<string, StandardErrorCode>> = {
  'insufficient funds': 'insufficient_funds',
  'expired card': 'expired_card',
  'do not honor': 'card_declined',
  decline: 'card_declined',
  'lost card': 'pickup_card',
  'stolen card': 'pickup_card',
  'pick up card': 'pickup_card',
  'invalid card number': 'incorrect_number',
  'refer to card issuer': 'call_issuer',
};

/** What Coffer reads of an answer of /payment, /settleTransaction, /refundTransaction or /voidTransaction. */
export interface NuveiAnswer {
  status: string;
  errCode?: string | undefined;
  reason?: string | undefined;
  transactionStatus?: string | undefined;
  transactionId?: string | undefined;
  gwErrorCode?: string | undefined;
  gwErrorReason?: string | undefined;
  gwExtendedErrorCode?: string | undefined;
  issuerDeclineCode?: string | undefined;
  issuerDeclineReason?: string | undefined;
  authCode?: string | undefined;
  orderId?: string | undefined;
  externalSchemeTransactionId?: string | undefined;
  paymentOption?: { userPaymentOptionId?: string | undefined; card?: { avsCode?: string | undefined; cvv2Reply?: string | undefined } | undefined } | undefined;
}

const present = (value: string | undefined): string | undefined => (value === undefined || value === '' ? undefined : value);

/**
 * Nuvei's ids as Coffer keeps them: `N` glued to a `transactionId`, `P` to a `userPaymentOptionId`
 * (only when it is all digits). Why: a 19-digit transactionId passes the Luhn check about one time
 * in ten, and Coffer masks card-like numbers in everything a gateway answers (docs/security.md,
 * src/gateways/response-scrubbing.ts), which would leave that transaction impossible to capture,
 * refund or void; a digit run touching a letter is never taken for a card (the same choice as
 * litle and orbital, docs/gateways/litle.md). See docs/gateways/nuvei.md.
 */
function glue(letter: string, id: string): string {
  return /^\d+$/.test(id) ? `${letter}${id}` : id;
}

/** The id Nuvei gave, from Coffer's form; a bare id (kept before the letter was glued on) is accepted as it is. */
function unglue(letter: string, id: string): string {
  return new RegExp(`^${letter}(\\d+)$`).exec(id)?.[1] ?? id;
}

export const nuveiTransactionId = (transactionId: string): string => glue('N', transactionId);
export const bareTransactionId = (id: string): string => unglue('N', id);
export const nuveiPaymentOptionId = (userPaymentOptionId: string): string => glue('P', userPaymentOptionId);
export const barePaymentOptionId = (id: string): string => unglue('P', id);

function specific(answer: NuveiAnswer): Record<string, unknown> {
  return {
    nuvei: {
      status: answer.status,
      transaction_status: answer.transactionStatus ?? null,
      auth_code: present(answer.authCode) ?? null,
      order_id: present(answer.orderId) ?? null,
      err_code: answer.errCode ?? null,
      gw_error_code: answer.gwErrorCode ?? null,
      gw_extended_error_code: answer.gwExtendedErrorCode ?? null,
      issuer_decline_code: present(answer.issuerDeclineCode) ?? null,
      user_payment_option_id: present(answer.paymentOption?.userPaymentOptionId) ?? null,
    },
  };
}

/** The standard code of an answer that is not an approval. */
function declineCode(answer: NuveiAnswer): StandardErrorCode {
  if (answer.status !== 'SUCCESS') return mapErrorCode(ERR_CODES, [answer.errCode], 'processing_error');
  if (answer.transactionStatus === 'DECLINED') {
    return mapErrorCode({ ...REASON_TEXTS, ...ISSUER_CODES }, [present(answer.issuerDeclineCode), answer.gwErrorReason?.trim().toLowerCase()], 'card_declined');
  }
  return 'processing_error';
}

/** The answer's text for a failure: the gateway's reason, else the API's, else the status. */
function failureMessage(answer: NuveiAnswer): string {
  return present(answer.gwErrorReason) ?? present(answer.issuerDeclineReason) ?? present(answer.reason) ?? answer.transactionStatus ?? answer.status;
}

/**
 * An answer as a GatewayResponse: approved only when the API accepted the request (`status`
 * SUCCESS) and the gateway approved the transaction (`transactionStatus` APPROVED).
 */
export function answerResponse(answer: NuveiAnswer, approvedMessage: string): GatewayResponse {
  const approved = answer.status === 'SUCCESS' && answer.transactionStatus === 'APPROVED';
  const card = answer.paymentOption?.card;
  const base: GatewayResponse = {
    ...blankResponse(approved, approved ? approvedMessage : failureMessage(answer)),
    gatewayTransactionId: answer.transactionId === undefined || answer.transactionId === '' ? null : nuveiTransactionId(answer.transactionId),
    ...avsResult(present(card?.avsCode)),
    ...cvvResult(present(card?.cvv2Reply)),
    networkTransactionId: present(answer.externalSchemeTransactionId) ?? null,
    specificResponseFields: specific(answer),
  };
  if (approved) return base;
  const detail =
    answer.status === 'SUCCESS'
      ? [answer.transactionStatus, answer.gwErrorCode, answer.gwExtendedErrorCode, present(answer.issuerDeclineCode), failureMessage(answer)]
      : [answer.status, answer.errCode, failureMessage(answer)];
  return { ...base, errorCode: declineCode(answer), errorDetail: detail.filter((part) => part !== undefined && part !== '').join(': ') };
}
