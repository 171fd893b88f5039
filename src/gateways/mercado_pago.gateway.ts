import { z } from 'zod';
import {
  blankResponse,
  decimalAmount,
  defineGateway,
  GatewayFaultError,
  GatewayInputError,
  GatewayResultUnknownError,
  readAnswer,
  scrubJsonKeys,
  scrubWith,
  type AdapterPaymentMethod,
  type GatewayCall,
  type GatewayRequest,
  type GatewayResponse,
} from './kit/index.js';
import { paymentResponse, UNDECIDED_STATUSES, type MercadoPagoPayment } from './mercado_pago/mercado-pago-mapping.js';
import { mpSend, specificText } from './mercado_pago/mercado-pago-api.js';

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

/** A card Mercado Pago stored: `customer_id|card_id`, with `|payment_method_id` when known. */
function storedCard(token: string): { customerId: string; cardId: string; paymentMethodId: string | undefined } {
  const [customerId, cardId, paymentMethodId] = token.split('|');
  if (customerId === undefined || customerId === '' || cardId === undefined || cardId === '') throw new GatewayInputError('The third_party_token is not a Mercado Pago stored card (customer_id|card_id).', 'invalid_number');
  return { customerId, cardId, paymentMethodId: paymentMethodId === '' ? undefined : paymentMethodId };
}

/** POST /v1/card_tokens with a stored card's id: a single-use token for one payment. */
async function storedCardToken(call: GatewayCall, cardId: string): Promise<{ ok: true; token: string } | { ok: false; response: GatewayResponse }> {
  const reply = await mpSend(call, 'POST', '/v1/card_tokens', { card_id: cardId }, false);
  if (!reply.ok) return reply;
  return { ok: true, token: readAnswer('Mercado Pago', z.object({ id: z.string().min(1) }), reply.json).id };
}

/**
 * Tokenize, then POST /v1/payments with the token: `capture` false for an authorization,
 * `binary_mode` true so the answer is approved or rejected at once (as ActiveMerchant sends it).
 */
async function payment(call: GatewayCall, capture: boolean): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  const stored = method?.type === 'third_party_token' ? storedCard(method.token) : undefined;
  if (method?.type !== 'credit_card' && stored === undefined) throw new GatewayInputError('Mercado Pago takes credit cards and cards it stored (third_party_token).', 'unsupported_feature');
  const card = method?.type === 'credit_card' ? method : undefined;
  const amount = transactionAmount(request);
  const token = stored === undefined ? await cardToken(call, card as Extract<AdapterPaymentMethod, { type: 'credit_card' }>) : await storedCardToken(call, stored.cardId);
  if (!token.ok) return token.response;
  const idType = specificText(request, 'cardholder_identification_type');
  const idNumber = specificText(request, 'cardholder_identification_number');
  const installments = Number(specificText(request, 'installments') ?? '1');
  const reply = await mpSend(call, 'POST', '/v1/payments', {
    transaction_amount: amount,
    token: token.token,
    description: request.description ?? undefined,
    installments: Number.isInteger(installments) && installments > 0 ? installments : 1,
    payment_method_id: specificText(request, 'payment_method_id') ?? stored?.paymentMethodId ?? PAYMENT_METHOD_IDS[card?.cardType ?? ''],
    issuer_id: specificText(request, 'issuer_id'),
    payer: {
      type: stored === undefined ? undefined : 'customer',
      id: stored?.customerId,
      email: request.email ?? card?.email ?? undefined,
      first_name: card?.firstName ?? undefined,
      last_name: card?.lastName ?? undefined,
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

/**
 * Store: tokenize the card, find or create the customer (the gateway-specific `customer_id`, else
 * POST /v1/customers with the email; an email Mercado Pago already knows is looked up with GET
 * /v1/customers/search), then POST /v1/customers/{id}/cards with the token. The third-party token is
 * `customer_id|card_id|payment_method_id`.
 */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const card = request.paymentMethod;
  if (card?.type !== 'credit_card') throw new GatewayInputError('Mercado Pago stores credit cards only.', 'unsupported_feature');
  const email = request.email ?? card.email;
  const given = specificText(request, 'customer_id');
  if (given === undefined && (email === null || email === '')) throw new GatewayInputError('Mercado Pago stores cards under a customer: give an email or gateway_specific_fields[mercado_pago][customer_id].', 'processing_error');
  const token = await cardToken(call, card);
  if (!token.ok) return token.response;
  const customer = given === undefined ? await customerFor(call, email as string) : { ok: true as const, id: given };
  if (!customer.ok) return customer.response;
  const reply = await mpSend(call, 'POST', `/v1/customers/${encodeURIComponent(customer.id)}/cards`, { token: token.token }, true);
  if (!reply.ok) return reply.response;
  const saved = readAnswer('Mercado Pago', z.object({ id: z.union([z.string(), z.number()]).transform(String), payment_method: z.object({ id: z.string() }).passthrough().optional() }), reply.json);
  const methodId = saved.payment_method?.id ?? '';
  return {
    ...blankResponse(true, 'Card stored'),
    gatewayTransactionId: saved.id,
    thirdPartyToken: `${customer.id}|${saved.id}|${methodId}`,
    specificResponseFields: { mercado_pago: { customer_id: customer.id, card_id: saved.id, payment_method_id: methodId || null } },
  };
}

/** The customer with this email: created, or found when Mercado Pago answers that it already exists (cause 101). */
async function customerFor(call: GatewayCall, email: string): Promise<{ ok: true; id: string } | { ok: false; response: GatewayResponse }> {
  const idSchema = z.object({ id: z.union([z.string(), z.number()]).transform(String) });
  const created = await mpSend(call, 'POST', '/v1/customers', { email }, false);
  if (created.ok) return { ok: true, id: readAnswer('Mercado Pago', idSchema, created.json).id };
  if (created.response.specificResponseFields.mercado_pago === undefined || (created.response.specificResponseFields.mercado_pago as { cause_code?: unknown }).cause_code !== '101') return created;
  const found = await mpSend(call, 'GET', `/v1/customers/search?email=${encodeURIComponent(email)}`, undefined, false);
  if (!found.ok) return found;
  const first = readAnswer('Mercado Pago', z.object({ results: z.array(idSchema).min(1) }), found.json).results[0];
  return { ok: true, id: (first as { id: string }).id };
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
 * /v1/card_tokens); store through the customers and cards API. Not implemented: verify, 3-D Secure,
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
  paymentMethods: ['credit_card', 'third_party_token'],
  gatewaySpecificFields: ['cardholder_identification_type', 'cardholder_identification_number', 'installments', 'payment_method_id', 'issuer_id', 'statement_descriptor', 'customer_id'],
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
    store,
  },
});
