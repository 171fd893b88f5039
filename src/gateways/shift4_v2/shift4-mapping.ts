import { blankResponse, mapErrorCode, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';

/**
 * Shift4's answers in Coffer's terms. Sources: Shift4's API reference ("Errors": the error object's
 * `type`, `code`, `message`, `chargeId`, `issuerDeclineCode`; HTTP 400/401/402/404/429/5xx) and
 * ActiveMerchant's securion_pay / shift4_v2 adapters (success is an answer without `error`; the
 * error-code vocabulary). Facts only.
 */

/** `error.code` → standard code; a card_error without a known code is `card_declined`, anything else `processing_error`. */
const ERROR_CODES: Readonly<Record<string, StandardErrorCode>> = {
  invalid_number: 'invalid_number',
  incorrect_number: 'incorrect_number',
  invalid_expiry_month: 'invalid_expiry_date',
  invalid_expiry_year: 'invalid_expiry_date',
  invalid_cvc: 'invalid_cvc',
  incorrect_cvc: 'incorrect_cvc',
  incorrect_zip: 'incorrect_zip',
  expired_card: 'expired_card',
  insufficient_funds: 'insufficient_funds',
  lost_or_stolen: 'pickup_card',
  suspected_fraud: 'card_declined',
  blacklisted: 'card_declined',
  limit_exceeded: 'card_declined',
  expired_token: 'card_declined',
  card_declined: 'card_declined',
  processing_error: 'processing_error',
};

/** What Coffer reads of an error body. */
export interface Shift4Error {
  type?: string | undefined;
  code?: string | undefined;
  message: string;
  chargeId?: string | undefined;
  charge?: string | undefined;
  issuerDeclineCode?: string | undefined;
}

/** A request Shift4 refused or a card it declined: a failed transaction; 401 is the secret key's fault. */
export function errorResponse(httpStatus: number, error: Shift4Error): GatewayResponse {
  const fallback: StandardErrorCode = error.type === 'card_error' ? 'card_declined' : 'processing_error';
  const code = httpStatus === 401 || httpStatus === 403 ? 'config_error' : mapErrorCode(ERROR_CODES, [error.code], fallback);
  const chargeId = error.chargeId ?? error.charge;
  return {
    ...blankResponse(false, error.message),
    gatewayTransactionId: chargeId ?? null,
    errorCode: code,
    errorDetail: [`HTTP ${httpStatus}`, error.type, error.code, error.issuerDeclineCode, error.message].filter((part) => part !== undefined && part !== '').join(': '),
    specificResponseFields: { shift4_v2: { error_type: error.type ?? null, error_code: error.code ?? null, issuer_decline_code: error.issuerDeclineCode ?? null, charge_id: chargeId ?? null } },
  };
}

/** What Coffer reads of a charge. */
export interface Shift4Charge {
  id: string;
  amount: number;
  currency: string;
  captured?: boolean | undefined;
  refunded?: boolean | undefined;
  status?: string | undefined;
  card?: { id?: string | undefined; customerId?: string | undefined; last4?: string | undefined; brand?: string | undefined } | undefined;
}

/** A charge answer (2xx, no `error`) as a successful GatewayResponse. */
export function chargeResponse(charge: Shift4Charge, message: string): GatewayResponse {
  return {
    ...blankResponse(true, message),
    gatewayTransactionId: charge.id,
    specificResponseFields: {
      shift4_v2: { captured: charge.captured ?? null, refunded: charge.refunded ?? null, amount: charge.amount, currency: charge.currency, card_id: charge.card?.id ?? null, last4: charge.card?.last4 ?? null, brand: charge.card?.brand ?? null },
    },
  };
}
