import { z } from 'zod';
import {
  blankResponse,
  defineGateway,
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  GatewayResultUnknownError,
  gatewayMinorUnits,
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
import { paymentResponse, refusalResponse, type ConnectError, type ConnectPayment } from './global_collect/global-collect-mapping.js';
import { authorizationHeader, stringToSign } from './global_collect/global-collect-signature.js';

/** The Connect server API's sandbox and production bases, as ActiveMerchant's adapter uses them. */
export const GLOBAL_COLLECT_TEST_BASE = 'https://eu.sandbox.api-ingenico.com';
export const GLOBAL_COLLECT_LIVE_BASE = 'https://api.connect.worldline-solutions.com';

const CONTENT_TYPE = 'application/json';

/** Card brands → Connect payment product ids (Connect's payment product list; ActiveMerchant's map). */
const PAYMENT_PRODUCTS: Readonly<Record<string, number>> = {
  visa: 1,
  american_express: 2,
  master: 3,
  jcb: 125,
  discover: 128,
  diners_club: 132,
  cabal: 135,
  naranja: 136,
};

/** Void answers (`voidResponseId`) that mean the authorization was released (ActiveMerchant's list). */
const VOIDED_RESPONSE_IDS = new Set(['00', '0', '8', '11']);

const text = z.union([z.string(), z.number()]).transform(String);
const errorEntry = z.object({ code: text.optional(), id: z.string().optional(), propertyName: z.string().optional(), message: z.string().optional() });
const paymentSchema = z.object({
  id: z.string().min(1),
  status: z.string().min(1),
  statusOutput: z
    .object({ statusCategory: z.string().optional(), statusCode: text.optional(), isAuthorized: z.boolean().optional(), errors: z.array(errorEntry).optional() })
    .optional(),
  paymentOutput: z
    .object({
      cardPaymentMethodSpecificOutput: z
        .object({
          authorisationCode: z.string().optional(),
          schemeTransactionId: z.string().optional(),
          fraudResults: z.object({ avsResult: z.string().optional(), cvvResult: z.string().optional() }).optional(),
        })
        .optional(),
    })
    .optional(),
});
const paymentAnswerSchema = z.object({ payment: paymentSchema, cardPaymentMethodSpecificOutput: z.object({ voidResponseId: text.optional() }).optional() });
const errorsSchema = z.object({ errorId: z.string().optional(), errors: z.array(errorEntry).min(1) });
const tokenAnswerSchema = z.object({ token: z.string().min(1), isNewToken: z.boolean().optional() });

type Json = Record<string, unknown>;
type Reply = { ok: true; status: number; json: Json } | { ok: false; response: GatewayResponse };

function specificText(request: GatewayRequest, name: string): string | undefined {
  const value = request.gatewaySpecificFields[name];
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}

/** The payment Coffer reads, from a payment object (or a refund, which has the same outline). */
function paymentOf(parsed: z.infer<typeof paymentSchema>, extraErrors: readonly ConnectError[] = []): ConnectPayment {
  const card = parsed.paymentOutput?.cardPaymentMethodSpecificOutput;
  return {
    id: parsed.id,
    status: parsed.status,
    statusCategory: parsed.statusOutput?.statusCategory,
    statusCode: parsed.statusOutput?.statusCode,
    isAuthorized: parsed.statusOutput?.isAuthorized,
    errors: [...(parsed.statusOutput?.errors ?? []), ...extraErrors] as ConnectError[],
    avsResult: card?.fraudResults?.avsResult,
    cvvResult: card?.fraudResults?.cvvResult,
    authorisationCode: card?.authorisationCode,
    schemeTransactionId: card?.schemeTransactionId,
  };
}

/**
 * One v1HMAC-signed POST to `/v1/{merchantId}{resource}`: Date (RFC 1123), Content-Type, Coffer's
 * transaction token (plus `suffix` for a second request of one operation) as X-GCS-Idempotence-Key,
 * and Authorization over method, content type, date, the X-GCS headers and the path. 5xx and
 * unreadable answers are faults; a 409 "request in progress" for our key means the first request's
 * outcome is not known yet; a 402 decline carries the rejected payment (`paymentResult`), which is
 * answered as if it were a 2xx payment answer; other 4xx are refusals with Connect's `errors` list.
 */
async function connectPost(call: GatewayCall, resource: string, payload: Json, suffix = ''): Promise<Reply> {
  const { request } = call;
  const merchantId = requireCredential(request, 'merchant_id');
  const apiKeyId = requireCredential(request, 'api_key_id');
  const secretApiKey = requireCredential(request, 'secret_api_key');
  const path = `/v1/${encodeURIComponent(merchantId)}${resource}`;
  const date = new Date().toUTCString();
  const gcsHeaders = { 'x-gcs-idempotence-key': `${request.transactionToken}${suffix}` };
  const response = await call.http.send({
    method: 'POST',
    path,
    headers: {
      'content-type': CONTENT_TYPE,
      accept: 'application/json',
      date,
      ...gcsHeaders,
      authorization: authorizationHeader(apiKeyId, secretApiKey, stringToSign('POST', CONTENT_TYPE, date, gcsHeaders, path)),
    },
    body: JSON.stringify(payload),
  });
  faultOnServerError('Worldline', response);
  if (response.status === 401 || response.status === 403) {
    let errors: ConnectError[] = [];
    try {
      errors = (errorsSchema.safeParse(parseJsonAnswer('Worldline', response)).data?.errors ?? []) as ConnectError[];
    } catch {
      // A refusal before the API (no JSON) still says the credentials are wrong.
    }
    return { ok: false, response: refusalResponse(response.status, errors, undefined) };
  }
  const json = parseJsonAnswer('Worldline', response);
  if (response.status >= 400) {
    const result = json.paymentResult as Json | undefined;
    const errors = readAnswer('Worldline', errorsSchema, json);
    // Connect's idempotence ("Idempotent requests"): a 409 while the first request with this key is
    // still being processed. Other 409s are status conflicts (e.g. approving a cancelled payment).
    if (response.status === 409 && errors.errors.some((error) => error.code === '1409' || error.id === 'DUPLICATE_REQUEST_IN_PROGRESS')) throw new GatewayResultUnknownError('Worldline is still processing the first request with this idempotence key.', 'HTTP 409, 1409');
    if (result !== undefined && typeof result === 'object' && result !== null && 'payment' in result) return { ok: true, status: response.status, json: { ...result, errors: errors.errors } };
    return { ok: false, response: refusalResponse(response.status, errors.errors as ConnectError[], errors.errorId) };
  }
  if (response.status < 200 || response.status > 299) throw new GatewayFaultError('Worldline returned an unexpected response.', `HTTP ${response.status}`);
  return { ok: true, status: response.status, json };
}

/** A payment answer of create/approve/cancel, with a decline's top-level errors kept. */
function readPayment(json: Json): { payment: ConnectPayment; voidResponseId: string | undefined } {
  const parsed = readAnswer('Worldline', paymentAnswerSchema, json);
  const extra = (Array.isArray(json.errors) ? json.errors : []) as ConnectError[];
  return { payment: paymentOf(parsed.payment, parsed.payment.statusOutput?.errors === undefined ? extra : []), voidResponseId: parsed.cardPaymentMethodSpecificOutput?.voidResponseId };
}

function amountOf(request: GatewayRequest, zero = false): { amount: number; currencyCode: string } {
  const currency = request.currencyCode;
  if (zero) return { amount: 0, currencyCode: currency ?? 'USD' };
  if (request.amount === null || currency === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  return { amount: gatewayMinorUnits(request.amount, currency), currencyCode: currency };
}

type CreditCard = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;

function creditCard(request: GatewayRequest): CreditCard {
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('Worldline takes credit cards and tokens it issued (third_party_token).', 'unsupported_feature');
  if (method.month === null || method.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  return method;
}

/** Connect's payment product id: the gateway-specific field, else the card's brand. */
function productId(request: GatewayRequest, card: CreditCard | null): number | undefined {
  const given = specificText(request, 'payment_product_id');
  if (given !== undefined) return Number(given);
  if (card === null) return undefined;
  const product = card.cardType === null ? undefined : PAYMENT_PRODUCTS[card.cardType];
  if (product === undefined) throw new GatewayInputError(`Worldline needs a payment product for card type ${card.cardType ?? 'unknown'}: send gateway_specific_fields[global_collect][payment_product_id].`, 'unsupported_feature');
  return product;
}

/** MMYY, as Connect's `expiryDate` takes it. */
function expiryOf(card: CreditCard): string {
  return `${String(card.month).padStart(2, '0')}${String((card.year as number) % 100).padStart(2, '0')}`;
}

function holderName(card: CreditCard): string | undefined {
  const name = [card.firstName, card.lastName].filter((part) => part !== null && part !== '').join(' ');
  return name === '' ? undefined : name;
}

/** `order.customer`: the card holder's name (Connect's lengths), billing address and e-mail. */
function customerOf(request: GatewayRequest): Json {
  const method = request.paymentMethod;
  const card = method?.type === 'credit_card' ? method : null;
  const address = card?.address;
  const billing = address !== undefined && (address.address1 || address.city || address.zip || address.country)
    ? { street: address.address1?.slice(0, 50) || undefined, additionalInfo: address.address2?.slice(0, 50) || undefined, zip: address.zip || undefined, city: address.city || undefined, state: address.state?.slice(0, 35) || undefined, countryCode: address.country || undefined }
    : undefined;
  const name = card === null ? undefined : { firstName: card.firstName?.slice(0, 15) || undefined, surname: card.lastName?.slice(0, 70) || undefined };
  const email = request.email ?? card?.email ?? undefined;
  return {
    merchantCustomerId: specificText(request, 'merchant_customer_id'),
    personalInformation: name === undefined ? undefined : { name },
    billingAddress: billing,
    contactDetails: email === undefined ? undefined : { emailAddress: email },
  };
}

/** `cardPaymentMethodSpecificInput` for a card or a Connect token. */
function cardInputOf(request: GatewayRequest, requiresApproval: boolean, preAuthorization: boolean): Json {
  const method = request.paymentMethod;
  const common = {
    skipAuthentication: true,
    skipFraudService: specificText(request, 'skip_fraud_service') !== 'false',
    authorizationMode: preAuthorization ? 'PRE_AUTHORIZATION' : 'FINAL_AUTHORIZATION',
    requiresApproval,
  };
  if (method?.type === 'third_party_token') return { paymentProductId: productId(request, null), token: method.token, ...common };
  const card = creditCard(request);
  return {
    paymentProductId: productId(request, card),
    ...common,
    card: { cvv: card.verificationValue?.reveal(), cardNumber: card.number.reveal(), expiryDate: expiryOf(card), cardholderName: holderName(card) },
  };
}

/** POST /payments: an order with the card, held (`requiresApproval: true`) or to be captured at once. */
function createPayment(call: GatewayCall, kind: 'purchase' | 'authorize' | 'verify'): Promise<Reply> {
  const { request } = call;
  const preAuthorization = specificText(request, 'pre_authorization') === 'true';
  return connectPost(call, '/payments', {
    order: {
      amountOfMoney: amountOf(request, kind === 'verify'),
      customer: customerOf(request),
      references: { merchantReference: request.orderId ?? undefined, descriptor: request.description?.slice(0, 256) ?? undefined, invoiceData: specificText(request, 'invoice') === undefined ? undefined : { invoiceNumber: specificText(request, 'invoice') } },
    },
    cardPaymentMethodSpecificInput: cardInputOf(request, kind !== 'purchase', preAuthorization),
  });
}

/**
 * The outcome of a create-payment answer: authorized is success; a rejection a decline; a payment
 * still pending with a third party has no outcome yet (unknown); anything else (e.g. REDIRECTED
 * for 3-D Secure, which Coffer skips) a failure.
 */
function createdOutcome(payment: ConnectPayment): 'approved' | 'declined' {
  if (payment.status === 'REJECTED' || payment.statusCategory === 'UNSUCCESSFUL') return 'declined';
  if (payment.isAuthorized === true) return 'approved';
  if (payment.statusCategory === 'PENDING_PAYMENT' || payment.statusCategory === 'PENDING_CONNECT_OR_3RD_PARTY') throw new GatewayResultUnknownError('Worldline did not give a final result.', `${payment.status} (${payment.statusCategory})`);
  return 'declined';
}

/** Purchase: one authorization with `requiresApproval: false`; approved at once if Connect still holds it. */
async function purchase(call: GatewayCall): Promise<GatewayResponse> {
  const reply = await createPayment(call, 'purchase');
  if (!reply.ok) return reply.response;
  const { payment } = readPayment(reply.json);
  if (createdOutcome(payment) === 'declined') return paymentResponse(payment, false, '');
  if (payment.status !== 'PENDING_APPROVAL') return paymentResponse(payment, true, 'Transaction approved');
  // Some Connect configurations hold card payments for approval whatever requiresApproval says.
  const approved = await connectPost(call, `/payments/${encodeURIComponent(payment.id)}/approve`, { amount: amountOf(call.request).amount }, '-approve');
  if (!approved.ok) return approved.response;
  const captured = readPayment(approved.json).payment;
  return paymentResponse({ ...captured, avsResult: payment.avsResult, cvvResult: payment.cvvResult }, captured.status === 'CAPTURED' || captured.status === 'CAPTURE_REQUESTED', 'Transaction approved');
}

async function authorize(call: GatewayCall): Promise<GatewayResponse> {
  const reply = await createPayment(call, 'authorize');
  if (!reply.ok) return reply.response;
  const { payment } = readPayment(reply.json);
  return paymentResponse(payment, createdOutcome(payment) === 'approved', 'Transaction authorized');
}

/** A zero-amount payment; verified when Connect answers the ACCOUNT_VERIFIED category (as ActiveMerchant decides). */
async function verify(call: GatewayCall): Promise<GatewayResponse> {
  const reply = await createPayment(call, 'verify');
  if (!reply.ok) return reply.response;
  const { payment } = readPayment(reply.json);
  return paymentResponse(payment, payment.statusCategory === 'ACCOUNT_VERIFIED' || payment.status === 'ACCOUNT_VERIFIED', 'Card verified');
}

function referenceId(request: GatewayRequest): string {
  const reference = request.reference?.gatewayTransactionId;
  if (reference === null || reference === undefined || reference === '') throw new GatewayFaultError('No Worldline payment id to refer to.', 'reference without gateway_transaction_id');
  return reference;
}

/** POST /payments/{id}/approve with the amount (all or part of the authorization, once). */
async function capture(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const reply = await connectPost(call, `/payments/${encodeURIComponent(referenceId(request))}/approve`, { amount: amountOf(request).amount });
  if (!reply.ok) return reply.response;
  const { payment } = readPayment(reply.json);
  return paymentResponse(payment, payment.status === 'CAPTURED' || payment.status === 'CAPTURE_REQUESTED', 'Transaction captured');
}

/**
 * POST /payments/{id}/cancel: released when the payment is CANCELLED or the void response id is one
 * of the released ones (ActiveMerchant counts a CANCELLED payment whose provider did not answer the
 * void, 98, as cancelled too: Connect has cancelled it on its side).
 */
async function cancel(call: GatewayCall): Promise<GatewayResponse> {
  const reply = await connectPost(call, `/payments/${encodeURIComponent(referenceId(call.request))}/cancel`, {});
  if (!reply.ok) return reply.response;
  const { payment, voidResponseId } = readPayment(reply.json);
  const voided = payment.status === 'CANCELLED' || (voidResponseId !== undefined && VOIDED_RESPONSE_IDS.has(voidResponseId));
  return paymentResponse(payment, voided, 'Transaction cancelled');
}

/** POST /payments/{id}/refund with amountOfMoney (partial refunds allowed); REFUND_REQUESTED or REFUNDED succeed. */
async function refund(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const reply = await connectPost(call, `/payments/${encodeURIComponent(referenceId(request))}/refund`, {
    amountOfMoney: amountOf(request),
    refundReferences: request.orderId === null ? undefined : { merchantReference: request.orderId },
  });
  if (!reply.ok) return reply.response;
  const refundAnswer = readAnswer('Worldline', paymentSchema, reply.json);
  const refunded = paymentOf(refundAnswer);
  return paymentResponse(refunded, refunded.status === 'REFUNDED' || refunded.status === 'REFUND_REQUESTED', 'Refund requested');
}

/** POST /tokens: Connect keeps the card (without CVV) and answers its token, the third-party token. */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const card = creditCard(request);
  const reply = await connectPost(call, '/tokens', {
    paymentProductId: productId(request, card),
    card: {
      customer: { billingAddress: { countryCode: card.address.country || undefined }, merchantCustomerId: specificText(request, 'merchant_customer_id') },
      data: { cardWithoutCvv: { cardNumber: card.number.reveal(), expiryDate: expiryOf(card), cardholderName: holderName(card) } },
    },
  });
  if (!reply.ok) return reply.response;
  const answer = readAnswer('Worldline', tokenAnswerSchema, reply.json);
  return { ...blankResponse(true, 'Card stored'), gatewayTransactionId: answer.token, thirdPartyToken: answer.token, specificResponseFields: { global_collect: { is_new_token: answer.isNewToken ?? null } } };
}

/**
 * Worldline Connect (GlobalCollect / Ingenico Connect) server API v1, v1HMAC-signed, cards and
 * Connect tokens. Not implemented: 3-D Secure, wallets, network tokens, airline and lodging data,
 * the Worldline Direct (Ogone) variant. See docs/gateways/global_collect.md.
 */
export const globalCollectGateway = defineGateway({
  gatewayType: 'global_collect',
  name: 'Worldline (formerly GlobalCollect)',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Default',
      credentials: [
        { name: 'merchant_id', label: 'Merchant ID', safe: true },
        { name: 'api_key_id', label: 'API Key ID', safe: true },
        { name: 'secret_api_key', label: 'Secret API Key', safe: false },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token'],
  gatewaySpecificFields: ['payment_product_id', 'pre_authorization', 'skip_fraud_service', 'merchant_customer_id', 'invoice'],
  supportedCountries: ['AR', 'AT', 'AU', 'BE', 'BR', 'CA', 'CH', 'CL', 'CO', 'DE', 'DK', 'ES', 'FI', 'FR', 'GB', 'IE', 'IN', 'IT', 'JP', 'MX', 'NL', 'NO', 'NZ', 'PE', 'PL', 'PT', 'SE', 'SG', 'US', 'ZA'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover', 'jcb', 'diners_club', 'naranja', 'cabal'],
  regions: ['asia_pacific', 'europe', 'latin_america', 'north_america'],
  homepage: 'https://worldline.com/',
  displayApiUrl: GLOBAL_COLLECT_LIVE_BASE,
  companyName: 'Worldline',
  capturesAreFinal: true,
  endpoint: (request) => (request.testMode ? GLOBAL_COLLECT_TEST_BASE : GLOBAL_COLLECT_LIVE_BASE),
  scrub: scrubWith(scrubJsonKeys('cardNumber', 'cvv', 'expiryDate', 'dpan', 'pan', 'cryptogram', 'cavv'), scrubHeaders('authorization')),
  operations: {
    purchase,
    authorize,
    capture,
    void: cancel,
    credit: refund,
    verify,
    store,
  },
});
