import { blankResponse, mapErrorCode, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';

/**
 * Mercado Pago's answers in Coffer's terms. Sources: Mercado Pago's API reference ("Create payment",
 * "Response handling": `status`, `status_detail`, error `cause` codes) and ActiveMerchant's
 * mercado_pago adapter (which states count as approved). Facts only.
 */

/** `status_detail` of a rejected payment → standard code; unlisted rejections are `card_declined`. */
const STATUS_DETAIL_CODES: Readonly<Record<string, StandardErrorCode>> = {
  cc_rejected_bad_filled_card_number: 'incorrect_number',
  cc_rejected_bad_filled_date: 'invalid_expiry_date',
  cc_rejected_bad_filled_security_code: 'incorrect_cvc',
  cc_rejected_bad_filled_other: 'processing_error',
  cc_rejected_insufficient_amount: 'insufficient_funds',
  cc_rejected_call_for_authorize: 'call_issuer',
  cc_rejected_card_disabled: 'call_issuer',
  cc_rejected_card_error: 'processing_error',
  cc_rejected_duplicated_payment: 'processing_error',
  cc_rejected_invalid_installments: 'processing_error',
  cc_rejected_3ds_mandatory: 'processing_error',
  cc_rejected_high_risk: 'card_declined',
  cc_rejected_blacklist: 'card_declined',
  cc_rejected_max_attempts: 'card_declined',
  cc_rejected_other_reason: 'card_declined',
};

/** `cause[].code` of a 4xx error (card token and payment validation) → standard code. */
const CAUSE_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '205': 'invalid_number', // parameter cardNumber can not be null/empty
  E301: 'invalid_number', // invalid parameter cardNumber
  '3034': 'invalid_number', // invalid card_number_validation
  '208': 'invalid_expiry_date', // parameter cardExpirationMonth can not be null/empty
  '209': 'invalid_expiry_date', // parameter cardExpirationYear can not be null/empty
  '325': 'invalid_expiry_date', // invalid parameter cardExpirationMonth
  '326': 'invalid_expiry_date', // invalid parameter cardExpirationYear
  E302: 'invalid_cvc', // invalid parameter securityCode
  '224': 'invalid_cvc', // parameter securityCode can not be null/empty
  E203: 'invalid_cvc', // invalid parameter securityCode
  '2006': 'processing_error', // card token not found
  '3003': 'processing_error', // invalid card_token_id
};

/** What Coffer reads of a payment (POST /v1/payments, PUT /v1/payments/{id}); unknown fields are ignored. */
export interface MercadoPagoPayment {
  id: string;
  status: string;
  status_detail?: string | undefined;
  authorization_code?: string | null | undefined;
  captured?: boolean | undefined;
}

/** Statuses in which Mercado Pago has not decided yet (without `binary_mode` or under manual review). */
export const UNDECIDED_STATUSES = new Set(['pending', 'in_process', 'in_mediation']);

/** A payment answer as a GatewayResponse: `approvedStatuses` are what this operation succeeds with. */
export function paymentResponse(payment: MercadoPagoPayment, approvedStatuses: readonly string[], approvedMessage: string): GatewayResponse {
  const approved = approvedStatuses.includes(payment.status);
  const detail = payment.status_detail ?? payment.status;
  const base: GatewayResponse = {
    ...blankResponse(approved, approved ? approvedMessage : detail),
    gatewayTransactionId: payment.id,
    specificResponseFields: {
      mercado_pago: { status: payment.status, status_detail: payment.status_detail ?? null, authorization_code: payment.authorization_code ?? null },
    },
  };
  if (approved) return base;
  const code: StandardErrorCode = payment.status === 'rejected' ? mapErrorCode(STATUS_DETAIL_CODES, [payment.status_detail], 'card_declined') : 'processing_error';
  return { ...base, errorCode: code, errorDetail: `${payment.status}: ${detail}` };
}

/** What Coffer reads of an error body (HTTP 4xx). */
export interface MercadoPagoError {
  message: string;
  error?: string | undefined;
  status?: number | undefined;
  cause?: Array<{ code?: string | number | undefined; description?: string | undefined }> | undefined;
}

/** A request Mercado Pago refused (4xx): a failed transaction; 401/403 are the access token's fault. */
export function errorResponse(httpStatus: number, error: MercadoPagoError): GatewayResponse {
  const causes = (error.cause ?? []).map((cause) => (cause.code === undefined ? undefined : String(cause.code)));
  const security = httpStatus === 401 || httpStatus === 403;
  const code = security ? 'config_error' : mapErrorCode(CAUSE_CODES, causes, 'processing_error');
  const first = error.cause?.[0];
  const description = first?.description ?? error.message;
  return {
    ...blankResponse(false, description),
    errorCode: code,
    errorDetail: [first?.code, error.error, error.message].filter((part) => part !== undefined && part !== '').join(': '),
    specificResponseFields: { mercado_pago: { error: error.error ?? null, cause_code: first?.code === undefined ? null : String(first.code) } },
  };
}
