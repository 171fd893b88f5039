import { z } from 'zod';
import { avsResult, blankResponse, cvvResult, faultOnServerError, GatewayFaultError, mapErrorCode, readAnswer, type GatewayResponse, type OutboundResponse, type StandardErrorCode } from '../kit/index.js';

/**
 * NMI's answers in Coffer's terms. Sources: NMI's Payment API reference ("Transaction Response
 * Variables" and its "Result Code Table" of `response_code`), the AVS and CVV response tables of the
 * same reference, and ActiveMerchant's NMI adapter (success is `response=1`; AVS and CVV letters
 * are the networks' standard ones). The response_code → standard code table is Coffer's reading of
 * NMI's result code descriptions (ActiveMerchant keeps NMI's text and sets no standard code).
 */

/** `response_code` of a declined (2) or failed (3) transaction → standard code. */
export const NMI_RESULT_CODES: Readonly<Record<string, StandardErrorCode>> = {
  '200': 'card_declined', // Transaction was declined by processor
  '201': 'card_declined', // Do not honor
  '202': 'insufficient_funds', // Insufficient funds
  '203': 'insufficient_funds', // Over limit
  '204': 'card_declined', // Transaction not allowed
  '220': 'incorrect_number', // Incorrect payment information
  '221': 'incorrect_number', // No such card issuer
  '222': 'incorrect_number', // No card number on file with issuer
  '223': 'expired_card', // Expired card
  '224': 'invalid_expiry_date', // Invalid expiration date
  '225': 'incorrect_cvc', // Invalid card security code
  '226': 'card_declined', // Invalid PIN
  '240': 'call_issuer', // Call issuer for further information
  '250': 'pickup_card', // Pick up card
  '251': 'pickup_card', // Lost card
  '252': 'pickup_card', // Stolen card
  '253': 'pickup_card', // Fraudulent card
  '260': 'card_declined', // Declined with further instructions available (see responsetext)
  '261': 'card_declined', // Declined - Stop all recurring payments
  '262': 'card_declined', // Declined - Stop this recurring program
  '263': 'card_declined', // Declined - Update cardholder data available
  '264': 'card_declined', // Declined - Retry in a few days
  '300': 'processing_error', // Transaction was rejected by gateway
  '400': 'processing_error', // Transaction error returned by processor
  '410': 'config_error', // Invalid merchant configuration
  '411': 'config_error', // Merchant account is inactive
  '420': 'processing_error', // Communication error
  '421': 'processing_error', // Communication error with issuer
  '430': 'processing_error', // Duplicate transaction at processor
  '440': 'processing_error', // Processor format error
  '441': 'processing_error', // Invalid transaction information
  '460': 'unsupported_feature', // Processor feature not available
  '461': 'card_declined', // Unsupported card type
};

/** What Coffer reads of an answer (`response=1&responsetext=…&transactionid=…`); unknown variables are ignored. */
const answerSchema = z.object({
  response: z.enum(['1', '2', '3']),
  responsetext: z.string().default(''),
  authcode: z.string().optional(),
  transactionid: z.string().optional(),
  avsresponse: z.string().optional(),
  cvvresponse: z.string().optional(),
  response_code: z.string().optional(),
  customer_vault_id: z.string().optional(),
  orderid: z.string().optional(),
  type: z.string().optional(),
});

export type NmiAnswer = z.infer<typeof answerSchema>;

/**
 * The answer of one POST: a form-encoded body with `response` 1, 2 or 3. A 5xx, another non-2xx
 * status, or a body without a valid `response` (an HTML error page, empty) is a fault.
 */
export function readNmiAnswer(response: OutboundResponse): NmiAnswer {
  faultOnServerError('NMI', response);
  if (response.status < 200 || response.status > 299) throw new GatewayFaultError('NMI returned an unexpected response.', `HTTP ${response.status}`);
  const variables = Object.fromEntries(new URLSearchParams(response.body.trim()));
  // Empty variables (`authcode=&transactionid=`) mean "none".
  for (const [name, value] of Object.entries(variables)) if (value === '') delete variables[name];
  return readAnswer('NMI', answerSchema, variables);
}

/** The standard code of an answer that is not an approval. */
function errorCodeOf(answer: NmiAnswer): StandardErrorCode {
  // A wrong security key or username/password is answered 3 / 300 "Authentication Failed".
  if (/authentication failed/i.test(answer.responsetext)) return 'config_error';
  return mapErrorCode(NMI_RESULT_CODES, [answer.response_code], answer.response === '3' ? 'processing_error' : 'card_declined');
}

/** An answer as a GatewayResponse: approved when `response` is 1, with `approvedMessage`. */
export function nmiResponse(answer: NmiAnswer, approvedMessage: string): GatewayResponse {
  const approved = answer.response === '1';
  const base: GatewayResponse = {
    ...blankResponse(approved, approved ? approvedMessage : answer.responsetext || 'Declined'),
    gatewayTransactionId: answer.transactionid ?? null,
    ...avsResult(answer.avsresponse),
    ...cvvResult(answer.cvvresponse),
    specificResponseFields: {
      nmi: {
        response: answer.response,
        response_code: answer.response_code ?? null,
        responsetext: answer.responsetext,
        authcode: answer.authcode ?? null,
        ...(answer.customer_vault_id === undefined ? {} : { customer_vault_id: answer.customer_vault_id }),
      },
    },
  };
  if (approved) return base;
  return { ...base, errorCode: errorCodeOf(answer), errorDetail: [answer.response_code, answer.responsetext].filter((part) => part !== undefined && part !== '').join(': ') || null };
}
