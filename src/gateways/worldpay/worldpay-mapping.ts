import { avsResult, blankResponse, cvvResult, GatewayFaultError, GatewayResultUnknownError, mapErrorCode, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';

/**
 * Worldpay's XML answers in Coffer's terms. Sources: Worldpay's XML Direct reference (orderStatus,
 * lastEvent, ISO8583ReturnCode, error codes, modification replies) and ActiveMerchant's Worldpay
 * adapter (AVS and CVC result maps; success criteria per request type).
 */

/** ISO8583ReturnCode code of a REFUSED payment → standard code; others are `card_declined`. */
const ISO_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '2': 'call_issuer', // REFERRED
  '3': 'config_error', // INVALID ACCEPTOR
  '4': 'pickup_card', // HOLD CARD
  '13': 'invalid_amount', // INVALID AMOUNT
  '14': 'incorrect_number', // INVALID ACCOUNT
  '15': 'incorrect_number', // INVALID CARD ISSUER
  '20': 'processing_error', // ACQUIRER ERROR
  '30': 'processing_error', // FORMAT ERROR
  '33': 'expired_card', // CARD EXPIRED
  '41': 'pickup_card', // LOST CARD
  '43': 'pickup_card', // STOLEN CARD
  '51': 'insufficient_funds', // LIMIT EXCEEDED
  '54': 'expired_card', // EXPIRED CARD
  '55': 'incorrect_cvc', // INVALID SECURITY CODE
  '56': 'incorrect_number', // UNKNOWN CARD
  '91': 'processing_error', // ISSUER TEMPORARILY NOT REACHABLE
};

/** `<error code>` of a reply → standard code; others are `processing_error`. */
const ERROR_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '4': 'config_error', // security error
  '7': 'invalid_number', // payment details in the order are incorrect
};

/** AVSResultCode description: the letters ActiveMerchant maps, and the words Worldpay also answers. */
const AVS: Readonly<Record<string, string>> = {
  A: 'M', B: 'P', C: 'Z', D: 'B', E: 'I', F: 'A', G: 'C', H: 'I', I: 'C', J: 'C',
  APPROVED: 'M',
  FAILED: 'N',
  'NOT SUPPLIED BY SHOPPER': 'I',
  'NOT SENT TO ACQUIRER': 'I',
  'NOT CHECKED BY ACQUIRER': 'I',
  UNKNOWN: 'U',
};

/** CVCResultCode description → standard letter. */
const CVC: Readonly<Record<string, string>> = {
  A: 'M', B: 'P', C: 'P', D: 'N',
  APPROVED: 'M',
  FAILED: 'N',
  'NOT SUPPLIED BY SHOPPER': 'P',
  'NOT SENT TO ACQUIRER': 'P',
  'NOT CHECKED BY ACQUIRER': 'P',
  UNKNOWN: 'U',
};

type Node = Record<string, unknown>;

function node(value: unknown): Node | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Node) : undefined;
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  const inner = node(value)?.['#text'];
  return typeof inner === 'string' ? inner : undefined;
}

function attribute(value: unknown, name: string): string | undefined {
  const found = node(value)?.[`@_${name}`];
  return typeof found === 'string' ? found : undefined;
}

/** A reply `<error code>` (at the top or inside orderStatus) as a failed transaction. */
export function errorResponse(error: unknown, orderCodeSent: string): GatewayResponse {
  const code = attribute(error, 'code');
  const message = text(error)?.trim() || 'Worldpay returned an error';
  return {
    ...blankResponse(false, message),
    gatewayTransactionId: orderCodeSent,
    errorCode: mapErrorCode(ERROR_CODES, [code], 'processing_error'),
    errorDetail: code === undefined ? message : `error ${code}: ${message}`,
    specificResponseFields: { worldpay: { error_code: code ?? null } },
  };
}

/** 401 from Worldpay: wrong merchant code, username or password. */
export function unauthorizedResponse(): GatewayResponse {
  return { ...blankResponse(false, 'Invalid credentials'), errorCode: 'config_error', errorDetail: 'HTTP 401' };
}

/**
 * The reply to `submit/order`: `orderStatus/payment/lastEvent` decides. AUTHORISED (and CAPTURED,
 * for merchants capturing at once) approve; REFUSED declines by ISO8583ReturnCode; ERROR and
 * CANCELLED fail; anything else (SENT_FOR_AUTHORISATION, …) leaves the outcome unknown.
 */
export function orderResponse(reply: Node, orderCodeSent: string, approvedMessage: string): GatewayResponse {
  if (reply.error !== undefined) return errorResponse(reply.error, orderCodeSent);
  const status = node(reply.orderStatus);
  if (status === undefined) throw new GatewayFaultError('Worldpay returned an unexpected response.', 'reply/orderStatus: missing');
  const code = attribute(status, 'orderCode') ?? orderCodeSent;
  if (status.error !== undefined) return errorResponse(status.error, code);
  const payment = node(status.payment);
  const lastEvent = text(payment?.lastEvent);
  if (payment === undefined || lastEvent === undefined) throw new GatewayFaultError('Worldpay returned an unexpected response.', 'orderStatus/payment/lastEvent: missing');
  const iso = payment.ISO8583ReturnCode;
  const avsDescription = attribute(payment.AVSResultCode, 'description');
  const cvcDescription = attribute(payment.CVCResultCode, 'description');
  const approved = lastEvent === 'AUTHORISED' || lastEvent === 'CAPTURED';
  const declined = lastEvent === 'REFUSED' || lastEvent === 'ERROR' || lastEvent === 'CANCELLED';
  if (!approved && !declined) throw new GatewayResultUnknownError('Worldpay did not give a final result.', `lastEvent ${lastEvent}`);
  const isoCode = attribute(iso, 'code');
  // The scheme's transaction id, returned when stored credentials were flagged.
  const schemeId = text(node(payment.schemeResponse)?.transactionIdentifier);
  const isoDescription = attribute(iso, 'description');
  const base: GatewayResponse = {
    ...blankResponse(approved, approved ? approvedMessage : (isoDescription ?? lastEvent)),
    gatewayTransactionId: code,
    ...avsResult(AVS[avsDescription ?? '']),
    ...cvvResult(CVC[cvcDescription ?? '']),
    specificResponseFields: {
      worldpay: {
        last_event: lastEvent,
        iso8583_return_code: isoCode ?? null,
        authorisation_id: attribute(payment.AuthorisationId, 'id') ?? null,
        avs_result_code: avsDescription ?? null,
        cvc_result_code: cvcDescription ?? null,
        ...(schemeId === undefined ? {} : { network_transaction_id: schemeId }),
      },
    },
  };
  if (approved) return base;
  const errorCode: StandardErrorCode = lastEvent === 'REFUSED' ? mapErrorCode(ISO_CODES, [isoCode], 'card_declined') : 'processing_error';
  return { ...base, errorCode, errorDetail: [lastEvent, isoCode, isoDescription].filter((part) => part !== undefined).join(': ') };
}

/**
 * The reply to `modify/orderModification`: `ok/<expected>` (captureReceived, refundReceived,
 * cancelReceived) succeeds; an `<error>` fails with its code; anything else is a fault.
 */
export function modificationResponse(reply: Node, orderCodeSent: string, expected: string, message: string): GatewayResponse {
  if (reply.error !== undefined) return errorResponse(reply.error, orderCodeSent);
  const received = node(reply.ok)?.[expected];
  if (received === undefined) throw new GatewayFaultError('Worldpay returned an unexpected response.', `reply/ok/${expected}: missing`);
  return {
    ...blankResponse(true, message),
    gatewayTransactionId: attribute(received, 'orderCode') ?? orderCodeSent,
    specificResponseFields: { worldpay: { received: expected } },
  };
}

/** The reply to `paymentTokenCreate`: `token/tokenDetails/paymentTokenID`; the third-party token is `shopper|tokenId`. */
export function tokenResponse(reply: Node, shopperId: string): GatewayResponse {
  if (reply.error !== undefined) return errorResponse(reply.error, shopperId);
  const token = node(reply.token);
  if (token?.error !== undefined) return errorResponse(token.error, shopperId);
  const tokenId = text(node(token?.tokenDetails)?.paymentTokenID)?.trim();
  if (token === undefined || tokenId === undefined || tokenId === '') throw new GatewayFaultError('Worldpay returned an unexpected response.', 'reply/token/tokenDetails/paymentTokenID: missing');
  const shopper = text(token.authenticatedShopperID)?.trim() || shopperId;
  return {
    ...blankResponse(true, 'Card stored'),
    gatewayTransactionId: tokenId,
    thirdPartyToken: `${shopper}|${tokenId}`,
    specificResponseFields: { worldpay: { authenticated_shopper_id: shopper, payment_token_id: tokenId, token_event: attribute(token.tokenDetails, 'tokenEvent') ?? null } },
  };
}
