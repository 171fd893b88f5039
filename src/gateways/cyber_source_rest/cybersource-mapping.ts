import { z } from 'zod';
import { avsResult, blankResponse, cvvResult, GatewayFaultError, mapErrorCode, readAnswer, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';
import type { CyberSourceReply } from './cybersource-api.js';

/**
 * CyberSource's `errorInformation.reason` (201 answers) and top-level `reason` (400 answers) onto
 * the standard error codes. ActiveMerchant's cyber_source_rest hands the reason back as is; the
 * pairs here follow the meaning CyberSource's response-code reference gives each reason (and the
 * Simple Order reason codes ActiveMerchant's cyber_source knows: 202 expired, 204 funds, 211 CVN…).
 */
const REASON_CODES: Readonly<Record<string, StandardErrorCode>> = {
  EXPIRED_CARD: 'expired_card',
  INSUFFICIENT_FUND: 'insufficient_funds',
  EXCEEDS_CREDIT_LIMIT: 'insufficient_funds',
  CVN_NOT_MATCH: 'incorrect_cvc',
  CV_FAILED: 'incorrect_cvc',
  INVALID_CVN: 'invalid_cvc',
  AVS_FAILED: 'incorrect_address',
  INVALID_ACCOUNT: 'invalid_number',
  INVALID_CARD: 'invalid_number',
  INVALID_CARD_TYPE: 'invalid_number',
  STOLEN_LOST_CARD: 'pickup_card',
  CONTACT_PROCESSOR: 'call_issuer',
  PROCESSOR_DECLINED: 'card_declined',
  GENERAL_DECLINE: 'card_declined',
  PAYMENT_REFUSED: 'card_declined',
  UNAUTHORIZED_CARD: 'card_declined',
  BLOCKED_BY_CARDHOLDER: 'card_declined',
  BLACKLISTED_CUSTOMER: 'card_declined',
  SUSPENDED_ACCOUNT: 'card_declined',
  CARD_TYPE_NOT_ACCEPTED: 'card_declined',
  DECISION_PROFILE_REJECT: 'card_declined',
  SCORE_EXCEEDS_THRESHOLD: 'card_declined',
  ALLOWABLE_PIN_RETRIES_EXCEEDED: 'card_declined',
  ISSUER_UNAVAILABLE: 'processing_error',
  PROCESSOR_ERROR: 'processing_error',
  PROCESSOR_UNAVAILABLE: 'processing_error',
  INVALID_MERCHANT_CONFIGURATION: 'config_error',
  INVALID_AMOUNT: 'invalid_amount',
  EXCEEDS_AUTH_AMOUNT: 'invalid_amount',
  NOT_SUPPORTED: 'unsupported_feature',
  MISSING_FIELD: 'processing_error',
  INVALID_DATA: 'processing_error',
};

const detailsSchema = z.array(z.object({ field: z.string().optional(), reason: z.string().optional() })).optional();

/** A 201 answer: the fields Coffer relies on. `id` and `status` are required; the rest may be absent. */
const createdSchema = z.object({
  id: z.string().min(1),
  status: z.string().min(1),
  reconciliationId: z.string().optional(),
  errorInformation: z.object({ reason: z.string().optional(), message: z.string().optional(), details: detailsSchema }).optional(),
  processorInformation: z
    .object({
      approvalCode: z.string().optional(),
      responseCode: z.string().optional(),
      networkTransactionId: z.string().optional(),
      avs: z.object({ code: z.string().optional() }).optional(),
      cardVerification: z.object({ resultCode: z.string().optional() }).optional(),
    })
    .optional(),
  tokenInformation: z
    .object({ customer: z.object({ id: z.string() }).optional(), paymentInstrument: z.object({ id: z.string() }).optional() })
    .optional(),
});
export type CreatedAnswer = z.infer<typeof createdSchema>;

/** A 400 answer (INVALID_REQUEST): reason and message at the top level, no transaction id. */
const invalidSchema = z.object({ status: z.string().optional(), reason: z.string().optional(), message: z.string().optional(), details: detailsSchema });

/** The standard code for a refused answer: the reason if known, else a decline or a processing error. */
function errorCodeFor(status: string, reason: string | undefined): StandardErrorCode {
  return mapErrorCode(REASON_CODES, [reason], status === 'DECLINED' || status === 'AUTHORIZED_RISK_DECLINED' ? 'card_declined' : 'processing_error');
}

/** "Declined - …: field" with the first invalid or missing field CyberSource names, if any. */
function withField(message: string, details: Array<{ field?: string | undefined }> | undefined): string {
  const field = details?.find((detail) => detail.field !== undefined)?.field;
  return field === undefined ? message : `${message} (${field})`;
}

function specificFields(status: string, reason: string | null, answer: CreatedAnswer | null): Record<string, unknown> {
  return {
    cyber_source_rest: {
      status,
      reason,
      reconciliation_id: answer?.reconciliationId ?? null,
      approval_code: answer?.processorInformation?.approvalCode ?? null,
      processor_response_code: answer?.processorInformation?.responseCode ?? null,
      network_transaction_id: answer?.processorInformation?.networkTransactionId ?? null,
    },
  };
}

/**
 * Any answer of the Payments API mapped onto a response. `successStatuses` are the statuses meaning
 * this operation worked (AUTHORIZED for a payment, PENDING for a capture or refund, REVERSED or
 * VOIDED for a void). A 400 is a refused request, a 401 a credentials problem (a `config_error`
 * decline, as CyberSource refuses the signature); any other non-201 status is a fault.
 */
export function mapAnswer(reply: CyberSourceReply, successStatuses: readonly string[], successMessage: string): GatewayResponse {
  if (reply.status === 401 || reply.status === 403) {
    const rmsg = (reply.json.response as { rmsg?: unknown } | undefined)?.rmsg;
    const message = typeof rmsg === 'string' ? rmsg : 'Authentication Failed';
    return { ...blankResponse(false, message), errorCode: 'config_error', errorDetail: `HTTP ${reply.status}`, specificResponseFields: specificFields('UNAUTHORIZED', null, null) };
  }
  if (reply.status === 400) {
    const invalid = readAnswer('CyberSource', invalidSchema, reply.json);
    const status = invalid.status ?? 'INVALID_REQUEST';
    const reason = invalid.reason ?? null;
    return {
      ...blankResponse(false, withField(invalid.message ?? 'Invalid request', invalid.details)),
      errorCode: errorCodeFor(status, invalid.reason),
      errorDetail: reason,
      specificResponseFields: specificFields(status, reason, null),
    };
  }
  if (reply.status !== 200 && reply.status !== 201) throw new GatewayFaultError('CyberSource returned an unexpected response.', `HTTP ${reply.status}`);
  const answer = readAnswer('CyberSource', createdSchema, reply.json);
  const ok = successStatuses.includes(answer.status);
  const reason = answer.errorInformation?.reason ?? null;
  const failure = answer.errorInformation?.message ?? `CyberSource answered ${answer.status}`;
  return {
    ...blankResponse(ok, ok ? successMessage : withField(failure, answer.errorInformation?.details)),
    gatewayTransactionId: answer.id,
    errorCode: ok ? null : errorCodeFor(answer.status, answer.errorInformation?.reason),
    errorDetail: ok ? null : reason,
    ...avsResult(answer.processorInformation?.avs?.code),
    ...cvvResult(answer.processorInformation?.cardVerification?.resultCode),
    // Approved by the issuer but held by CyberSource (AVS/CVN rules, Decision Manager): not a success.
    fraudReview: answer.status === 'AUTHORIZED_PENDING_REVIEW' || answer.status === 'PENDING_REVIEW' ? true : null,
    specificResponseFields: specificFields(answer.status, reason, answer),
  };
}

/** The TMS ids of a card stored by an authorization with TOKEN_CREATE, as `customer|paymentInstrument`. */
export function storedCardToken(reply: CyberSourceReply): string | null {
  if (reply.status !== 201) return null;
  const answer = readAnswer('CyberSource', createdSchema, reply.json);
  const customer = answer.tokenInformation?.customer?.id;
  const instrument = answer.tokenInformation?.paymentInstrument?.id;
  if (customer === undefined || instrument === undefined) throw new GatewayFaultError('CyberSource returned an unexpected response.', 'tokenInformation: customer or paymentInstrument id missing');
  return `${customer}|${instrument}`;
}
