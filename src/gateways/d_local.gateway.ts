import { z } from 'zod';
import {
  blankResponse,
  decimalAmount,
  defineGateway,
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  GatewayResultUnknownError,
  parseJsonAnswer,
  readAnswer,
  requireCredential,
  scrubHeaders,
  scrubJsonKeys,
  scrubWith,
  type AdapterPaymentMethod,
  type GatewayCall,
  type GatewayRequest,
  type GatewayResponse,
} from './kit/index.js';
import { answerResponse, errorResponse, UNDECIDED_CODES, type DLocalAnswer, type DLocalError } from './d_local/d-local-mapping.js';
import { authorizationHeader, signatureMatches } from './d_local/d-local-signature.js';

export const D_LOCAL_TEST_BASE = 'https://sandbox.dlocal.com';
export const D_LOCAL_LIVE_BASE = 'https://api.dlocal.com';
/** The Payins API version every request names in X-Version. */
export const D_LOCAL_API_VERSION = '2.1';

const id = z.union([z.string(), z.number()]).transform(String);
const answerSchema = z.object({
  id,
  status: z.string(),
  status_code: id,
  status_detail: z.string().optional(),
  payment_id: id.optional(),
  card: z.object({ network_tx_reference: z.string().optional() }).passthrough().optional(),
});
const errorSchema = z.object({ code: id, message: z.string(), param: z.string().optional() });

type Reply<Answer> = { ok: true; answer: Answer } | { ok: false; response: GatewayResponse };

const storedCardSchema = z.object({ card_id: z.string().min(1), last4: z.string().optional(), brand: z.string().optional() });

function specificText(request: GatewayRequest, name: string): string | undefined {
  const value = request.gatewaySpecificFields[name];
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}

/**
 * One signed POST: X-Date, X-Login, X-Trans-Key, X-Version, and Authorization with the HMAC of
 * X-Login + X-Date + the exact body sent; Coffer's transaction token as X-Idempotency-Key. A 2xx answer
 * that carries dLocal's signature (Authorization and X-Date headers) must verify under the secret key,
 * else it is a fault. 5xx and unreadable answers are faults; a 4xx must be dLocal's error body.
 */
async function dLocalPost(call: GatewayCall, path: string, payload: Record<string, unknown>): Promise<Reply<DLocalAnswer>>;
async function dLocalPost<Answer>(call: GatewayCall, path: string, payload: Record<string, unknown>, schema: z.ZodType<Answer>): Promise<Reply<Answer>>;
async function dLocalPost(call: GatewayCall, path: string, payload: Record<string, unknown>, schema?: z.ZodType): Promise<Reply<unknown>> {
  const { request } = call;
  const login = requireCredential(request, 'login');
  const transKey = requireCredential(request, 'trans_key');
  const secretKey = requireCredential(request, 'secret_key');
  const body = JSON.stringify(payload);
  const date = new Date().toISOString();
  const response = await call.http.send({
    method: 'POST',
    path,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'x-date': date,
      'x-login': login,
      'x-trans-key': transKey,
      'x-version': D_LOCAL_API_VERSION,
      'x-idempotency-key': request.transactionToken,
      authorization: authorizationHeader(secretKey, login, date, body),
    },
    body,
  });
  faultOnServerError('dLocal', response);
  // Only answers Coffer acts on (2xx) are checked: a refusal moved no money, and with a wrong secret
  // key every check fails, where dLocal's own 401/403 says what is wrong.
  const signature = response.headers.authorization;
  if (signature !== undefined && response.status >= 200 && response.status < 300) {
    const answerDate = response.headers['x-date'];
    if (answerDate === undefined || !signatureMatches(secretKey, login, answerDate, response.body, signature)) {
      throw new GatewayFaultError('dLocal returned a response whose signature does not verify.', `HTTP ${response.status}, bad response signature`);
    }
  }
  const json = parseJsonAnswer('dLocal', response);
  if (response.status >= 400) return { ok: false, response: errorResponse(response.status, readAnswer('dLocal', errorSchema, json) as DLocalError) };
  if (response.status < 200 || response.status > 299) throw new GatewayFaultError('dLocal returned an unexpected response.', `HTTP ${response.status}`);
  if (schema !== undefined) return { ok: true, answer: readAnswer('dLocal', schema, json) };
  const parsed = readAnswer('dLocal', answerSchema, json);
  return { ok: true, answer: { ...parsed, network_tx_reference: parsed.card?.network_tx_reference } };
}

function amountFields(request: GatewayRequest, zero = false): { amount: number; currency: string } {
  const currency = request.currencyCode;
  if (zero) return { amount: 0, currency: currency ?? 'USD' };
  if (request.amount === null || currency === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  return { amount: Number(decimalAmount(request.amount, currency)), currency };
}

/** The country dLocal needs on every payment: the gateway-specific field, else the card's billing country. */
function paymentCountry(request: GatewayRequest, cardCountry: string | null | undefined): string {
  const country = specificText(request, 'country') ?? cardCountry ?? undefined;
  if (country === undefined || country === '') throw new GatewayInputError("dLocal needs the payer's country: a billing country on the card or gateway_specific_fields[d_local][country].", 'processing_error');
  return country;
}

/**
 * Where a payment goes and what it pays with: a raw card to /secure_payments (PCI merchants), a card
 * dLocal stored (`third_party_token` = its card_id) to /payments.
 */
function paymentSource(call: GatewayCall, kind: 'purchase' | 'authorize' | 'verify'): { path: string; country: string; payer: Record<string, unknown>; card: Record<string, unknown> } {
  const { request } = call;
  const method = request.paymentMethod;
  const common = { capture: kind === 'purchase', verify: kind === 'verify' ? true : undefined, installments: specificText(request, 'installments'), descriptor: specificText(request, 'dynamic_descriptor') };
  const payerBase = { email: request.email ?? undefined, document: specificText(request, 'document'), ip: request.ip ?? undefined };
  if (method?.type === 'third_party_token') {
    return { path: '/payments', country: paymentCountry(request, undefined), payer: { name: specificText(request, 'payer_name'), ...payerBase }, card: { card_id: method.token, ...common } };
  }
  if (method?.type !== 'credit_card') throw new GatewayInputError('dLocal takes credit cards and cards it stored (third_party_token).', 'unsupported_feature');
  if (method.month === null || method.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const name = holderName(method);
  const { address } = method;
  return {
    path: '/secure_payments',
    country: paymentCountry(request, method.address.country),
    payer: {
      name,
      ...payerBase,
      email: payerBase.email ?? method.email ?? undefined,
      address: address.zip || address.city ? { state: address.state || undefined, city: address.city || undefined, zip_code: address.zip || undefined, street: address.address1 || undefined } : undefined,
    },
    card: { holder_name: name, number: method.number.reveal(), cvv: method.verificationValue?.reveal(), expiration_month: method.month, expiration_year: method.year, ...common },
  };
}

function holderName(card: Extract<AdapterPaymentMethod, { type: 'credit_card' }>): string {
  return [card.firstName, card.lastName].filter((part) => part !== null && part !== '').join(' ');
}

/** A card payment, captured at once or held; a verification is a zero-amount one with `verify`. */
async function payment(call: GatewayCall, kind: 'purchase' | 'authorize' | 'verify'): Promise<GatewayResponse> {
  const { request } = call;
  const source = paymentSource(call, kind);
  const reply = await dLocalPost(call, source.path, {
    ...amountFields(request, kind === 'verify'),
    country: source.country,
    payment_method_id: 'CARD',
    payment_method_flow: 'DIRECT',
    payer: source.payer,
    card: source.card,
    order_id: request.orderId ?? request.transactionToken,
    description: request.description ?? undefined,
    notification_url: specificText(request, 'notification_url'),
  });
  if (!reply.ok) return reply.response;
  if (UNDECIDED_CODES.has(reply.answer.status_code)) throw new GatewayResultUnknownError('dLocal did not give a final result.', `status_code ${reply.answer.status_code}`);
  if (kind === 'purchase') return answerResponse(reply.answer, ['200'], 'Transaction approved');
  if (kind === 'authorize') return answerResponse(reply.answer, ['600'], 'Transaction authorized');
  return answerResponse(reply.answer, ['700', '600'], 'Card verified');
}

/** POST /secure_cards: dLocal stores the card and answers its card_id, the third-party token later payments send. */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('dLocal stores credit cards only.', 'unsupported_feature');
  if (method.month === null || method.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const name = holderName(method);
  const reply = await dLocalPost(call, '/secure_cards', {
    country: paymentCountry(request, method.address.country),
    card: { holder_name: name, expiration_month: method.month, expiration_year: method.year, number: method.number.reveal(), cvv: method.verificationValue?.reveal() },
    payer: { name, document: specificText(request, 'document'), email: request.email ?? method.email ?? undefined },
  }, storedCardSchema);
  if (!reply.ok) return reply.response;
  const cardId = reply.answer.card_id;
  return { ...blankResponse(true, 'Card stored'), gatewayTransactionId: cardId, thirdPartyToken: cardId, specificResponseFields: { d_local: { card_id: cardId, last4: reply.answer.last4 ?? null, brand: reply.answer.brand ?? null } } };
}

function referenceId(request: GatewayRequest): string {
  const reference = request.reference?.gatewayTransactionId;
  if (reference === null || reference === undefined || reference === '') throw new GatewayFaultError('No dLocal payment id to refer to.', 'reference without gateway_transaction_id');
  return reference;
}

/** POST /payments with the authorization's id and the amount to capture. */
async function capture(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const reply = await dLocalPost(call, '/payments', { authorization_id: referenceId(request), ...amountFields(request), order_id: request.transactionToken });
  if (!reply.ok) return reply.response;
  return answerResponse(reply.answer, ['200'], 'Transaction captured');
}

/** POST /payments/{id}/cancel: an authorization not captured is released. */
async function cancel(call: GatewayCall): Promise<GatewayResponse> {
  const reply = await dLocalPost(call, `/payments/${encodeURIComponent(referenceId(call.request))}/cancel`, {});
  if (!reply.ok) return reply.response;
  return answerResponse(reply.answer, ['400'], 'Transaction cancelled');
}

/** POST /refunds with the payment id and the amount; a refund dLocal reports pending (100) is accepted, as ActiveMerchant does. */
async function refund(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const reply = await dLocalPost(call, '/refunds', { payment_id: referenceId(request), ...amountFields(request), notification_url: specificText(request, 'notification_url') });
  if (!reply.ok) return reply.response;
  const response = answerResponse(reply.answer, ['200', '100'], 'Refund accepted');
  return { ...response, specificResponseFields: { d_local: { ...(response.specificResponseFields.d_local as object), payment_id: reply.answer.payment_id ?? null } } };
}

/**
 * dLocal through its Payins API (X-Version 2.1), raw card data to /secure_payments, every request
 * HMAC-SHA256 signed; store through /secure_cards. Not implemented: 3-D Secure, non-card methods, payouts.
 * See docs/gateways/d_local.md.
 */
export const dLocalGateway = defineGateway({
  gatewayType: 'd_local',
  name: 'dLocal',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Default',
      credentials: [
        { name: 'login', label: 'Login', safe: true },
        { name: 'trans_key', label: 'Trans Key', safe: false },
        { name: 'secret_key', label: 'Secret Key', safe: false },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token'],
  gatewaySpecificFields: ['country', 'document', 'installments', 'dynamic_descriptor', 'notification_url', 'payer_name'],
  supportedCountries: ['AR', 'BD', 'BO', 'BR', 'CL', 'CM', 'CN', 'CO', 'CR', 'DO', 'EC', 'EG', 'GH', 'GT', 'IN', 'ID', 'JP', 'KE', 'MY', 'MX', 'MA', 'NG', 'PA', 'PY', 'PE', 'PH', 'SN', 'SV', 'TH', 'TR', 'TZ', 'UG', 'UY', 'VN', 'ZA'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover', 'jcb', 'diners_club', 'maestro', 'naranja', 'cabal', 'elo'],
  regions: ['europe', 'latin_america'],
  homepage: 'https://dlocal.com/',
  displayApiUrl: 'https://api.dlocal.com',
  companyName: 'dLocal',
  capturesAreFinal: true,
  endpoint: (request) => (request.testMode ? D_LOCAL_TEST_BASE : D_LOCAL_LIVE_BASE),
  scrub: scrubWith(scrubJsonKeys('number', 'cvv', 'expiration_month', 'expiration_year'), scrubHeaders('x-trans-key')),
  operations: {
    purchase: (call) => payment(call, 'purchase'),
    authorize: (call) => payment(call, 'authorize'),
    verify: (call) => payment(call, 'verify'),
    capture,
    void: cancel,
    credit: refund,
    store,
  },
});
