import { z } from 'zod';
import {
  blankResponse,
  decimalAmount,
  defineGateway,
  faultOnServerError,
  formEncode,
  GatewayFaultError,
  GatewayInputError,
  GatewayResultUnknownError,
  parseJsonAnswer,
  readAnswer,
  requireCredential,
  type AdapterPaymentMethod,
  type FormValue,
  type GatewayCall,
  type GatewayRequest,
  type GatewayResponse,
} from './kit/index.js';
import { declineCode, errorResponse, paymentResponse } from './ebanx/ebanx-mapping.js';
import { scrubEbanx } from './ebanx/ebanx-scrub.js';

export const EBANX_TEST_BASE = 'https://sandbox.ebanxpay.com';
export const EBANX_LIVE_BASE = 'https://api.ebanxpay.com';

const paymentSchema = z.object({
  hash: z.string().min(1),
  status: z.string(),
  merchant_payment_code: z.string().nullish().transform((value) => value ?? undefined),
  payment_type_code: z.string().nullish().transform((value) => value ?? undefined),
  capture_available: z.boolean().nullish().transform((value) => value ?? undefined),
  transaction_status: z.object({ code: z.string().optional(), description: z.string().optional(), authcode: z.string().optional() }).nullish().transform((value) => value ?? undefined),
});
const paymentAnswerSchema = z.object({ payment: paymentSchema });
const refundAnswerSchema = z.object({ payment: paymentSchema, refund: z.object({ id: z.union([z.string(), z.number()]).transform(String), status: z.string() }) });
const verifyAnswerSchema = z.object({ card_verification: z.object({ transaction_status: z.object({ code: z.string(), description: z.string().optional() }) }) });
const tokenAnswerSchema = z.object({ token: z.string().min(1), payment_type_code: z.string().optional(), masked_card_number: z.string().optional() });
const errorSchema = z.object({ status: z.literal('ERROR'), status_code: z.string(), status_message: z.string().optional() });

type Reply = { ok: true; json: Record<string, unknown> } | { ok: false; response: GatewayResponse };

/**
 * One call to /ws/{operation}. Direct, token and verifycard take their parameters as JSON in the
 * `request_body` form field (EBANX's Direct API reference); capture, cancel and refund take plain
 * form fields. A `{"status":"ERROR"}` answer is EBANX's refusal; 5xx and non-JSON are faults.
 */
async function ebanxPost(call: GatewayCall, operation: string, fields: Record<string, unknown>, wrapped: boolean): Promise<Reply> {
  const parameters = { integration_key: requireCredential(call.request, 'integration_key'), ...fields };
  const body = wrapped ? formEncode({ request_body: JSON.stringify(parameters) }) : formEncode(parameters as Record<string, FormValue>);
  const response = await call.http.send({ method: 'POST', path: `/ws/${operation}`, headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' }, body });
  faultOnServerError('EBANX', response);
  const json = parseJsonAnswer('EBANX', response);
  if (json.status === 'ERROR') {
    const error = readAnswer('EBANX', errorSchema, json);
    return { ok: false, response: errorResponse(error.status_code, error.status_message ?? error.status_code) };
  }
  if (response.status < 200 || response.status > 299) throw new GatewayFaultError('EBANX returned an unexpected response.', `HTTP ${response.status}`);
  return { ok: true, json };
}

function specificText(request: GatewayRequest, name: string): string | undefined {
  const value = request.gatewaySpecificFields[name];
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}

type CreditCard = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;

function holderName(card: CreditCard): string {
  return [card.firstName, card.lastName].filter((part) => part !== null && part !== '').join(' ');
}

/** EBANX's card object: number, holder, due date "MM/YYYY", CVV. */
function cardFields(card: CreditCard): Record<string, unknown> {
  if (card.month === null || card.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  return { card_number: card.number.reveal(), card_name: holderName(card), card_due_date: `${String(card.month).padStart(2, '0')}/${card.year}`, card_cvv: card.verificationValue?.reveal() };
}

/** The customer's country (lower case), which EBANX needs on every card call: the gateway-specific field, else the billing country. */
function customerCountry(request: GatewayRequest, card: CreditCard | null): string {
  const country = specificText(request, 'country') ?? card?.address.country ?? undefined;
  if (country === undefined || country === null || country === '') throw new GatewayInputError("EBANX needs the customer's country: a billing country on the card or gateway_specific_fields[ebanx][country].", 'processing_error');
  return country.toLowerCase();
}

/** The amount in major units as a JSON number (EBANX: "float, e.g. 100.50"), by the currency's ISO exponent. */
function majorUnits(request: GatewayRequest): { amount: string; currency: string } {
  if (request.amount === null || request.currencyCode === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  return { amount: decimalAmount(request.amount, request.currencyCode), currency: request.currencyCode };
}

/** cof_info (Card on File): first or later use, who initiated it, why, and the first transaction's id. */
function cofInfo(request: GatewayRequest): Record<string, unknown> | undefined {
  const stored = request.storedCredential;
  if (stored === null || stored === undefined) return undefined;
  const cardholder = stored.initiator === 'cardholder';
  const transType = stored.reasonType === 'recurring' ? 'SCHEDULED_RECURRING' : stored.reasonType === 'installment' ? 'INSTALLMENT' : cardholder ? 'CUSTOMER_COF' : 'MERCHANT_COF';
  return { cof_type: cardholder && stored.networkTransactionId === null ? 'initial' : 'stored', initiator: cardholder ? 'CIT' : 'MIT', trans_type: transType, mandate_id: stored.networkTransactionId ?? undefined };
}

/** A card payment through /ws/direct: captured at once (purchase) or held (`auto_capture: false`). */
async function payment(call: GatewayCall, kind: 'purchase' | 'authorize'): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  const card = method?.type === 'credit_card' ? method : null;
  if (card === null && method?.type !== 'third_party_token') throw new GatewayInputError('EBANX takes credit cards and cards it stored (third_party_token).', 'unsupported_feature');
  const money = majorUnits(request);
  const creditcard = card === null ? { token: method?.type === 'third_party_token' ? method.token : undefined } : cardFields(card);
  const name = card === null ? (specificText(request, 'customer_name') ?? 'Not Provided') : holderName(card);
  const reply = await ebanxPost(call, 'direct', {
    operation: 'request',
    mode: 'full',
    payment: {
      name,
      email: request.email ?? card?.email ?? undefined,
      document: specificText(request, 'document'),
      country: customerCountry(request, card),
      payment_type_code: 'creditcard',
      // Coffer's transaction token is the merchant's unique payment code: EBANX refuses a second
      // payment with the same code, so a retried request cannot charge twice.
      merchant_payment_code: request.transactionToken,
      order_number: request.orderId?.slice(0, 40) ?? undefined,
      currency_code: money.currency,
      amount_total: Number(money.amount),
      instalments: Number(specificText(request, 'instalments') ?? 1),
      creditcard: { ...creditcard, soft_descriptor: specificText(request, 'soft_descriptor'), auto_capture: kind === 'authorize' ? false : undefined },
      notification_url: specificText(request, 'notification_url'),
      cof_info: cofInfo(request),
    },
  }, true);
  if (!reply.ok) return reply.response;
  const answer = readAnswer('EBANX', paymentAnswerSchema, reply.json).payment;
  const ok = answer.transaction_status?.code !== 'NOK';
  if (kind === 'purchase') {
    // PE on a purchase is a payment EBANX has not decided (review, or capture later): its outcome is unknown.
    if (answer.status === 'PE' && ok) throw new GatewayResultUnknownError('EBANX left the payment pending.', 'status PE');
    return paymentResponse(answer, answer.status === 'CO', 'Transaction approved');
  }
  return paymentResponse(answer, answer.status === 'PE' && ok, 'Transaction authorized');
}

function referenceHash(request: GatewayRequest): string {
  const hash = request.reference?.gatewayTransactionId;
  if (hash === null || hash === undefined || hash === '') throw new GatewayFaultError('No EBANX payment hash to refer to.', 'reference without gateway_transaction_id');
  return hash;
}

/** /ws/capture of an authorization; the amount is sent only for a partial capture (EBANX captures the whole by default). */
async function capture(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const money = majorUnits(request);
  const partial = request.reference?.amount !== null && request.reference?.amount !== undefined && request.amount !== request.reference.amount;
  const reply = await ebanxPost(call, 'capture', { hash: referenceHash(request), amount: partial ? money.amount : undefined, merchant_capture_code: request.transactionToken }, false);
  if (!reply.ok) return reply.response;
  const answer = readAnswer('EBANX', paymentAnswerSchema, reply.json).payment;
  return paymentResponse(answer, answer.status === 'CO', 'Transaction captured');
}

/** /ws/cancel of a payment not yet captured. */
async function cancel(call: GatewayCall): Promise<GatewayResponse> {
  const reply = await ebanxPost(call, 'cancel', { hash: referenceHash(call.request) }, false);
  if (!reply.ok) return reply.response;
  const answer = readAnswer('EBANX', paymentAnswerSchema, reply.json).payment;
  const response = paymentResponse(answer, answer.status === 'CA', 'Transaction cancelled');
  return response.success ? { ...response, message: 'Transaction cancelled' } : response;
}

/** /ws/refund of part or all of a captured payment; the transaction token is the merchant's refund code. */
async function refund(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const money = majorUnits(request);
  const reply = await ebanxPost(call, 'refund', { operation: 'request', hash: referenceHash(request), amount: money.amount, description: request.description ?? 'Refund', merchant_refund_code: request.transactionToken }, false);
  if (!reply.ok) return reply.response;
  const answer = readAnswer('EBANX', refundAnswerSchema, reply.json);
  const accepted = answer.refund.status !== 'CA';
  const base = paymentResponse(answer.payment, accepted, 'Refund requested');
  return { ...base, message: accepted ? 'Refund requested' : base.message, gatewayTransactionId: answer.refund.id, specificResponseFields: { ebanx: { ...(base.specificResponseFields.ebanx as object), refund_id: answer.refund.id, refund_status: answer.refund.status } } };
}

/** /ws/verifycard: a zero-amount check of the card. */
async function verify(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const card = request.paymentMethod;
  if (card?.type !== 'credit_card') throw new GatewayInputError('EBANX verifies credit cards.', 'unsupported_feature');
  const reply = await ebanxPost(call, 'verifycard', { payment_type_code: 'creditcard', country: customerCountry(request, card), card: cardFields(card) }, true);
  if (!reply.ok) return reply.response;
  const status = readAnswer('EBANX', verifyAnswerSchema, reply.json).card_verification.transaction_status;
  const approved = status.code === 'OK';
  const message = status.description ?? (approved ? 'Card verified' : 'Card not verified');
  return { ...blankResponse(approved, message), errorCode: approved ? null : declineCode(status.description), errorDetail: approved ? null : `${status.code}: ${message}`, specificResponseFields: { ebanx: { transaction_status_code: status.code } } };
}

/** /ws/token: EBANX keeps the card and answers a token later payments send instead of the card. */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const card = request.paymentMethod;
  if (card?.type !== 'credit_card') throw new GatewayInputError('EBANX stores credit cards only.', 'unsupported_feature');
  const reply = await ebanxPost(call, 'token', { payment_type_code: 'creditcard', country: customerCountry(request, card), creditcard: cardFields(card) }, true);
  if (!reply.ok) return reply.response;
  const answer = readAnswer('EBANX', tokenAnswerSchema, reply.json);
  return { ...blankResponse(true, 'Card stored'), thirdPartyToken: answer.token, specificResponseFields: { ebanx: { payment_type_code: answer.payment_type_code ?? null, masked_card_number: answer.masked_card_number ?? null } } };
}

/**
 * EBANX (Latin American payments) through its Direct API (/ws/direct and friends), cards sent in
 * clear or as EBANX tokens. Not implemented: 3-D Secure, network tokens, non-card methods (boleto,
 * PIX, OXXO…), payouts. See docs/gateways/ebanx.md.
 */
export const ebanxGateway = defineGateway({
  gatewayType: 'ebanx',
  name: 'EBANX',
  test: false,
  authModes: [{ authModeType: 'default', name: 'Default', credentials: [{ name: 'integration_key', label: 'Integration Key', safe: false }] }],
  paymentMethods: ['credit_card', 'third_party_token'],
  gatewaySpecificFields: ['country', 'document', 'instalments', 'soft_descriptor', 'notification_url', 'customer_name'],
  supportedCountries: ['BR', 'MX', 'CO', 'CL', 'AR', 'PE', 'BO', 'EC', 'CR', 'DO', 'GT', 'PA', 'PY', 'UY'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover', 'diners_club', 'elo', 'hipercard'],
  regions: ['latin_america'],
  homepage: 'https://www.ebanx.com/',
  displayApiUrl: 'https://api.ebanxpay.com/ws',
  companyName: 'EBANX',
  capturesAreFinal: true,
  endpoint: (request) => (request.testMode ? EBANX_TEST_BASE : EBANX_LIVE_BASE),
  scrub: scrubEbanx,
  operations: {
    purchase: (call) => payment(call, 'purchase'),
    authorize: (call) => payment(call, 'authorize'),
    capture,
    void: cancel,
    credit: refund,
    verify,
    store,
  },
});
