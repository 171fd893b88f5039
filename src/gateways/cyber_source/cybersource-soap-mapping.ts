import { z } from 'zod';
import { avsResult, blankResponse, cvvResult, GatewayFaultError, GatewayResultUnknownError, mapErrorCode, readAnswer, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';
import type { SoapAnswer } from './cybersource-soap-api.js';

/**
 * Simple Order API replies in Coffer's terms. `decision` is ACCEPT, REVIEW, REJECT or ERROR and
 * `reasonCode` says why (CyberSource's "Reason Codes" table in the SOAP Toolkit guides; the same
 * list ActiveMerchant's adapter carries). AVS and CVN results are the card networks' letters.
 */

/** The reason codes of a refused request, onto the standard codes. */
const REASON_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '101': 'processing_error', // a required field is missing (missingField names it)
  '102': 'processing_error', // a field holds invalid data (invalidField names it)
  '104': 'processing_error', // duplicate merchantReferenceCode within 15 minutes
  '200': 'incorrect_address', // approved by the issuer, declined by CyberSource's AVS check
  '201': 'call_issuer', // the issuer has questions: voice authorization
  '202': 'expired_card',
  '203': 'card_declined', // general decline
  '204': 'insufficient_funds',
  '205': 'pickup_card', // stolen or lost card
  '207': 'processing_error', // issuing bank unavailable
  '208': 'card_declined', // inactive, or not authorised for card-not-present
  '209': 'incorrect_cvc', // American Express CID did not match
  '210': 'insufficient_funds', // credit limit reached
  '211': 'invalid_cvc',
  '220': 'card_declined',
  '221': 'card_declined', // on the processor's negative file
  '222': 'card_declined', // account frozen
  '230': 'incorrect_cvc', // approved by the issuer, declined by CyberSource's CVN check
  '231': 'invalid_number',
  '232': 'card_declined', // card type not accepted by the processor
  '233': 'card_declined', // general decline by the processor
  '234': 'config_error', // merchant configuration problem
  '235': 'invalid_amount', // more than the authorized amount
  '236': 'processing_error', // processor failure
  '237': 'processing_error', // already reversed
  '238': 'processing_error', // already captured
  '239': 'invalid_amount', // must match the previous amount
  '240': 'invalid_number', // card type does not match the number
  '241': 'processing_error', // invalid request ID
  '242': 'processing_error', // no unused authorization to capture
  '243': 'processing_error', // already settled or reversed
  '246': 'processing_error', // not voidable any more
  '247': 'processing_error', // credit of a voided capture
  '254': 'config_error', // stand-alone credits not allowed
  '255': 'config_error',
  '475': 'card_declined', // payer authentication required
  '476': 'card_declined',
  '478': 'card_declined', // strong customer authentication required
  '480': 'processing_error', // held for review by Decision Manager
  '481': 'card_declined', // rejected by Decision Manager
  '490': 'config_error',
  '491': 'config_error',
  '520': 'card_declined', // declined by Smart Authorization
};

/** The field a 101/102 names (`c:card/c:accountNumber`), when it says which card datum was wrong. */
const FIELD_CODES: Readonly<Record<string, StandardErrorCode>> = {
  accountNumber: 'invalid_number',
  cardType: 'invalid_number',
  expirationMonth: 'invalid_expiry_date',
  expirationYear: 'invalid_expiry_date',
  cvNumber: 'invalid_cvc',
  grandTotalAmount: 'invalid_amount',
};

/** The messages of the reason codes Coffer shows (CyberSource's table, shortened). */
const REASON_MESSAGES: Readonly<Record<string, string>> = {
  '100': 'Successful transaction',
  '101': 'Request is missing one or more required fields',
  '102': 'One or more fields contains invalid data',
  '104': 'Duplicate merchantReferenceCode within 15 minutes',
  '110': 'Partial amount was approved',
  '150': 'General system failure',
  '151': 'The request was received but a server time-out occurred',
  '152': 'The request was received, but a service timed out',
  '200': 'Declined by CyberSource: the AVS check failed',
  '201': 'The issuing bank has questions about the request',
  '202': 'Expired card',
  '203': 'General decline of the card',
  '204': 'Insufficient funds in the account',
  '205': 'Stolen or lost card',
  '207': 'Issuing bank unavailable',
  '208': 'Inactive card or card not authorized for card-not-present transactions',
  '209': 'American Express Card Identification Digits (CID) did not match',
  '210': 'The card has reached the credit limit',
  '211': 'Invalid card verification number',
  '221': "The customer matched an entry on the processor's negative file",
  '222': "The customer's account is frozen",
  '230': 'Declined by CyberSource: the card verification check failed',
  '231': 'Invalid account number',
  '232': 'The card type is not accepted by the payment processor',
  '233': 'General decline by the processor',
  '234': 'A problem exists with your CyberSource merchant configuration',
  '235': 'The requested amount exceeds the originally authorized amount',
  '236': 'Processor failure',
  '237': 'The authorization has already been reversed',
  '238': 'The authorization has already been captured',
  '239': 'The requested transaction amount must match the previous transaction amount',
  '240': 'The card type sent is invalid or does not correlate with the credit card number',
  '241': 'The request ID is invalid',
  '242': 'There is no corresponding, unused authorization record',
  '243': 'The transaction has already been settled or reversed',
  '246': 'The capture or credit is not voidable',
  '247': 'The capture was voided',
  '250': 'The request was received, but a time-out occurred with the payment processor',
  '480': 'The order is marked for review by Decision Manager',
  '481': 'The order has been rejected by Decision Manager',
  '520': 'Declined by CyberSource: Smart Authorization settings',
};

/**
 * Reasons CyberSource gives when it received the request but cannot say what became of it (a time
 * out inside CyberSource or at the processor): its guide says not to resend before looking the
 * request up, so the outcome is unknown, never a decline.
 */
const UNKNOWN_OUTCOME = new Set(['151', '152', '250']);

const fieldList = z.union([z.string(), z.array(z.string())]).optional();
const serviceReply = z
  .object({
    reasonCode: z.string().optional(),
    amount: z.string().optional(),
    authorizationCode: z.string().optional(),
    avsCode: z.string().optional(),
    avsCodeRaw: z.string().optional(),
    cvCode: z.string().optional(),
    cvCodeRaw: z.string().optional(),
    processorResponse: z.string().optional(),
    reconciliationID: z.string().optional(),
    paymentNetworkTransactionID: z.string().optional(),
    subscriptionID: z.string().optional(),
  })
  .optional()
  .catch(undefined);
const replySchema = z.object({
  requestID: z.string().min(1),
  decision: z.enum(['ACCEPT', 'REVIEW', 'REJECT', 'ERROR']),
  reasonCode: z.string().min(1),
  requestToken: z.string().optional(),
  merchantReferenceCode: z.string().optional(),
  missingField: fieldList,
  invalidField: fieldList,
  ccAuthReply: serviceReply,
  ccCaptureReply: serviceReply,
  ccCreditReply: serviceReply,
  ccAuthReversalReply: serviceReply,
  voidReply: serviceReply,
  paySubscriptionCreateReply: serviceReply,
});
type Reply = z.infer<typeof replySchema>;

/** WS-Security faults: the merchant ID or transaction key was not accepted. */
const SECURITY_FAULT = /(FailedCheck|FailedAuthentication|InvalidSecurity|SecurityTokenUnavailable)$/;

function fields(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).filter((field) => field !== '');
}

function present(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value.trim();
}

function reasonMessage(reply: Reply): string {
  const base = REASON_MESSAGES[reply.reasonCode] ?? `CyberSource reason code ${reply.reasonCode}`;
  const named = [...fields(reply.missingField), ...fields(reply.invalidField)];
  return named.length === 0 ? base : `${base}: ${named.join(', ')}`;
}

function errorCodeOf(reply: Reply): StandardErrorCode {
  const named = [...fields(reply.missingField), ...fields(reply.invalidField)].map((field) => field.split('/').pop()?.replace(/^c:/, ''));
  return mapErrorCode(FIELD_CODES, named, mapErrorCode(REASON_CODES, [reply.reasonCode], reply.decision === 'ERROR' ? 'processing_error' : 'card_declined'));
}

function specificFields(reply: Reply): Record<string, unknown> {
  const auth = reply.ccAuthReply;
  return {
    cyber_source: {
      decision: reply.decision,
      reason_code: reply.reasonCode,
      request_id: reply.requestID,
      authorization_code: present(auth?.authorizationCode),
      processor_response: present(auth?.processorResponse),
      avs_code_raw: present(auth?.avsCodeRaw),
      cv_code_raw: present(auth?.cvCodeRaw),
      reconciliation_id: present(auth?.reconciliationID ?? reply.ccCaptureReply?.reconciliationID ?? reply.ccCreditReply?.reconciliationID),
    },
  };
}

/**
 * A reply as a GatewayResponse. ACCEPT is success. REVIEW (Decision Manager, reason 480) is
 * authorized but held: not a success, flagged for fraud review, with the ids to act on it later.
 * REJECT is a decline mapped by reason code (or by the card field a 101/102 names). ERROR 150 is a
 * fault of the gateway; 151, 152 and 250 are unknown outcomes. A SOAP fault from WS-Security is
 * a configuration error; any other SOAP fault is a fault.
 */
export function cyberSourceResponse(answer: SoapAnswer, approvedMessage: string): GatewayResponse {
  if (answer.kind === 'fault') {
    if (SECURITY_FAULT.test(answer.code)) {
      return { ...blankResponse(false, answer.message), errorCode: 'config_error', errorDetail: `${answer.code}: ${answer.message}`, specificResponseFields: { cyber_source: { fault_code: answer.code } } };
    }
    throw new GatewayFaultError('CyberSource returned a SOAP fault.', `${answer.code}: ${answer.message}`);
  }
  const reply = readAnswer('CyberSource', replySchema, answer.reply);
  if (UNKNOWN_OUTCOME.has(reply.reasonCode)) throw new GatewayResultUnknownError('CyberSource could not say whether the request was processed.', `reason ${reply.reasonCode}`);
  if (reply.decision === 'ERROR' && reply.reasonCode === '150') throw new GatewayFaultError('CyberSource returned an error.', 'reason 150: general system failure');
  const accepted = reply.decision === 'ACCEPT';
  const review = reply.decision === 'REVIEW';
  const token = present(reply.requestToken);
  const id = token === null ? reply.requestID : `${reply.requestID};${token}`;
  const auth = reply.ccAuthReply;
  const base: GatewayResponse = {
    ...blankResponse(accepted, accepted ? approvedMessage : reasonMessage(reply)),
    gatewayTransactionId: accepted || review ? id : null,
    ...avsResult(present(auth?.avsCode)),
    ...cvvResult(present(auth?.cvCode)),
    fraudReview: review ? true : null,
    networkTransactionId: present(auth?.paymentNetworkTransactionID),
    specificResponseFields: specificFields(reply),
  };
  if (accepted) return base;
  return { ...base, errorCode: errorCodeOf(reply), errorDetail: `${reply.decision} ${reply.reasonCode}` };
}

/** A store reply: the profile's `subscriptionID` becomes the third-party token. */
export function cyberSourceStoreResponse(answer: SoapAnswer): GatewayResponse {
  const response = cyberSourceResponse(answer, 'Card stored');
  if (!response.success || answer.kind !== 'reply') return response;
  const reply = readAnswer('CyberSource', replySchema, answer.reply);
  const subscription = present(reply.paySubscriptionCreateReply?.subscriptionID);
  if (subscription === null) throw new GatewayResultUnknownError('CyberSource returned an unexpected response.', 'paySubscriptionCreateReply.subscriptionID: missing on an acceptance');
  return { ...response, thirdPartyToken: subscription };
}
