import { z } from 'zod';
import {
  defineGateway,
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  gatewayMinorUnits,
  GatewayResultUnknownError,
  parseJsonAnswer,
  readAnswer,
  requireCredential,
  scrubJsonKeys,
  scrubWith,
  type GatewayCall,
  type GatewayRequest,
  type GatewayResponse,
} from './kit/index.js';
import { chargeResponse, errorResponse, type Shift4Charge } from './shift4_v2/shift4-mapping.js';

/** Shift4's one API origin: test and live are told apart by the secret key (`sk_test_…`, `sk_live_…`). */
export const SHIFT4_BASE = 'https://api.shift4.com';

/** What verify authorizes and then releases (ActiveMerchant's 100 minor units; Shift4 documents no zero-amount charge). */
export const VERIFY_AMOUNT = 100;

const errorSchema = z.object({
  error: z.object({
    type: z.string().optional(),
    code: z.string().optional(),
    message: z.string(),
    chargeId: z.string().optional(),
    charge: z.string().optional(),
    issuerDeclineCode: z.string().optional(),
  }),
});
const chargeSchema = z.object({
  id: z.string().min(1),
  amount: z.number().int(),
  currency: z.string(),
  captured: z.boolean().optional(),
  refunded: z.boolean().optional(),
  status: z.string().optional(),
  card: z.object({ id: z.string().optional(), customerId: z.string().optional(), last4: z.string().optional(), brand: z.string().optional() }).passthrough().optional(),
});
const customerSchema = z.object({ id: z.string().min(1), cards: z.array(z.object({ id: z.string().min(1), last4: z.string().optional(), brand: z.string().optional() }).passthrough()).min(1) });

type Reply<T> = { ok: true; answer: T } | { ok: false; response: GatewayResponse };

/**
 * One POST with the secret key as the HTTP Basic user (empty password), a JSON body and Coffer's
 * transaction token (plus `suffix` for a second request of one operation) as Idempotency-Key. A
 * 2xx is the resource; a 4xx is Shift4's error object (a decline or refusal); 5xx and unreadable
 * answers are faults.
 */
async function shift4Post<T>(call: GatewayCall, path: string, body: Record<string, unknown> | null, schema: z.ZodType<T>, suffix = ''): Promise<Reply<T>> {
  const { request } = call;
  const key = requireCredential(request, 'secret_key');
  const headers = { authorization: `Basic ${Buffer.from(`${key}:`, 'utf8').toString('base64')}`, 'idempotency-key': `${request.transactionToken}${suffix}` };
  const response = body === null ? await call.http.send({ method: 'POST', path, headers: { accept: 'application/json', ...headers } }) : await call.http.postJson(path, body, headers);
  faultOnServerError('Shift4', response);
  const json = parseJsonAnswer('Shift4', response);
  if (response.status >= 400) return { ok: false, response: errorResponse(response.status, readAnswer('Shift4', errorSchema, json).error) };
  if (response.status < 200 || response.status > 299 || 'error' in json) throw new GatewayFaultError('Shift4 returned an unexpected response.', `HTTP ${response.status}`);
  return { ok: true, answer: readAnswer('Shift4', schema, json) };
}

function amountOf(request: GatewayRequest, fixed?: number): { amount: number; currency: string } {
  const currency = request.currencyCode ?? (fixed === undefined ? null : 'USD');
  const amount = fixed ?? request.amount;
  if (amount === null || currency === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  return { amount: gatewayMinorUnits(amount, currency), currency: currency.toUpperCase() };
}

function cardObject(request: GatewayRequest): Record<string, unknown> {
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('Shift4 takes credit cards and the cards it stored (third_party_token).', 'unsupported_feature');
  if (method.month === null || method.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const { address } = method;
  const name = [method.firstName, method.lastName].filter((part) => part !== null && part !== '').join(' ');
  return {
    number: method.number.reveal(),
    expMonth: String(method.month).padStart(2, '0'),
    expYear: String(method.year),
    cvc: method.verificationValue?.reveal(),
    cardholderName: name === '' ? undefined : name,
    addressLine1: address.address1 ?? undefined,
    addressLine2: address.address2 ?? undefined,
    addressCity: address.city ?? undefined,
    addressState: address.state ?? undefined,
    addressZip: address.zip ?? undefined,
    addressCountry: address.country ?? undefined,
  };
}

/** A stored card is Coffer's third-party token `<customerId>|<cardId>` (see store): Shift4 charges a saved card by both. */
function source(request: GatewayRequest): Record<string, unknown> {
  const method = request.paymentMethod;
  if (method?.type !== 'third_party_token') return { card: cardObject(request) };
  const [customerId, cardId] = method.token.split('|');
  if (customerId === undefined || cardId === undefined || customerId === '' || cardId === '') throw new GatewayInputError('A Shift4 stored card token is <customerId>|<cardId>.', 'processing_error');
  return { customerId, card: cardId };
}

/** POST /charges: captured at once (purchase) or held (`captured: false`). */
async function charge(call: GatewayCall, captured: boolean, fixedAmount?: number, suffix = ''): Promise<Reply<Shift4Charge>> {
  const { request } = call;
  const email = request.email ?? (request.paymentMethod?.type === 'credit_card' ? request.paymentMethod.email : null);
  return shift4Post(
    call,
    '/charges',
    {
      ...amountOf(request, fixedAmount),
      ...source(request),
      captured: captured ? undefined : false,
      description: request.description ?? undefined,
      metadata: { coffer_transaction: request.transactionToken, order_id: request.orderId ?? undefined, email: email ?? undefined },
    },
    chargeSchema,
    suffix,
  );
}

/** A charge Shift4 reports pending has no final result yet. */
function settled(answer: Shift4Charge): Shift4Charge {
  if (answer.status === 'pending') throw new GatewayResultUnknownError('Shift4 did not give a final result.', 'charge status pending');
  return answer;
}

async function payment(call: GatewayCall, captured: boolean): Promise<GatewayResponse> {
  const reply = await charge(call, captured);
  if (!reply.ok) return reply.response;
  return chargeResponse(settled(reply.answer), captured ? 'Transaction approved' : 'Transaction authorized');
}

/**
 * Shift4 has no card verification call: authorize VERIFY_AMOUNT (held, never captured) and release
 * it at once by a refund, as ActiveMerchant does. The result is the authorization's; a release that
 * fails is noted in the transcript (the hold then lapses on its own).
 */
async function verify(call: GatewayCall): Promise<GatewayResponse> {
  const reply = await charge(call, false, VERIFY_AMOUNT);
  if (!reply.ok) return reply.response;
  const held = settled(reply.answer);
  try {
    const released = await shift4Post(call, `/charges/${encodeURIComponent(held.id)}/refund`, {}, chargeSchema, '-release');
    if (!released.ok) call.http.note(`[!!] the verification hold ${held.id} was not released: ${released.response.message}`);
  } catch (error) {
    call.http.note(`[!!] the verification hold ${held.id} was not released: ${error instanceof Error ? error.message : 'error'}`);
  }
  return chargeResponse(held, 'Card verified');
}

/** POST /customers with the card: Shift4 keeps it; the third-party token is `<customerId>|<cardId>`. */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const email = request.email ?? (request.paymentMethod?.type === 'credit_card' ? request.paymentMethod.email : null);
  const reply = await shift4Post(call, '/customers', { email: email ?? undefined, card: cardObject(request) }, customerSchema);
  if (!reply.ok) return reply.response;
  const card = reply.answer.cards[0] as { id: string; last4?: string | undefined; brand?: string | undefined };
  const token = `${reply.answer.id}|${card.id}`;
  return {
    ...chargeResponse({ id: reply.answer.id, amount: 0, currency: '', card }, 'Card stored'),
    gatewayTransactionId: reply.answer.id,
    thirdPartyToken: token,
    specificResponseFields: { shift4_v2: { customer_id: reply.answer.id, card_id: card.id, last4: card.last4 ?? null, brand: card.brand ?? null } },
  };
}

function referenceId(request: GatewayRequest): string {
  const reference = request.reference?.gatewayTransactionId;
  if (reference === null || reference === undefined || reference === '') throw new GatewayFaultError('No Shift4 charge id to refer to.', 'reference without gateway_transaction_id');
  return reference;
}

const creditSchema = z.object({ id: z.string().min(1), amount: z.number().int(), currency: z.string() });

/** POST /credits: money paid out to a card (or a stored card) with no charge to refer to. */
async function generalCredit(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const reply = await shift4Post(call, '/credits', { ...amountOf(request), ...source(request), description: request.description ?? undefined }, creditSchema);
  if (!reply.ok) return reply.response;
  return chargeResponse(reply.answer, 'Transaction credited');
}

/** POST /charges/{id}/capture with the amount to capture. */
async function capture(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const { amount } = amountOf(request);
  const reply = await shift4Post(call, `/charges/${encodeURIComponent(referenceId(request))}/capture`, { amount }, chargeSchema);
  if (!reply.ok) return reply.response;
  return chargeResponse(reply.answer, 'Transaction captured');
}

/** POST /charges/{id}/refund with an amount (credit), or without one (void: the whole uncaptured charge). */
async function refund(call: GatewayCall, whole: boolean): Promise<GatewayResponse> {
  const { request } = call;
  const body = whole ? {} : { amount: amountOf(request).amount };
  const reply = await shift4Post(call, `/charges/${encodeURIComponent(referenceId(request))}/refund`, body, chargeSchema);
  if (!reply.ok) return reply.response;
  return chargeResponse(reply.answer, whole ? 'Transaction voided' : 'Transaction refunded');
}

/**
 * Shift4 through its API (api.shift4.com, the SecurionPay API that ActiveMerchant's shift4_v2
 * speaks): charges, captures, refunds, credits, customers. Not implemented: 3-D Secure, ACH,
 * deleting a stored card. See docs/gateways/shift4_v2.md.
 */
export const shift4V2Gateway = defineGateway({
  gatewayType: 'shift4_v2',
  name: 'Shift4 V2',
  test: false,
  authModes: [{ authModeType: 'default', name: 'Default', credentials: [{ name: 'secret_key', label: 'Secret Key', safe: false }] }],
  paymentMethods: ['credit_card', 'third_party_token'],
  gatewaySpecificFields: [],
  supportedCountries: ['AD', 'BE', 'BG', 'CH', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FO', 'FR', 'GI', 'GL', 'GR', 'GS', 'GT', 'HR', 'HU', 'IE', 'IS', 'IT', 'LI', 'LR', 'LT', 'LU', 'LV', 'MC', 'MT', 'MU', 'MV', 'MW', 'NL', 'NO', 'PL', 'RO', 'SE', 'SI'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover', 'jcb', 'diners_club'],
  regions: ['europe', 'latin_america', 'north_america'],
  homepage: 'https://dev.shift4.com/us/',
  displayApiUrl: 'https://api.shift4.com/',
  companyName: 'Shift4',
  capturesAreFinal: true,
  endpoint: () => SHIFT4_BASE,
  scrub: scrubWith(scrubJsonKeys('number', 'cvc', 'expMonth', 'expYear', 'cardholderName')),
  operations: {
    purchase: (call) => payment(call, true),
    authorize: (call) => payment(call, false),
    verify,
    capture,
    void: (call) => refund(call, true),
    credit: (call) => refund(call, false),
    general_credit: generalCredit,
    store,
  },
});
