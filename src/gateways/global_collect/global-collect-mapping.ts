import { avsResult, blankResponse, cvvResult, mapErrorCode, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';

/**
 * Worldline Connect's answers in Coffer's terms. Sources: the Connect "Error codes" and "Response
 * codes" pages (decline codes come with HTTP 402 and a `paymentResult`), the payment status
 * reference (status, statusCategory, isAuthorized), and ActiveMerchant's global_collect adapter
 * (which statuses count as success for each operation). Facts only.
 */

/** Connect error codes → standard code; unlisted ones on a rejected payment are `card_declined`. */
const ERROR_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '430285': 'card_declined', // Not authorised: the issuer does not allow the transaction
  '430330': 'card_declined', // Not authorised
  '430421': 'card_declined', // Not authorised: flagged as potentially fraudulent
  '430360': 'insufficient_funds', // Not authorised: less money than requested
  '430357': 'pickup_card', // Lost or stolen card
  '430306': 'expired_card', // Card expired
  '430409': 'call_issuer', // Referred
  '1002': 'processing_error', // INVALID_PAYMENT_ID
  '300240': 'processing_error', // Order (payment) not found
};

/** `propertyName` of a validation error naming a card field → standard code. */
const PROPERTY_CODES: Readonly<Record<string, StandardErrorCode>> = {
  'cardPaymentMethodSpecificInput.card.cardNumber': 'invalid_number',
  'cardPaymentMethodSpecificInput.card.cvv': 'invalid_cvc',
  'cardPaymentMethodSpecificInput.card.expiryDate': 'invalid_expiry_date',
  'order.amountOfMoney.amount': 'invalid_amount',
  'amountOfMoney.amount': 'invalid_amount',
  amount: 'invalid_amount',
  'cardPaymentMethodSpecificInput.paymentProductId': 'unsupported_feature',
};

/** One entry of an `errors` list. */
export interface ConnectError {
  code?: string | undefined;
  id?: string | undefined;
  propertyName?: string | undefined;
  message?: string | undefined;
}

/** What Coffer reads of a payment (or refund) object; unknown fields are ignored. */
export interface ConnectPayment {
  id: string;
  status: string;
  statusCategory: string | undefined;
  statusCode: string | undefined;
  isAuthorized: boolean | undefined;
  errors: ConnectError[];
  avsResult: string | undefined;
  cvvResult: string | undefined;
  authorisationCode: string | undefined;
  schemeTransactionId: string | undefined;
}

function specific(payment: ConnectPayment): Record<string, unknown> {
  return {
    global_collect: {
      status: payment.status,
      status_category: payment.statusCategory ?? null,
      status_code: payment.statusCode ?? null,
      authorisation_code: payment.authorisationCode ?? null,
    },
  };
}

function errorText(error: ConnectError): string {
  return [error.code, error.propertyName, error.message].filter((part) => part !== undefined && part !== '').join(': ');
}

function errorCodeOf(errors: readonly ConnectError[], fallback: StandardErrorCode): StandardErrorCode {
  const first = errors[0];
  if (first === undefined) return fallback;
  return mapErrorCode({ ...PROPERTY_CODES, ...ERROR_CODES }, [first.propertyName, first.code], fallback);
}

/** A payment answer as a GatewayResponse: `approved` says whether this operation succeeded with it. */
export function paymentResponse(payment: ConnectPayment, approved: boolean, approvedMessage: string): GatewayResponse {
  const base: GatewayResponse = {
    ...blankResponse(approved, approved ? approvedMessage : (payment.errors[0]?.message ?? `Status: ${payment.status}`)),
    gatewayTransactionId: payment.id,
    ...avsResult(payment.avsResult),
    ...cvvResult(payment.cvvResult),
    networkTransactionId: approved ? (payment.schemeTransactionId ?? null) : null,
    specificResponseFields: specific(payment),
  };
  if (approved) return base;
  const rejected = payment.status === 'REJECTED' || payment.status === 'REJECTED_CAPTURE' || payment.statusCategory === 'UNSUCCESSFUL';
  const code = errorCodeOf(payment.errors, rejected ? 'card_declined' : 'processing_error');
  const first = payment.errors[0];
  return { ...base, errorCode: code, errorDetail: first === undefined ? `${payment.status}${payment.statusCode === undefined ? '' : ` (${payment.statusCode})`}` : errorText(first) };
}

/** A request Connect refused (4xx with `errors` and no payment): 401/403 are the credentials' fault. */
export function refusalResponse(httpStatus: number, errors: readonly ConnectError[], errorId: string | undefined): GatewayResponse {
  const security = httpStatus === 401 || httpStatus === 403;
  const code = security ? 'config_error' : errorCodeOf(errors, httpStatus === 402 ? 'card_declined' : 'processing_error');
  const first = errors[0];
  return {
    ...blankResponse(false, first?.message ?? `Worldline refused the request (HTTP ${httpStatus}).`),
    errorCode: code,
    errorDetail: first === undefined ? `HTTP ${httpStatus}` : errorText(first),
    specificResponseFields: { global_collect: { error_id: errorId ?? null, error_code: first?.code ?? null, property_name: first?.propertyName ?? null } },
  };
}
