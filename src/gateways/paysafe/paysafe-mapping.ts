import { z } from 'zod';
import { avsResult, blankResponse, cvvResult, GatewayFaultError, GatewayResultUnknownError, mapErrorCode, readAnswer, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';
import type { PaysafeReply } from './paysafe-api.js';

/**
 * Paysafe answers in Coffer's terms. A transaction answer has `id` and `status` (COMPLETED,
 * PENDING, RECEIVED, HELD, FAILED, CANCELLED); a refused request has an `error` object with a
 * numeric `code` and `message` (Paysafe's "Card errors" list, which ActiveMerchant's Netbanx
 * adapter also maps), usually with HTTP 402 for a decline, 400 for a bad request, 401 for bad
 * credentials.
 */

const ERROR_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '3001': 'invalid_number', // unsupported card type
  '3002': 'invalid_number', // invalid card number or brand
  '3004': 'incorrect_zip', // the zip is required for AVS
  '3005': 'incorrect_cvc',
  '3006': 'expired_card',
  '3007': 'incorrect_address', // failed the AVS check
  '3008': 'config_error', // card type the account is not configured for
  '3009': 'card_declined',
  '3011': 'card_declined', // restricted card
  '3012': 'invalid_expiry_date',
  '3013': 'card_declined',
  '3014': 'card_declined',
  '3015': 'call_issuer', // process manually by calling the issuer
  '3016': 'pickup_card', // lost or stolen
  '3017': 'invalid_number',
  '3018': 'processing_error', // retry
  '3019': 'incorrect_cvc', // failed the CVV check
  '3022': 'insufficient_funds',
  '3023': 'card_declined',
  '3024': 'card_declined',
  '3032': 'card_declined',
  '3035': 'card_declined',
  '3036': 'card_declined',
  '3037': 'card_declined',
  '3038': 'card_declined',
  '3039': 'card_declined',
  '3040': 'card_declined',
  '3041': 'processing_error', // timeout at the issuer: declined
  '3042': 'processing_error',
  '3044': 'processing_error', // duplicate request
  '3045': 'invalid_expiry_date',
  '3046': 'invalid_amount', // amount zero
  '3047': 'invalid_amount',
  '3048': 'invalid_amount',
  '3049': 'expired_card', // retrieve the card: expired
  '3050': 'pickup_card',
  '3051': 'pickup_card',
  '3052': 'pickup_card',
  '3053': 'pickup_card',
  '3054': 'card_declined', // suspected fraud
  '3202': 'processing_error', // too many settlements
  '3203': 'processing_error', // authorization fully settled or cancelled
  '3204': 'invalid_amount', // more than the remaining authorization
  '3205': 'processing_error', // authorization expired
  '3402': 'invalid_amount', // more than the remaining settlement
  '3403': 'processing_error',
  '3404': 'processing_error', // already fully credited
  '3405': 'processing_error',
  '3406': 'processing_error', // settlement not batched yet
  '3407': 'processing_error', // settlement not found
  '3415': 'processing_error', // not cancellable
  '3416': 'invalid_amount', // partial settlement not supported
  '3502': 'processing_error', // authorization already settled
  '4000': 'card_declined', // risk management
  '4001': 'card_declined',
  '4002': 'card_declined',
  '5003': 'config_error',
  '5017': 'config_error', // account disabled
  '5031': 'processing_error', // already processed (duplicate merchantRefNum)
  '5040': 'config_error', // account not configured for this transaction
  '5068': 'processing_error', // field error
  '5269': 'processing_error', // id not found
  '5270': 'config_error', // credentials without permission
  '5279': 'config_error', // invalid credentials
};

/** `avsResponse` onto the network letters. */
const AVS_LETTERS: Readonly<Record<string, string>> = { MATCH: 'Y', MATCH_ADDRESS_ONLY: 'A', MATCH_ZIP_ONLY: 'Z', NO_MATCH: 'N', NOT_PROCESSED: 'I', UNKNOWN: 'U' };
/** `cvvVerification` onto the CVV letters. */
const CVV_LETTERS: Readonly<Record<string, string>> = { MATCH: 'M', NO_MATCH: 'N', NOT_PROCESSED: 'P', UNKNOWN: 'U' };

const errorSchema = z.object({
  code: z.coerce.string(),
  message: z.string().optional(),
  fieldErrors: z.array(z.object({ field: z.string().optional(), error: z.string().optional() })).optional().catch(undefined),
});
const answerSchema = z.object({
  id: z.string().optional(),
  status: z.string().optional(),
  error: errorSchema.optional(),
  authCode: z.string().optional(),
  avsResponse: z.string().optional(),
  cvvVerification: z.string().optional(),
  currencyCode: z.string().optional(),
  riskReasonCode: z.array(z.coerce.string()).optional().catch(undefined),
  acquirerResponse: z.object({ code: z.coerce.string().optional(), responseCode: z.coerce.string().optional() }).passthrough().optional().catch(undefined),
});
type Answer = z.infer<typeof answerSchema>;

function specificFields(answer: Answer): Record<string, unknown> {
  return {
    paysafe: {
      status: answer.status ?? null,
      error_code: answer.error?.code ?? null,
      auth_code: answer.authCode ?? null,
      avs_response: answer.avsResponse ?? null,
      cvv_verification: answer.cvvVerification ?? null,
      currency_code: answer.currencyCode ?? null,
      risk_reason_codes: answer.riskReasonCode ?? null,
    },
  };
}

function errorMessage(answer: Answer, fallback: string): string {
  const error = answer.error;
  if (error === undefined) return fallback;
  const fields = (error.fieldErrors ?? []).map((field) => [field.field, field.error].filter(Boolean).join(' ')).filter((entry) => entry !== '');
  const message = error.message ?? `Paysafe error ${error.code}`;
  return fields.length === 0 ? message : `${message} (${fields.join('; ')})`;
}

/** Statuses of a transaction that went through (PENDING: accepted, not yet batched). */
export const DONE: ReadonlySet<string> = new Set(['COMPLETED', 'PENDING']);
/** The status a cancelled settlement, refund or stand-alone credit comes back with. */
export const CANCELLED: ReadonlySet<string> = new Set(['CANCELLED']);

/**
 * An answer as a GatewayResponse. COMPLETED or PENDING without an error is a success; HELD (risk
 * review) is not, but flagged for review with its id kept; RECEIVED (still at the processor) is
 * an unknown outcome; an `error` (or FAILED, CANCELLED) is a decline mapped by the error code.
 * 401/403 is a configuration error. A success without an id is an unknown outcome. A cancellation
 * (PUT status CANCELLED) succeeds on `CANCELLED` instead.
 */
export function paysafeResponse(reply: PaysafeReply, approvedMessage: string, succeeded: ReadonlySet<string> = DONE): GatewayResponse {
  const answer = readAnswer('Paysafe', answerSchema, reply.json);
  const common = {
    ...avsResult(AVS_LETTERS[answer.avsResponse ?? ''] ?? null),
    ...cvvResult(CVV_LETTERS[answer.cvvVerification ?? ''] ?? null),
    specificResponseFields: specificFields(answer),
  };
  if (reply.status === 401 || reply.status === 403) {
    const message = errorMessage(answer, 'Paysafe refused the credentials.');
    return { ...blankResponse(false, message), ...common, errorCode: 'config_error', errorDetail: `HTTP ${reply.status}${answer.error === undefined ? '' : ` ${answer.error.code}`}` };
  }
  if (answer.error !== undefined || reply.status >= 400) {
    if (answer.error === undefined) throw new GatewayFaultError('Paysafe returned an unexpected response.', `HTTP ${reply.status} without an error object`);
    return {
      ...blankResponse(false, errorMessage(answer, 'Declined')),
      ...common,
      gatewayTransactionId: answer.id ?? null,
      errorCode: mapErrorCode(ERROR_CODES, [answer.error.code], 'processing_error'),
      errorDetail: answer.error.code,
    };
  }
  const status = answer.status ?? '';
  if (status === 'RECEIVED') throw new GatewayResultUnknownError('Paysafe has not finished the transaction.', 'status RECEIVED');
  if (status === 'HELD') return { ...blankResponse(false, 'Held for review by Paysafe risk management'), ...common, gatewayTransactionId: answer.id ?? null, fraudReview: true, errorCode: 'processing_error', errorDetail: 'HELD' };
  if (!succeeded.has(status)) return { ...blankResponse(false, `Paysafe answered ${status || 'without a status'}`), ...common, gatewayTransactionId: answer.id ?? null, errorCode: 'processing_error', errorDetail: status || null };
  if (answer.id === undefined || answer.id === '') throw new GatewayResultUnknownError('Paysafe returned an unexpected response.', 'id: missing on a success');
  return { ...blankResponse(true, approvedMessage), ...common, gatewayTransactionId: answer.id };
}

const profileSchema = z.object({
  id: z.string().min(1),
  status: z.string().optional(),
  cards: z.array(z.object({ id: z.string().optional(), paymentToken: z.string().min(1) })).min(1),
});

/**
 * A Customer Vault profile: the card's `paymentToken` and the profile id, as
 * `paymentToken|profileId`, become the third-party token (the same form ActiveMerchant keeps, so
 * the profile can be found and removed later); purchases send the token part.
 */
export function paysafeStoreResponse(reply: PaysafeReply): GatewayResponse {
  if (reply.status >= 400 || reply.json.error !== undefined) return paysafeResponse(reply, 'Card stored');
  let profile: z.infer<typeof profileSchema>;
  try {
    profile = readAnswer('Paysafe', profileSchema, reply.json);
  } catch (error) {
    // The profile may exist although the answer cannot be read: the outcome is unknown.
    throw new GatewayResultUnknownError('Paysafe returned an unexpected response.', error instanceof GatewayFaultError ? error.detail : 'profile');
  }
  const token = `${profile.cards[0]?.paymentToken ?? ''}|${profile.id}`;
  return { ...blankResponse(true, 'Card stored'), gatewayTransactionId: profile.id, thirdPartyToken: token, specificResponseFields: { paysafe: { status: profile.status ?? null, profile_id: profile.id } } };
}
