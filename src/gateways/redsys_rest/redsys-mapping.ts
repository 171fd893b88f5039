import { blankResponse, mapErrorCode, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';

/**
 * Redsys's answers in Coffer's terms. Sources: Redsys's public developer pages
 * (pagosonline.redsys.es: "Códigos de respuesta" for Ds_Response, the SIS error glossary) and
 * ActiveMerchant's redsys_rest adapter (its response texts and currency table). Facts only.
 */

/** ISO 4217 numeric codes of the currencies Redsys terminals take (Ds_Merchant_Currency). */
export const CURRENCY_CODES: Readonly<Record<string, string>> = {
  AED: '784', ARS: '32', AUD: '36', BOB: '68', BRL: '986', CAD: '124', CHF: '756', CLP: '152', CNY: '156', COP: '170',
  CRC: '188', CZK: '203', DKK: '208', DOP: '214', EUR: '978', GBP: '826', GTQ: '320', HUF: '348', IDR: '360', INR: '356',
  JPY: '392', KRW: '410', MXN: '484', MYR: '458', NOK: '578', NZD: '554', PEN: '604', PLN: '985', RUB: '643', SAR: '682',
  SEK: '752', SGD: '702', THB: '764', TWD: '901', USD: '840', UYU: '858',
};

/** Ds_Response of a refused operation → standard code; any other refusal is `card_declined`. */
const RESPONSE_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '101': 'expired_card', // Card expired
  '102': 'card_declined', // Card blocked temporarily or suspected of fraud
  '104': 'card_declined', // Operation not allowed for this card or terminal
  '107': 'call_issuer', // Contact the card issuer
  '109': 'config_error', // Invalid identification of the merchant or terminal
  '110': 'invalid_amount', // Invalid amount
  '114': 'card_declined', // Card cannot be used for this operation
  '116': 'insufficient_funds', // Insufficient funds
  '118': 'incorrect_number', // Card not registered
  '125': 'card_declined', // Card not effective
  '129': 'incorrect_cvc', // CVV2/CVC2 error
  '167': 'call_issuer', // Contact the issuer: suspected fraud
  '180': 'card_declined', // Card out of service
  '184': 'card_declined', // Cardholder authentication error
  '190': 'card_declined', // Refused with no specific reason
  '191': 'invalid_expiry_date', // Wrong expiry date
  '195': 'card_declined', // Requires SCA (3-D Secure) authentication
  '201': 'expired_card',
  '202': 'pickup_card', // Suspected fraud, card to be retained
  '204': 'card_declined',
  '207': 'call_issuer',
  '208': 'pickup_card', // Lost or stolen card
  '209': 'pickup_card', // Lost or stolen card
  '280': 'incorrect_cvc',
  '290': 'card_declined',
  '904': 'config_error', // Merchant not registered at FUC
  '909': 'processing_error', // System error
  '912': 'processing_error', // Issuer not available
  '913': 'processing_error', // Duplicate transmission
  '916': 'invalid_amount', // Amount too low
  '928': 'processing_error', // Time-out exceeded
  '944': 'processing_error', // Session error
  '945': 'processing_error', // Duplicate transmission
  '947': 'processing_error', // Duplicate transmission while in progress
  '949': 'processing_error', // POS inoperative
  '9064': 'incorrect_number', // Card number incorrect
  '9078': 'unsupported_feature', // No payment method available for this card
  '9093': 'incorrect_number', // Non-existent card
  '9253': 'incorrect_number', // Check digit incorrect
  '9256': 'unsupported_feature', // Pre-authorizations not allowed for the merchant
  '9257': 'unsupported_feature', // Pre-authorizations not allowed for the card
  '9912': 'processing_error', // Issuer not available
};

/** The SIS error glossary: an `errorCode` answer (nothing was processed) → standard code; others are `processing_error`. */
const SIS_CODES: Readonly<Record<string, StandardErrorCode>> = {
  SIS0026: 'config_error', // Merchant / terminal sent does not exist
  SIS0042: 'config_error', // Signature error: the secret key does not match
  SIS0051: 'processing_error', // Order number repeated
  SIS0057: 'invalid_amount', // Amount to refund exceeds what is allowed
  SIS0059: 'invalid_amount', // Amount to confirm exceeds what is allowed
  SIS0071: 'expired_card', // Card expired
  SIS0093: 'incorrect_number', // Card not found in the range table
  SIS0252: 'config_error', // The merchant is not allowed to send card data
  SIS0256: 'unsupported_feature', // Pre-authorizations not allowed for the merchant
  SIS0257: 'unsupported_feature', // Pre-authorizations not allowed for the card
};

/** Texts of Redsys's codes for messages (English wording of Redsys's tables). */
const RESPONSE_TEXTS: Readonly<Record<string, string>> = {
  '0': 'Transaction approved',
  '400': 'Cancellation accepted',
  '481': 'Cancellation accepted',
  '900': 'Refund / confirmation approved',
  '101': 'Card expired',
  '102': 'Card blocked temporarily or under suspicion of fraud',
  '104': 'Transaction not permitted',
  '107': 'Contact the card issuer',
  '116': 'Insufficient funds',
  '118': 'Card not registered',
  '129': 'CVV2/CVC2 error',
  '180': 'Card out of service',
  '190': 'Refusal with no specific reason',
  '191': 'Expiry date incorrect',
  '195': 'Requires SCA authentication',
  '208': 'Lost or stolen card',
  '209': 'Lost or stolen card',
  '913': 'Duplicate transmission',
};

/** What Coffer reads of an answer's decoded Ds_MerchantParameters. */
export interface RedsysAnswer {
  Ds_Order: string;
  Ds_Response: string;
  Ds_Amount?: string | undefined;
  Ds_Currency?: string | undefined;
  Ds_AuthorisationCode?: string | undefined;
  Ds_Merchant_Cof_Txnid?: string | undefined;
  Ds_Card_Brand?: string | undefined;
}

/** Ds_Response as a number without leading zeros ("0000" → "0", "0190" → "190"). */
function plainCode(code: string): string {
  return String(Number.parseInt(code, 10));
}

/**
 * An answer as a GatewayResponse: `approved` tells which codes mean success for this operation.
 * gateway_transaction_id is "order|amount|currency" (the numbers Redsys echoed), which a later
 * capture, refund or cancellation needs: Redsys refers to an operation by its order number, and a
 * cancellation names the original amount and currency.
 */
export function answerResponse(answer: RedsysAnswer, approved: (code: number) => boolean, fallback: { amount: string; currency: string }): GatewayResponse {
  const code = plainCode(answer.Ds_Response);
  const numeric = Number(code);
  const success = Number.isFinite(numeric) && approved(numeric);
  const text = RESPONSE_TEXTS[numeric < 100 ? '0' : code] ?? `Redsys response ${answer.Ds_Response}`;
  const base: GatewayResponse = {
    ...blankResponse(success, text),
    gatewayTransactionId: [answer.Ds_Order, answer.Ds_Amount ?? fallback.amount, answer.Ds_Currency ?? fallback.currency].join('|'),
    networkTransactionId: answer.Ds_Merchant_Cof_Txnid ?? null,
    specificResponseFields: {
      redsys_rest: { ds_order: answer.Ds_Order, ds_response: answer.Ds_Response, ds_authorisation_code: answer.Ds_AuthorisationCode ?? null, ds_card_brand: answer.Ds_Card_Brand ?? null },
    },
  };
  if (success) return base;
  return { ...base, errorCode: mapErrorCode(RESPONSE_CODES, [code], 'card_declined'), errorDetail: `Ds_Response ${answer.Ds_Response}: ${text}` };
}

/** An `errorCode` answer: Redsys refused the request before processing it. */
export function sisErrorResponse(errorCode: string): GatewayResponse {
  return {
    ...blankResponse(false, `${errorCode} ERROR`),
    errorCode: mapErrorCode(SIS_CODES, [errorCode], 'processing_error'),
    errorDetail: errorCode,
    specificResponseFields: { redsys_rest: { error_code: errorCode } },
  };
}
