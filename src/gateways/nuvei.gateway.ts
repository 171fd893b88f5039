import { z } from 'zod';
import {
  blankResponse,
  decimalAmount,
  defineGateway,
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  GatewayResultUnknownError,
  mapErrorCode,
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
import { nuveiChecksum, nuveiTimeStamp, type NuveiMethod } from './nuvei/nuvei-checksum.js';
import { answerResponse, barePaymentOptionId, bareTransactionId, nuveiPaymentOptionId, type NuveiAnswer } from './nuvei/nuvei-mapping.js';

export const NUVEI_TEST_BASE = 'https://ppp-test.nuvei.com/ppp/api/v1';
export const NUVEI_LIVE_BASE = 'https://secure.safecharge.com/ppp/api/v1';

/**
 * Nuvei counts these currencies in whole units (ActiveMerchant's `currencies_without_fractions`
 * for Nuvei); all but MMK already have no minor unit in ISO 4217. Every other currency goes with
 * its ISO exponent: "10.00", JPY "1500", KWD "1.234".
 */
const NUVEI_EXPONENTS = { MMK: 0 } as const;

const text = z.union([z.string(), z.number()]).transform(String);
const answerSchema = z.object({
  status: z.string(),
  errCode: text.optional(),
  reason: z.string().optional(),
  transactionStatus: z.string().optional(),
  transactionId: text.optional(),
  gwErrorCode: text.optional(),
  gwErrorReason: z.string().optional(),
  gwExtendedErrorCode: text.optional(),
  issuerDeclineCode: text.optional(),
  issuerDeclineReason: z.string().optional(),
  authCode: text.optional(),
  orderId: text.optional(),
  externalSchemeTransactionId: text.optional(),
  paymentOption: z
    .object({
      userPaymentOptionId: text.optional(),
      card: z.object({ avsCode: z.string().optional(), cvv2Reply: z.string().optional() }).passthrough().optional(),
    })
    .passthrough()
    .optional(),
});
const sessionSchema = z.object({ status: z.string(), sessionToken: z.string().optional(), errCode: text.optional(), reason: z.string().optional() });

type Step<T> = { ok: true; value: T } | { ok: false; response: GatewayResponse };

function specificText(request: GatewayRequest, name: string): string | undefined {
  const value = request.gatewaySpecificFields[name];
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}

/**
 * One POST of a REST API 1.0 method: the merchant's ids, `clientRequestId`, `timeStamp`, the
 * method's fields, and the SHA-256 checksum over them. The API answers HTTP 200 with `status`
 * SUCCESS or ERROR; a 5xx, a 4xx or a body that is not JSON is a fault.
 */
async function nuveiPost(call: GatewayCall, method: NuveiMethod, clientRequestId: string, fields: Record<string, unknown>): Promise<Record<string, unknown>> {
  const { request } = call;
  const secretKey = requireCredential(request, 'secret_key');
  const signed: Record<string, unknown> = {
    merchantId: requireCredential(request, 'merchant_id'),
    merchantSiteId: requireCredential(request, 'merchant_site_id'),
    clientRequestId,
    ...fields,
    timeStamp: nuveiTimeStamp(),
  };
  const body = { ...signed, checksum: nuveiChecksum(method, signed, secretKey) };
  const response = await call.http.postJson(`/${method}.do`, body);
  faultOnServerError('Nuvei', response);
  if (response.status !== 200) throw new GatewayFaultError('Nuvei returned an unexpected response.', `HTTP ${response.status}`);
  return parseJsonAnswer('Nuvei', response);
}

/**
 * A session token for one payment (/getSessionToken, valid 15 minutes). It moves no money, so
 * whatever goes wrong here (even no answer in time) is a fault that provably took nothing.
 */
async function sessionToken(call: GatewayCall): Promise<Step<string>> {
  let answer: z.infer<typeof sessionSchema>;
  try {
    answer = readAnswer('Nuvei', sessionSchema, await nuveiPost(call, 'getSessionToken', `${call.request.transactionToken}-session`, {}));
  } catch (error) {
    if (error instanceof GatewayFaultError || error instanceof GatewayResultUnknownError) {
      throw new GatewayFaultError('Nuvei did not open a session.', `getSessionToken: ${error.detail}`, true);
    }
    throw error;
  }
  if (answer.status === 'SUCCESS' && answer.sessionToken !== undefined && answer.sessionToken !== '') return { ok: true, value: answer.sessionToken };
  const reason = answer.reason !== undefined && answer.reason !== '' ? answer.reason : 'Nuvei refused to open a session.';
  return {
    ok: false,
    response: {
      ...blankResponse(false, reason),
      errorCode: mapErrorCode({ '1001': 'config_error', '1013': 'config_error', '1022': 'config_error' }, [answer.errCode], 'processing_error'),
      errorDetail: ['getSessionToken', answer.status, answer.errCode, reason].filter((part) => part !== undefined && part !== '').join(': '),
    },
  };
}

/** Reads a transaction answer; PENDING (no final result yet) is an unknown outcome. */
function transactionAnswer(json: Record<string, unknown>): NuveiAnswer {
  const answer = readAnswer('Nuvei', answerSchema, json);
  if (answer.status === 'SUCCESS' && answer.transactionStatus === undefined) throw new GatewayFaultError('Nuvei returned an unexpected response.', 'transactionStatus: Required');
  if (answer.transactionStatus === 'PENDING') throw new GatewayResultUnknownError('Nuvei did not give a final result.', 'transactionStatus PENDING');
  return answer;
}

function amountOf(request: GatewayRequest, zero: boolean): { amount: string; currency: string } {
  const currency = request.currencyCode ?? (zero ? 'USD' : null);
  if (currency === null || (!zero && request.amount === null)) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  return { amount: decimalAmount(zero ? 0 : (request.amount as number), currency, NUVEI_EXPONENTS), currency };
}

type Card = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;

function holderName(card: Card): string {
  return [card.firstName, card.lastName].filter((part) => part !== null && part !== '').join(' ');
}

/**
 * A stored card is Coffer's third-party token `<userTokenId>|P<userPaymentOptionId>` (see store);
 * the `P` is stripped before sending, and a token without it (made before, or elsewhere) is taken as it is.
 */
function storedCard(request: GatewayRequest, token: string): { userTokenId: string; userPaymentOptionId: string } {
  const split = token.indexOf('|');
  const userTokenId = split > 0 ? token.slice(0, split) : specificText(request, 'user_token_id');
  const userPaymentOptionId = barePaymentOptionId(split > 0 ? token.slice(split + 1) : token);
  if (userTokenId === undefined || userPaymentOptionId === '') throw new GatewayInputError('A Nuvei payment option needs its user: a token from store, or gateway_specific_fields[nuvei][user_token_id].', 'processing_error');
  return { userTokenId, userPaymentOptionId };
}

/** paymentOption, billingAddress and userTokenId of a payment with a card or a stored payment option. */
function paymentSource(request: GatewayRequest): Record<string, unknown> {
  const method = request.paymentMethod;
  if (method?.type === 'third_party_token') {
    const stored = storedCard(request, method.token);
    return { userTokenId: stored.userTokenId, paymentOption: { userPaymentOptionId: stored.userPaymentOptionId }, billingAddress: { email: request.email ?? undefined, country: specificText(request, 'country') } };
  }
  if (method?.type !== 'credit_card') throw new GatewayInputError('Nuvei takes credit cards and its stored payment options (third_party_token).', 'unsupported_feature');
  if (method.month === null || method.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const { address } = method;
  return {
    userTokenId: specificText(request, 'user_token_id'),
    paymentOption: {
      card: {
        cardNumber: method.number.reveal(),
        cardHolderName: holderName(method),
        expirationMonth: String(method.month).padStart(2, '0'),
        expirationYear: String(method.year),
        CVV: method.verificationValue?.reveal(),
      },
    },
    billingAddress: {
      firstName: method.firstName ?? undefined,
      lastName: method.lastName ?? undefined,
      address: address.address1 ?? undefined,
      city: address.city ?? undefined,
      state: address.state ?? undefined,
      zip: address.zip ?? undefined,
      country: address.country ?? specificText(request, 'country'),
      email: request.email ?? method.email ?? undefined,
    },
  };
}

type PaymentKind = 'purchase' | 'authorize' | 'verify' | 'store';

/**
 * /payment: a Sale (purchase) or an Auth (authorize); verify and store are zero-amount Auths with
 * `authenticationOnlyType` (ACCOUNTVERIFICATION, ADDCARD), store also with `savePM` and a user.
 */
async function payment(call: GatewayCall, kind: PaymentKind): Promise<GatewayResponse> {
  const { request } = call;
  const zero = kind === 'verify' || kind === 'store';
  const source = paymentSource(request);
  if (kind === 'store') {
    if (request.paymentMethod?.type !== 'credit_card') throw new GatewayInputError('Nuvei stores credit cards only.', 'unsupported_feature');
    source.userTokenId ??= request.transactionToken;
  }
  const amount = amountOf(request, zero);
  const session = await sessionToken(call);
  if (!session.ok) return session.response;
  const json = await nuveiPost(call, 'payment', request.transactionToken, {
    sessionToken: session.value,
    clientUniqueId: request.orderId ?? request.transactionToken,
    transactionType: kind === 'purchase' ? 'Sale' : 'Auth',
    ...amount,
    ...source,
    savePM: kind === 'store' ? 'true' : 'false',
    authenticationOnlyType: kind === 'verify' ? 'ACCOUNTVERIFICATION' : kind === 'store' ? 'ADDCARD' : undefined,
    deviceDetails: request.ip === null ? undefined : { ipAddress: request.ip },
  });
  const answer = transactionAnswer(json);
  if (answer.transactionStatus === 'REDIRECT') {
    return { ...answerResponse(answer, ''), success: false, message: 'Nuvei asks for 3-D Secure, which Coffer does not run on Nuvei.', errorCode: 'processing_error' };
  }
  const messages: Record<PaymentKind, string> = { purchase: 'Transaction approved', authorize: 'Transaction authorized', verify: 'Card verified', store: 'Card stored' };
  const response = answerResponse(answer, messages[kind]);
  if (kind !== 'store' || !response.success) return response;
  const upo = answer.paymentOption?.userPaymentOptionId;
  if (upo === undefined || upo === '') throw new GatewayFaultError('Nuvei returned an unexpected response.', 'paymentOption.userPaymentOptionId: Required');
  // `P` glued to an all-digit userPaymentOptionId so a Luhn-valid one is not masked as a card (nuvei-mapping.ts).
  return { ...response, thirdPartyToken: `${String(source.userTokenId)}|${nuveiPaymentOptionId(upo)}` };
}

/**
 * /payout: money paid out to a card with no transaction to refer to (general credit). Nuvei pays
 * out to a user: the stored payment option's user, else `user_token_id`, else the transaction's
 * token; a raw card goes as `cardData`, a stored one as `userPaymentOption`. No session token (the
 * reference and the SDK list none for payout).
 */
async function payout(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const source = paymentSource(request);
  const option = source.paymentOption as { card?: Record<string, unknown>; userPaymentOptionId?: string };
  const json = await nuveiPost(call, 'payout', request.transactionToken, {
    userTokenId: (source.userTokenId as string | undefined) ?? request.transactionToken,
    clientUniqueId: request.orderId ?? request.transactionToken,
    ...amountOf(request, false),
    ...(option.card === undefined ? { userPaymentOption: { userPaymentOptionId: option.userPaymentOptionId } } : { cardData: option.card }),
    deviceDetails: request.ip === null ? undefined : { ipAddress: request.ip },
    comment: request.description ?? undefined,
  });
  return answerResponse(transactionAnswer(json), 'Transaction credited');
}

/** Nuvei's transactionId of the reference: Coffer's `N<digits>` without the `N`, or a bare id kept before the letter was glued on. */
function referenceId(request: GatewayRequest): string {
  const reference = request.reference?.gatewayTransactionId;
  if (reference === null || reference === undefined || reference === '') throw new GatewayFaultError('No Nuvei transaction id to refer to.', 'reference without gateway_transaction_id');
  return bareTransactionId(reference);
}

/** /settleTransaction, /refundTransaction, /voidTransaction: by the related transaction's id, no session token. */
async function referenced(call: GatewayCall, method: 'settleTransaction' | 'refundTransaction' | 'voidTransaction', approvedMessage: string): Promise<GatewayResponse> {
  const { request } = call;
  const relatedTransactionId = referenceId(request);
  // A void names the amount of what it cancels (the API requires it): the reference's.
  const source = method === 'voidTransaction' ? { ...request, amount: request.reference?.amount ?? request.amount } : request;
  const json = await nuveiPost(call, method, request.transactionToken, {
    clientUniqueId: request.orderId ?? request.transactionToken,
    ...amountOf(source, false),
    relatedTransactionId,
    comment: method === 'voidTransaction' ? undefined : (request.description ?? undefined),
  });
  return answerResponse(transactionAnswer(json), approvedMessage);
}

/**
 * Nuvei through its REST API 1.0 (ppp/api/v1), raw card data, every request with its SHA-256
 * checksum; store as a Nuvei user payment option; general credit as a payout. Not implemented:
 * 3-D Secure, APMs.
 * See docs/gateways/nuvei.md.
 */
export const nuveiGateway = defineGateway({
  gatewayType: 'nuvei',
  name: 'Nuvei',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Default',
      credentials: [
        { name: 'merchant_id', label: 'Merchant ID', safe: true },
        { name: 'merchant_site_id', label: 'Merchant Site ID', safe: true },
        { name: 'secret_key', label: 'Secret Key', safe: false },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token'],
  gatewaySpecificFields: ['user_token_id', 'country'],
  supportedCountries: ['US', 'CA', 'IN', 'NZ', 'GB', 'AU'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover', 'union_pay'],
  regions: ['north_america', 'europe', 'asia_pacific'],
  homepage: 'https://www.nuvei.com/',
  displayApiUrl: 'https://secure.safecharge.com/ppp/api/v1',
  companyName: 'Nuvei',
  capturesAreFinal: false,
  endpoint: (request) => (request.testMode ? NUVEI_TEST_BASE : NUVEI_LIVE_BASE),
  scrub: scrubWith(scrubJsonKeys('cardNumber', 'CVV', 'expirationMonth', 'expirationYear', 'sessionToken')),
  operations: {
    purchase: (call) => payment(call, 'purchase'),
    authorize: (call) => payment(call, 'authorize'),
    verify: (call) => payment(call, 'verify'),
    store: (call) => payment(call, 'store'),
    capture: (call) => referenced(call, 'settleTransaction', 'Transaction captured'),
    credit: (call) => referenced(call, 'refundTransaction', 'Transaction refunded'),
    void: (call) => referenced(call, 'voidTransaction', 'Transaction voided'),
    general_credit: payout,
  },
});
