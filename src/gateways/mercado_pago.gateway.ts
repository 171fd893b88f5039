import { z } from 'zod';
import {
  decimalAmount,
  defineGateway,
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  GatewayResultUnknownError,
  parseJsonAnswer,
  readAnswer,
  requireCredential,
  scrubJsonKeys,
  scrubWith,
  type AdapterPaymentMethod,
  type GatewayCall,
  type GatewayRequest,
  type GatewayResponse,
} from './kit/index.js';
import { errorResponse, paymentResponse, UNDECIDED_STATUSES, type MercadoPagoError, type MercadoPagoPayment } from './mercado_pago/mercado-pago-mapping.js';

/** Test and live calls share one host: test credentials (TEST-…) select the sandbox. */
export const MERCADO_PAGO_BASE = 'https://api.mercadopago.com';

/** Coffer's card type → Mercado Pago's `payment_method_id` (its "Get payment methods" ids). */
const PAYMENT_METHOD_IDS: Readonly<Record<string, string>> = {
  visa: 'visa',
  master: 'master',
  american_express: 'amex',
  diners_club: 'diners',
  elo: 'elo',
  cabal: 'cabal',
  naranja: 'naranja',
  hipercard: 'hipercard',
  maestro: 'maestro',
};

const paymentSchema = z.object({
  id: z.union([z.number(), z.string()]).transform(String),
  status: z.string(),
  status_detail: z.string().optional(),
  authorization_code: z.string().nullable().optional(),
  captured: z.boolean().optional(),
});
const refundSchema = z.object({ id: z.union([z.number(), z.string()]).transform(String), payment_id: z.union([z.number(), z.string()]).transform(String).optional(), status: z.string() });
const errorSchema = z.object({
  message: z.string(),
  error: z.string().optional(),
  status: z.number().optional(),
  cause: z.array(z.object({ code: z.union([z.string(), z.number()]).optional(), description: z.string().optional() }).passthrough()).optional(),
});

type Reply = { ok: true; json: Record<string, unknown> } | { ok: false; response: GatewayResponse };

/** A gateway-specific field given as text, if it was. */
function specificText(request: GatewayRequest, name: string): string | undefined {
  const value = request.gatewaySpecificFields[name];
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}

/**
 * One exchange with the Payments API: Bearer access token, Coffer's transaction token as
 * X-Idempotency-Key where given. 5xx and unreadable answers are faults; a 4xx must be Mercado Pago's
 * error body (else a fault) and becomes a decline.
 */
async function mpSend(call: GatewayCall, method: 'POST' | 'PUT', path: string, body: Record<string, unknown>, idempotent: boolean): Promise<Reply> {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json',
    authorization: `Bearer ${requireCredential(call.request, 'access_token')}`,
  };
  if (idempotent) headers['x-idempotency-key'] = call.request.transactionToken;
  const response = await call.http.send({ method, path, headers, body: JSON.stringify(body) });
  faultOnServerError('Mercado Pago', response);
  const json = parseJsonAnswer('Mercado Pago', response);
  if (response.status >= 400) return { ok: false, response: errorResponse(response.status, readAnswer('Mercado Pago', errorSchema, json) as MercadoPagoError) };
  if (response.status < 200 || response.status > 299) throw new GatewayFaultError('Mercado Pago returned an unexpected response.', `HTTP ${response.status}`);
  return { ok: true, json };
}

/** The amount as Mercado Pago's decimal `transaction_amount` (a JSON number in major units). */
function transactionAmount(request: GatewayRequest): number {
  if (request.amount === null || request.currencyCode === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  return Number(decimalAmount(request.amount, request.currencyCode));
}

/** POST /v1/card_tokens: the raw card becomes a single-use card token (PCI merchants). */
async function cardToken(call: GatewayCall, card: Extract<AdapterPaymentMethod, { type: 'credit_card' }>): Promise<{ ok: true; token: string } | { ok: false; response: GatewayResponse }> {
  const { request } = call;
  if (card.month === null || card.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const idType = specificText(request, 'cardholder_identification_type');
  const idNumber = specificText(request, 'cardholder_identification_number');
  const reply = await mpSend(call, 'POST', '/v1/card_tokens', {
    card_number: card.number.reveal(),
    expiration_month: card.month,
    expiration_year: card.year,
    security_code: card.verificationValue?.reveal(),
    cardholder: {
      name: [card.firstName, card.lastName].filter((part) => part !== null && part !== '').join(' '),
      identification: idType === undefined && idNumber === undefined ? undefined : { type: idType, number: idNumber },
    },
  }, false);
  if (!reply.ok) return reply;
  return { ok: true, token: readAnswer('Mercado Pago', z.object({ id: z.string().min(1) }), reply.json).id };
}

/**
 * Tokenize, then POST /v1/payments with the token: `capture` false for an authorization,
 * `binary_mode` true so the answer is approved or rejected at once (as ActiveMerchant sends it).
 */
async function payment(call: GatewayCall, capture: boolean): Promise<GatewayResponse> {
  const { request } = call;
  const card = request.paymentMethod;
  if (card?.type !== 'credit_card') throw new GatewayInputError('Mercado Pago takes credit cards.', 'unsupported_feature');
  const amount = transactionAmount(request);
  const token = await cardToken(call, card);
  if (!token.ok) return token.response;
  const idType = specificText(request, 'cardholder_identification_type');
  const idNumber = specificText(request, 'cardholder_identification_number');
  const installments = Number(specificText(request, 'installments') ?? '1');
  const reply = await mpSend(call, 'POST', '/v1/payments', {
    transaction_amount: amount,
    token: token.token,
    description: request.description ?? undefined,
    installments: Number.isInteger(installments) && installments > 0 ? installments : 1,
    payment_method_id: specificText(request, 'payment_method_id') ?? PAYMENT_METHOD_IDS[card.cardType ?? ''],
    issuer_id: specificText(request, 'issuer_id'),
    payer: {
      email: request.email ?? card.email ?? undefined,
      first_name: card.firstName ?? undefined,
      last_name: card.lastName ?? undefined,
      identification: idType === undefined && idNumber === undefined ? undefined : { type: idType, number: idNumber },
    },
    external_reference: request.orderId ?? request.transactionToken,
    statement_descriptor: specificText(request, 'statement_descriptor'),
    binary_mode: true,
    capture,
  }, true);
  if (!reply.ok) return reply.response;
  const answer = readAnswer('Mercado Pago', paymentSchema, reply.json) as MercadoPagoPayment;
  if (UNDECIDED_STATUSES.has(answer.status)) throw new GatewayResultUnknownError('Mercado Pago did not give a final result.', `status ${answer.status}`);
  return capture ? paymentResponse(answer, ['approved'], 'Transaction approved') : paymentResponse(answer, ['authorized'], 'Transaction authorized');
}

/** The payment id a capture, void or refund refers to. */
function paymentId(request: GatewayRequest): string {
  const id = request.reference?.gatewayTransactionId;
  if (id === null || id === undefined || id === '') throw new GatewayFaultError('No Mercado Pago payment id to refer to.', 'reference without gateway_transaction_id');
  return encodeURIComponent(id);
}

/** PUT /v1/payments/{id} with capture true and the amount to capture (all of it, or part). */
async function capture(call: GatewayCall): Promise<GatewayResponse> {
  const body = { capture: true, transaction_amount: transactionAmount(call.request) };
  const reply = await mpSend(call, 'PUT', `/v1/payments/${paymentId(call.request)}`, body, true);
  if (!reply.ok) return reply.response;
  return paymentResponse(readAnswer('Mercado Pago', paymentSchema, reply.json) as MercadoPagoPayment, ['approved'], 'Transaction captured');
}

/** PUT /v1/payments/{id} with status cancelled: only an authorized (or pending) payment can be. */
async function voidPayment(call: GatewayCall): Promise<GatewayResponse> {
  const reply = await mpSend(call, 'PUT', `/v1/payments/${paymentId(call.request)}`, { status: 'cancelled' }, true);
  if (!reply.ok) return reply.response;
  return paymentResponse(readAnswer('Mercado Pago', paymentSchema, reply.json) as MercadoPagoPayment, ['cancelled'], 'Transaction cancelled');
}

/** POST /v1/payments/{id}/refunds with the amount (full or partial). */
async function refund(call: GatewayCall): Promise<GatewayResponse> {
  const reply = await mpSend(call, 'POST', `/v1/payments/${paymentId(call.request)}/refunds`, { amount: transactionAmount(call.request) }, true);
  if (!reply.ok) return reply.response;
  const answer = readAnswer('Mercado Pago', refundSchema, reply.json);
  return {
    ...paymentResponse({ id: answer.id, status: answer.status }, ['approved'], 'Refund approved'),
    specificResponseFields: { mercado_pago: { status: answer.status, refund_id: answer.id, payment_id: answer.payment_id ?? null } },
  };
}

/**
 * Mercado Pago through its Payments API v1 (PCI merchants tokenizing raw cards through
 * /v1/card_tokens). Not implemented: verify, store (customers and cards API), 3-D Secure,
 * non-card methods. See docs/gateways/mercado_pago.md.
 */
export const mercadoPagoGateway = defineGateway({
  gatewayType: 'mercado_pago',
  name: 'Mercado Pago',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Access token',
      credentials: [
        { name: 'access_token', label: 'Access Token', safe: false },
        { name: 'country', label: 'Country', safe: true, optional: true },
      ],
    },
  ],
  paymentMethods: ['credit_card'],
  gatewaySpecificFields: ['cardholder_identification_type', 'cardholder_identification_number', 'installments', 'payment_method_id', 'issuer_id', 'statement_descriptor'],
  supportedCountries: ['AR', 'BR', 'CL', 'CO', 'MX', 'PE', 'UY'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'elo', 'cabal', 'naranja'],
  regions: ['latin_america'],
  homepage: 'https://www.mercadopago.com/',
  displayApiUrl: 'https://api.mercadopago.com/v1',
  companyName: 'Mercado Pago',
  // A capture of part of an authorization releases the rest.
  capturesAreFinal: true,
  endpoint: () => MERCADO_PAGO_BASE,
  scrub: scrubWith(scrubJsonKeys('card_number', 'security_code', 'expiration_month', 'expiration_year', 'first_six_digits')),
  operations: {
    purchase: (call) => payment(call, true),
    authorize: (call) => payment(call, false),
    capture,
    void: voidPayment,
    credit: refund,
  },
});
