import { avsResult, blankResponse, cvvResult, mapErrorCode, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';

/**
 * Commerce Hub's answers in Coffer's terms. Sources: Commerce Hub developer docs ("Gateway
 * Response Codes", "Error Response", "Processor Response Details") and ActiveMerchant's
 * commerce_hub adapter (which fields decide success, where AVS and CVV results sit). Facts only.
 */

/** Gateway response codes (`processorResponseDetails.responseCode`) that are approvals. */
export const APPROVED_CODES: ReadonlySet<string> = new Set([
  '000', // Approve
  '003', // Approve VIP
  '785', // No reason to decline: "should be treated as an approval" (verifications, some refunds)
]);

/** Gateway response codes of a decline or rejection → standard code; unlisted ones follow approvalStatus. */
const RESPONSE_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '001': 'processing_error', // Schema validation error
  '002': 'insufficient_funds', // Approved for a partial amount only: not the amount asked (see the docs page)
  '100': 'card_declined', // Do not honor
  '101': 'expired_card',
  '102': 'card_declined', // Suspected fraud
  '104': 'card_declined', // Restricted card
  '105': 'call_issuer', // Call acquirer's security department
  '107': 'call_issuer', // Call for voice authorization
  '108': 'call_issuer', // Refer to issuer's special conditions
  '109': 'config_error', // Invalid merchant
  '110': 'invalid_amount',
  '116': 'insufficient_funds',
  '118': 'incorrect_number', // No card record
  '119': 'card_declined', // Transaction not permitted to customer
  '120': 'unsupported_feature', // Transaction not permitted to terminal
  '121': 'card_declined', // Exceeds withdrawal amount limit
  '122': 'incorrect_cvc', // Security violation: resend with the correct security code
  '129': 'card_declined', // Suspected counterfeit card
  '130': 'config_error', // Invalid terminal
  '131': 'incorrect_number', // Invalid account number
  '132': 'invalid_expiry_date', // Unmatched card expiry date
  '134': 'insufficient_funds',
  '150': 'config_error', // Invalid merchant set up
  '208': 'pickup_card', // Lost card
  '209': 'pickup_card', // Stolen card
  '214': 'unsupported_feature', // Invalid payment type/card type for merchant ID
  '229': 'account_closed', // Previously declined/closed account
  '232': 'account_closed', // Stop all payments – account closed
  '246': 'card_declined', // Declined due to high risk
  '302': 'account_closed',
  '355': 'unsupported_feature', // Invalid currency
  '356': 'unsupported_feature', // Currency not supported
  '500': 'card_declined',
  '504': 'card_declined', // Do not try again
  '505': 'processing_error', // Please retry
  '516': 'processing_error', // Please retry (switch or issuer unavailable)
  '517': 'incorrect_cvc', // CVV2 declined
  '521': 'invalid_amount', // Enter lesser amount
  '704': 'pickup_card',
  '721': 'incorrect_zip',
  '767': 'pickup_card', // Hard capture; pick up
  '771': 'invalid_amount', // Amount too large
};

/** `field` of an error naming a card field → standard code. */
const FIELD_CODES: Readonly<Record<string, StandardErrorCode>> = {
  'source.card.cardData': 'invalid_number',
  'source.card.securityCode': 'invalid_cvc',
  'source.card.expirationMonth': 'invalid_expiry_date',
  'source.card.expirationYear': 'invalid_expiry_date',
  'amount.total': 'invalid_amount',
  'amount.currency': 'unsupported_feature',
};

/** One entry of Commerce Hub's `error` list. */
export interface CommerceHubError {
  type?: string | undefined;
  code?: string | undefined;
  field?: string | undefined;
  message?: string | undefined;
}

/** What Coffer reads of a charge, cancel, refund, verification or token answer; unknown fields are ignored. */
export interface CommerceHubAnswer {
  transactionId: string;
  transactionState: string | undefined;
  transactionType: string | undefined;
  responseCode: string | undefined;
  responseMessage: string | undefined;
  approvalStatus: string | undefined;
  hostResponseCode: string | undefined;
  avsCode: string | undefined;
  securityCodeResponse: string | undefined;
  networkTransactionId: string | undefined;
  errors: CommerceHubError[];
}

function errorCodeOf(error: CommerceHubError | undefined): StandardErrorCode {
  if (error === undefined) return 'processing_error';
  return mapErrorCode({ ...FIELD_CODES, ...RESPONSE_CODES }, [error.field, error.type === 'HOST' || error.type === 'NETWORK' ? error.code : undefined], 'processing_error');
}

function errorText(error: CommerceHubError): string {
  return [error.type, error.code, error.field, error.message].filter((part) => part !== undefined && part !== '').join(': ');
}

function specific(answer: CommerceHubAnswer): Record<string, unknown> {
  return {
    commerce_hub: {
      transaction_state: answer.transactionState ?? null,
      transaction_type: answer.transactionType ?? null,
      response_code: answer.responseCode ?? null,
      approval_status: answer.approvalStatus ?? null,
      host_response_code: answer.hostResponseCode ?? null,
    },
  };
}

/**
 * A payment answer (charge, capture, cancel, refund): approved on an approval response code and no
 * `error` entry; else a decline with the code mapped (an `error` entry first, then the response code).
 */
export function paymentResponse(answer: CommerceHubAnswer, approvedMessage: string): GatewayResponse {
  const firstError = answer.errors[0];
  const approved = firstError === undefined && answer.responseCode !== undefined && APPROVED_CODES.has(answer.responseCode);
  const base: GatewayResponse = {
    ...blankResponse(approved, approved ? approvedMessage : (firstError?.message ?? answer.responseMessage ?? answer.transactionState ?? 'Declined')),
    gatewayTransactionId: answer.transactionId,
    ...avsResult(answer.avsCode),
    ...cvvResult(answer.securityCodeResponse),
    networkTransactionId: approved ? (answer.networkTransactionId ?? null) : null,
    specificResponseFields: specific(answer),
  };
  if (approved) return base;
  return declined(base, answer);
}

/** A verification answer: verified when `transactionState` is VERIFIED (as ActiveMerchant decides). */
export function verificationResponse(answer: CommerceHubAnswer): GatewayResponse {
  const verified = answer.errors.length === 0 && answer.transactionState === 'VERIFIED';
  const base: GatewayResponse = {
    ...blankResponse(verified, verified ? 'Card verified' : (answer.errors[0]?.message ?? answer.responseMessage ?? answer.transactionState ?? 'Not verified')),
    gatewayTransactionId: answer.transactionId,
    ...avsResult(answer.avsCode),
    ...cvvResult(answer.securityCodeResponse),
    specificResponseFields: specific(answer),
  };
  return verified ? base : declined(base, answer);
}

function declined(base: GatewayResponse, answer: CommerceHubAnswer): GatewayResponse {
  const firstError = answer.errors[0];
  const fallback: StandardErrorCode = answer.approvalStatus === 'DECLINED' || answer.transactionState === 'DECLINED' || answer.transactionState === 'NOT_VERIFIED' ? 'card_declined' : 'processing_error';
  const code = firstError !== undefined ? errorCodeOf(firstError) : mapErrorCode(RESPONSE_CODES, [answer.responseCode], fallback);
  const detail = firstError !== undefined ? errorText(firstError) : [answer.responseCode, answer.responseMessage].filter((part) => part !== undefined).join(': ');
  return { ...base, success: false, errorCode: code, errorDetail: detail === '' ? null : detail, accountClosed: code === 'account_closed' };
}

/** A request Commerce Hub refused (4xx with an `error` list): a failed transaction; 401/403 are the credentials' fault. */
export function refusalResponse(httpStatus: number, errors: CommerceHubError[], transactionId: string | null): GatewayResponse {
  const first = errors[0];
  const security = httpStatus === 401 || httpStatus === 403;
  const code = security ? 'config_error' : errorCodeOf(first);
  return {
    ...blankResponse(false, first?.message ?? `Commerce Hub refused the request (HTTP ${httpStatus}).`),
    gatewayTransactionId: transactionId,
    errorCode: code,
    errorDetail: first === undefined ? `HTTP ${httpStatus}` : errorText(first),
    accountClosed: code === 'account_closed',
    specificResponseFields: { commerce_hub: { error_type: first?.type ?? null, error_code: first?.code ?? null, error_field: first?.field ?? null } },
  };
}
