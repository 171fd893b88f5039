import { z } from 'zod';
import { avsResult, blankResponse, cvvResult, mapErrorCode, readAnswer, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';
import type { GraphQlError } from './braintree-api.js';

/**
 * Braintree `legacyCode`s onto the standard codes: processor responses (2000–3000, from
 * "Processor responses → Authorization responses") and validation errors (81xxx/91xxx, the codes
 * the Braintree SDKs name, e.g. NumberIsInvalid 81715). Anything else falls back per context.
 */
const LEGACY_CODES: Readonly<Record<string, StandardErrorCode>> = {
  // processor responses
  '2000': 'card_declined', // Do Not Honor
  '2001': 'insufficient_funds',
  '2002': 'insufficient_funds', // Limit Exceeded
  '2003': 'card_declined', // Cardholder's Activity Limit Exceeded
  '2004': 'expired_card',
  '2005': 'incorrect_number',
  '2006': 'invalid_expiry_date',
  '2007': 'incorrect_number', // No Account
  '2008': 'invalid_number', // Card Account Length Error
  '2009': 'incorrect_number', // No Such Issuer
  '2010': 'incorrect_cvc', // Card Issuer Declined CVV
  '2011': 'call_issuer', // Voice Authorization Required
  '2012': 'pickup_card', // Possible Lost Card
  '2013': 'pickup_card', // Possible Stolen Card
  '2014': 'card_declined', // Fraud Suspected
  '2015': 'card_declined', // Transaction Not Allowed
  '2038': 'card_declined', // Processor Declined
  '2044': 'call_issuer', // Declined – Call Issuer
  '2046': 'card_declined', // Declined
  '2047': 'pickup_card', // Call Issuer. Pick Up Card
  '2053': 'pickup_card', // Card Reported as Lost or Stolen
  '2059': 'incorrect_address', // Address Verification Failed
  '2060': 'incorrect_address', // Address Verification and Card Security Code Failed
  '3000': 'processing_error', // Processor Network Unavailable – Try Again
  // validation errors
  '81703': 'card_declined', // CreditCardTypeIsNotAccepted
  '81706': 'invalid_cvc', // CvvIsRequired
  '81707': 'invalid_cvc', // CvvIsInvalid
  '81709': 'invalid_expiry_date', // ExpirationDateIsRequired
  '81710': 'invalid_expiry_date', // ExpirationDateIsInvalid
  '81712': 'invalid_expiry_date', // ExpirationMonthIsInvalid
  '81713': 'invalid_expiry_date', // ExpirationYearIsInvalid
  '81714': 'invalid_number', // NumberIsRequired
  '81715': 'invalid_number', // NumberIsInvalid
  '81716': 'invalid_number', // NumberHasInvalidLength
  '81717': 'test_mode_live_card', // NumberMustBeTestNumber
  '81736': 'incorrect_cvc', // CvvVerificationFailed
  '81503': 'invalid_amount', // AmountFormatIsInvalid
  '81528': 'invalid_amount', // AmountIsTooLarge
  '81531': 'invalid_amount', // AmountMustBeGreaterThanZero
  '91521': 'invalid_amount', // RefundAmountIsTooLarge
  '91522': 'invalid_amount', // SettlementAmountIsTooLarge
  '91513': 'config_error', // MerchantAccountIdIsInvalid
  '91514': 'config_error', // MerchantAccountIsSuspended
};

/** `gatewayRejectionReason` (the merchant's own fraud rules in the Control Panel) onto the standard codes. */
const REJECTION_REASONS: Readonly<Record<string, StandardErrorCode>> = {
  CVV: 'incorrect_cvc',
  AVS: 'incorrect_address',
  AVS_AND_CVV: 'incorrect_cvc',
  APPLICATION_INCOMPLETE: 'config_error',
  UNION_PAY_ENROLLMENT_REQUIRED: 'unsupported_feature',
};

/** Braintree's AvsCvvResponseCode enum as the one-letter codes of its REST API (M, N, U, I, A, B). */
const BRAINTREE_LETTER: Readonly<Record<string, string>> = {
  MATCHES: 'M',
  DOES_NOT_MATCH: 'N',
  NOT_VERIFIED: 'U',
  NOT_PROVIDED: 'I',
  NOT_APPLICABLE: 'A',
  BYPASS: 'B',
};

/**
 * Street and postal code letters onto one standard AVS letter: ActiveMerchant's braintree_blue
 * table. An issuer outside AVS is S, a Braintree AVS system error E (its avs_error_response_code).
 */
const AVS_BY_STREET_AND_ZIP: Readonly<Record<string, string>> = {
  MM: 'M', MN: 'A', MU: 'B', MI: 'B', MA: 'B',
  NM: 'Z', NN: 'C', NU: 'C', NI: 'C', NA: 'C',
  UM: 'P', UN: 'N', UU: 'I', UI: 'I', UA: 'I',
  IM: 'P', IN: 'C', IU: 'I', II: 'I', IA: 'I',
  AM: 'P', AN: 'C', AU: 'I', AI: 'I', AA: 'I',
  BB: 'B',
};

/** The CVV answer as a standard letter (Braintree's NOT_PROVIDED is "should have been present", not ActiveMerchant's I). */
const CVV_LETTER: Readonly<Record<string, string>> = {
  MATCHES: 'M',
  DOES_NOT_MATCH: 'N',
  NOT_VERIFIED: 'U',
  ISSUER_DOES_NOT_PARTICIPATE: 'U',
  NOT_PROVIDED: 'S',
  NOT_APPLICABLE: 'X',
  SYSTEM_ERROR: 'P',
  BYPASS: 'P',
};

const processorSchema = z.object({
  legacyCode: z.string().nullish(),
  message: z.string().nullish(),
  avsPostalCodeResponse: z.string().nullish(),
  avsStreetAddressResponse: z.string().nullish(),
  cvvResponse: z.string().nullish(),
});
type ProcessorResponse = z.infer<typeof processorSchema>;

const transactionSchema = z.object({
  id: z.string().min(1),
  legacyId: z.string().nullish(),
  status: z.string().min(1),
  amount: z.object({ value: z.string().nullish(), currencyCode: z.string().nullish() }).nullish(),
  statusHistory: z
    .array(z.object({ status: z.string().nullish(), declineType: z.string().nullish(), gatewayRejectionReason: z.string().nullish(), processorResponse: processorSchema.nullish() }))
    .nullish(),
});
export type BraintreeTransaction = z.infer<typeof transactionSchema>;

const verificationSchema = z.object({
  id: z.string().min(1),
  legacyId: z.string().nullish(),
  status: z.string().min(1),
  gatewayRejectionReason: z.string().nullish(),
  processorResponse: processorSchema.nullish(),
});
export type BraintreeVerification = z.infer<typeof verificationSchema>;

export const readTransaction = (value: unknown): BraintreeTransaction => readAnswer('Braintree', transactionSchema, value);
export const readVerification = (value: unknown): BraintreeVerification => readAnswer('Braintree', verificationSchema, value);

export function avsLetter(processor: ProcessorResponse | null | undefined): string | null {
  const street = processor?.avsStreetAddressResponse ?? null;
  const zip = processor?.avsPostalCodeResponse ?? null;
  if (street === null && zip === null) return null;
  if (street === 'ISSUER_DOES_NOT_PARTICIPATE' || zip === 'ISSUER_DOES_NOT_PARTICIPATE') return 'S';
  if (street === 'SYSTEM_ERROR' || zip === 'SYSTEM_ERROR') return 'E';
  return AVS_BY_STREET_AND_ZIP[`${BRAINTREE_LETTER[street ?? ''] ?? 'I'}${BRAINTREE_LETTER[zip ?? ''] ?? 'I'}`] ?? null;
}

function processorResults(processor: ProcessorResponse | null | undefined): Pick<GatewayResponse, 'avsCode' | 'avsMessage' | 'cvvCode' | 'cvvMessage'> {
  return { ...avsResult(avsLetter(processor)), ...cvvResult(CVV_LETTER[processor?.cvvResponse ?? ''] ?? null) };
}

/** The newest status event that says why: the processor's answer and any gateway rejection reason. */
function latestReason(transaction: BraintreeTransaction): { processor: ProcessorResponse | null; rejection: string | null; declineType: string | null } {
  const events = transaction.statusHistory ?? [];
  const withProcessor = events.find((event) => event.processorResponse !== null && event.processorResponse !== undefined);
  const rejected = events.find((event) => typeof event.gatewayRejectionReason === 'string');
  return { processor: withProcessor?.processorResponse ?? null, rejection: rejected?.gatewayRejectionReason ?? null, declineType: withProcessor?.declineType ?? null };
}

function specificFields(id: { legacyId?: string | null | undefined; status: string }, extra: Record<string, unknown>): Record<string, unknown> {
  return { braintree: { status: id.status, legacy_id: id.legacyId ?? null, ...extra } };
}

/** Statuses that mean success, per operation (a purchase is settled or on its way to settlement). */
export const SUCCESS_STATUSES = {
  purchase: ['SUBMITTED_FOR_SETTLEMENT', 'SETTLING', 'SETTLEMENT_PENDING', 'SETTLED', 'SETTLEMENT_CONFIRMED'],
  authorize: ['AUTHORIZED'],
  capture: ['SUBMITTED_FOR_SETTLEMENT', 'SETTLING', 'SETTLEMENT_PENDING', 'SETTLED', 'SETTLEMENT_CONFIRMED'],
  refund: ['AUTHORIZED', 'AUTHORIZING', 'SUBMITTED_FOR_SETTLEMENT', 'SETTLING', 'SETTLEMENT_PENDING', 'SETTLED'],
  void: ['VOIDED'],
} as const;

/**
 * A transaction as Braintree answers a charge, authorization or capture. Not in `successStatuses`
 * is a decline: GATEWAY_REJECTED by its rejection reason, PROCESSOR_DECLINED (or FAILED) by the
 * processor's legacyCode; message as ActiveMerchant words it ("2001 Insufficient Funds").
 */
export function transactionResponse(transaction: BraintreeTransaction, successStatuses: readonly string[], successMessage: string): GatewayResponse {
  const { processor, rejection, declineType } = latestReason(transaction);
  const ok = successStatuses.includes(transaction.status);
  const code = processor?.legacyCode ?? null;
  const base = { ...blankResponse(ok, successMessage), gatewayTransactionId: transaction.id, ...processorResults(processor) };
  const specific = specificFields(transaction, {
    processor_response_code: code,
    gateway_rejection_reason: rejection,
    amount: transaction.amount?.value ?? null,
    currency_code: transaction.amount?.currencyCode ?? null,
  });
  if (ok) return { ...base, specificResponseFields: specific };
  const rejected = transaction.status === 'GATEWAY_REJECTED';
  const errorCode = rejected ? mapErrorCode(REJECTION_REASONS, [rejection], 'card_declined') : mapErrorCode(LEGACY_CODES, [code], transaction.status === 'FAILED' ? 'processing_error' : 'card_declined');
  const message = rejected
    ? `Transaction declined - gateway rejected${rejection === null ? '' : ` (${rejection.toLowerCase()})`}`
    : [code, processor?.message].filter((part) => part !== null && part !== undefined).join(' ') || `Braintree reports the transaction as ${transaction.status}`;
  return {
    ...base,
    success: false,
    message,
    errorCode,
    errorDetail: rejected ? rejection : code,
    fraudReview: rejection === 'FRAUD' || rejection === 'RISK_THRESHOLD' ? true : null,
    specificResponseFields: { braintree: { ...(specific.braintree as Record<string, unknown>), decline_type: declineType } },
  };
}

/** A verification (verify, store): VERIFIED succeeds; the rest decline like a transaction. */
export function verificationResponse(verification: BraintreeVerification, successMessage: string): GatewayResponse {
  const processor = verification.processorResponse ?? null;
  const ok = verification.status === 'VERIFIED';
  const code = processor?.legacyCode ?? null;
  const rejection = verification.gatewayRejectionReason ?? null;
  const base = { ...blankResponse(ok, successMessage), gatewayTransactionId: verification.id, ...processorResults(processor) };
  const specific = specificFields(verification, { processor_response_code: code, gateway_rejection_reason: rejection });
  if (ok) return { ...base, specificResponseFields: specific };
  const rejected = verification.status === 'GATEWAY_REJECTED';
  return {
    ...base,
    success: false,
    message: rejected ? `Verification declined - gateway rejected${rejection === null ? '' : ` (${rejection.toLowerCase()})`}` : `Processor declined: ${processor?.message ?? verification.status} (${code ?? 'no code'})`,
    errorCode: rejected ? mapErrorCode(REJECTION_REASONS, [rejection], 'card_declined') : mapErrorCode(LEGACY_CODES, [code], verification.status === 'FAILED' ? 'processing_error' : 'card_declined'),
    errorDetail: rejected ? rejection : code,
    specificResponseFields: specific,
  };
}

/**
 * GraphQL validation errors (HTTP 200, `errors` instead of data): a decline with Braintree's
 * messages and codes ("Credit card number is invalid. (81715)"), as ActiveMerchant words them.
 */
export function errorsResponse(errors: readonly GraphQlError[]): GatewayResponse {
  const codes = errors.map((error) => (error.extensions?.legacyCode === undefined || error.extensions.legacyCode === null ? null : String(error.extensions.legacyCode)));
  const message = errors.map((error, index) => `${error.message ?? 'Braintree refused the request'}${codes[index] === null ? '' : ` (${codes[index]})`}`).join(' ');
  const known = codes.filter((code): code is string => code !== null);
  return {
    ...blankResponse(false, message),
    errorCode: mapErrorCode(LEGACY_CODES, known, 'processing_error'),
    errorDetail: known.join(',') || (errors[0]?.extensions?.errorClass ?? null),
    specificResponseFields: { braintree: { error_codes: known, error_class: errors[0]?.extensions?.errorClass ?? null } },
  };
}
