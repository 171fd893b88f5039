import { z } from 'zod';
import {
  blankResponse,
  decimalAmount,
  defineGateway,
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
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
import { paymentResponse, refusalResponse, verificationResponse, type CommerceHubAnswer, type CommerceHubError } from './commerce_hub/commerce-hub-mapping.js';
import { commerceHubSignature } from './commerce_hub/commerce-hub-signature.js';

/** Commerce Hub's certification (sandbox) and production bases, as ActiveMerchant's adapter uses them. */
export const COMMERCE_HUB_TEST_BASE = 'https://connect-cert.fiservapps.com/ch';
export const COMMERCE_HUB_LIVE_BASE = 'https://connect.fiservapis.com/ch';

const PATHS = {
  charges: '/payments/v1/charges',
  cancels: '/payments/v1/cancels',
  refunds: '/payments/v1/refunds',
  tokens: '/payments-vas/v1/tokens',
  verification: '/payments-vas/v1/accounts/verification',
} as const;

const text = z.union([z.string(), z.number()]).transform(String);
const errorEntry = z.object({ type: z.string().optional(), code: text.optional(), field: z.string().optional(), message: z.string().optional() });
// The docs show `error` both as a list and as a single object.
const errorList = z.union([z.array(errorEntry), errorEntry.transform((entry) => [entry])]);
const processorSchema = z.object({
  approvalStatus: z.string().optional(),
  responseCode: text.optional(),
  responseMessage: z.string().optional(),
  hostResponseCode: text.optional(),
  schemeTransactionId: z.string().optional(),
  bankAssociationDetails: z
    .object({ avsSecurityCodeResponse: z.object({ association: z.object({ avsCode: z.string().optional(), securityCodeResponse: z.string().optional() }).optional() }).optional() })
    .optional(),
});
const answerSchema = z.object({
  gatewayResponse: z.object({
    transactionType: z.string().optional(),
    transactionState: z.string().optional(),
    transactionProcessingDetails: z.object({ transactionId: z.string().min(1) }),
  }),
  paymentReceipt: z.object({ processorResponseDetails: processorSchema.optional() }).optional(),
  // A token answer carries the processor's details at the top level.
  processorResponseDetails: processorSchema.optional(),
  networkDetails: z.object({ transactionIdentifier: z.string().optional() }).optional(),
  paymentTokens: z.array(z.object({ tokenData: z.string(), tokenSource: z.string().optional(), tokenResponseCode: text.optional(), tokenResponseDescription: z.string().optional() })).optional(),
  error: errorList.optional(),
});
const refusalSchema = z.object({
  gatewayResponse: z.object({ transactionProcessingDetails: z.object({ transactionId: z.string().optional() }).optional() }).optional(),
  error: errorList,
});

type Parsed = z.infer<typeof answerSchema>;
type Reply = { ok: true; answer: CommerceHubAnswer; parsed: Parsed } | { ok: false; response: GatewayResponse };

function specificText(request: GatewayRequest, name: string): string | undefined {
  const value = request.gatewaySpecificFields[name];
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}

/** The answer Coffer reads, wherever Commerce Hub put it. */
function answerOf(parsed: Parsed): CommerceHubAnswer {
  const processor = parsed.paymentReceipt?.processorResponseDetails ?? parsed.processorResponseDetails;
  const association = processor?.bankAssociationDetails?.avsSecurityCodeResponse?.association;
  return {
    transactionId: parsed.gatewayResponse.transactionProcessingDetails.transactionId,
    transactionState: parsed.gatewayResponse.transactionState,
    transactionType: parsed.gatewayResponse.transactionType,
    responseCode: processor?.responseCode,
    responseMessage: processor?.responseMessage,
    approvalStatus: processor?.approvalStatus,
    hostResponseCode: processor?.hostResponseCode,
    avsCode: association?.avsCode,
    securityCodeResponse: association?.securityCodeResponse,
    networkTransactionId: parsed.networkDetails?.transactionIdentifier ?? processor?.schemeTransactionId,
    errors: (parsed.error ?? []) as CommerceHubError[],
  };
}

/** A 4xx body's error list: at the top level or inside `errorResponse` (both are documented). */
function refusalOf(status: number, json: Record<string, unknown> | null): GatewayResponse {
  const inner = json !== null && typeof json.errorResponse === 'object' && json.errorResponse !== null ? json.errorResponse : json;
  const parsed = refusalSchema.safeParse(inner);
  if (!parsed.success) {
    if (status === 401 || status === 403) return refusalResponse(status, [], null);
    throw new GatewayFaultError('Commerce Hub returned an unexpected response.', `HTTP ${status}, no error list`);
  }
  return refusalResponse(status, parsed.data.error as CommerceHubError[], parsed.data.gatewayResponse?.transactionProcessingDetails?.transactionId ?? null);
}

/**
 * One HMAC-signed POST: Api-Key, Client-Request-Id (Coffer's transaction token: Commerce Hub's
 * nonce and idempotency key), Timestamp (epoch ms), Auth-Token-Type HMAC, and Authorization with the
 * Base64 HMAC-SHA256 of Api-Key + Client-Request-Id + Timestamp + the exact body sent. merchantDetails
 * (merchant and terminal id) go in every body. 5xx and unreadable answers are faults; a 4xx must
 * carry Commerce Hub's error list (401/403 are config errors whatever their body).
 */
async function commerceHubPost(call: GatewayCall, path: string, payload: Record<string, unknown>): Promise<Reply> {
  const { request } = call;
  const apiKey = requireCredential(request, 'api_key');
  const apiSecret = requireCredential(request, 'api_secret');
  const merchantDetails = { merchantId: requireCredential(request, 'merchant_id'), terminalId: requireCredential(request, 'terminal_id') };
  const body = JSON.stringify({ ...payload, merchantDetails });
  const timestamp = String(Date.now());
  const response = await call.http.send({
    method: 'POST',
    path,
    headers: {
      'content-type': 'application/json',
      accept: 'application/json',
      'client-request-id': request.transactionToken,
      'api-key': apiKey,
      timestamp,
      'auth-token-type': 'HMAC',
      authorization: commerceHubSignature(apiSecret, apiKey, request.transactionToken, timestamp, body),
    },
    body,
  });
  faultOnServerError('Commerce Hub', response);
  if (response.status === 401 || response.status === 403) {
    let json: Record<string, unknown> | null = null;
    try {
      json = parseJsonAnswer('Commerce Hub', response);
    } catch {
      // An API gateway refusal need not be Commerce Hub's JSON: the status says enough.
    }
    return { ok: false, response: refusalOf(response.status, json) };
  }
  const json = parseJsonAnswer('Commerce Hub', response);
  if (response.status >= 400) return { ok: false, response: refusalOf(response.status, json) };
  if (response.status < 200 || response.status > 299) throw new GatewayFaultError('Commerce Hub returned an unexpected response.', `HTTP ${response.status}`);
  const parsed = readAnswer('Commerce Hub', answerSchema, json);
  return { ok: true, answer: answerOf(parsed), parsed };
}

/** `amount` in the currency's major unit as a JSON number (12.04; JPY 1500; KWD 1.234), as the API reference shows it. */
function amountOf(request: GatewayRequest): { total: number; currency: string } {
  if (request.amount === null || request.currencyCode === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  return { total: Number(decimalAmount(request.amount, request.currencyCode)), currency: request.currencyCode };
}

type CreditCard = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;

/** `source`: a card (PaymentCard), or a token Commerce Hub issued (PaymentToken, `third_party_token`). */
function sourceOf(request: GatewayRequest): Record<string, unknown> {
  const method = request.paymentMethod;
  if (method?.type === 'third_party_token') {
    const month = specificText(request, 'card_expiration_month');
    const year = specificText(request, 'card_expiration_year');
    return {
      sourceType: 'PaymentToken',
      tokenData: method.token,
      tokenSource: specificText(request, 'token_source') ?? 'TRANSARMOR',
      card: month !== undefined || year !== undefined ? { expirationMonth: month?.padStart(2, '0'), expirationYear: year } : undefined,
    };
  }
  const card = creditCard(request);
  const cvv = card.verificationValue?.reveal();
  return {
    sourceType: 'PaymentCard',
    card: {
      cardData: card.number.reveal(),
      expirationMonth: String(card.month).padStart(2, '0'),
      expirationYear: String(card.year),
      securityCode: cvv,
      securityCodeIndicator: cvv === undefined ? undefined : 'PROVIDED',
    },
  };
}

function creditCard(request: GatewayRequest): CreditCard {
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('Commerce Hub takes credit cards and tokens it issued (third_party_token).', 'unsupported_feature');
  if (method.month === null || method.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  return method;
}

/** `billingAddress` from the card's name and address; nothing for a token. */
function billingAddressOf(request: GatewayRequest): Record<string, unknown> | undefined {
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') return undefined;
  const { address } = method;
  const lines = { street: address.address1 || undefined, houseNumberOrName: address.address2 || undefined, city: address.city || undefined, stateOrProvince: address.state || undefined, postalCode: address.zip || undefined, country: address.country || undefined };
  const hasAddress = Object.values(lines).some((value) => value !== undefined);
  return { firstName: method.firstName || undefined, lastName: method.lastName || undefined, address: hasAddress ? lines : undefined };
}

/** `transactionInteraction` of a card-not-present e-commerce call; gateway-specific fields override each value. */
function interactionOf(request: GatewayRequest): Record<string, unknown> {
  return {
    origin: specificText(request, 'origin') ?? 'ECOM',
    eciIndicator: specificText(request, 'eci_indicator') ?? 'CHANNEL_ENCRYPTED',
    posConditionCode: specificText(request, 'pos_condition_code') ?? 'CARD_NOT_PRESENT_ECOM',
    posEntryMode: specificText(request, 'pos_entry_mode') ?? 'MANUAL',
    additionalPosInformation: { dataEntrySource: specificText(request, 'data_entry_source') ?? 'UNSPECIFIED' },
  };
}

/** `dynamicDescriptors` when any of its gateway-specific fields is given. */
function descriptorsOf(request: GatewayRequest): Record<string, unknown> | undefined {
  const descriptors = { mcc: specificText(request, 'mcc'), merchantName: specificText(request, 'merchant_name'), customerServiceNumber: specificText(request, 'customer_service_number'), serviceEntitlement: specificText(request, 'service_entitlement') };
  return Object.values(descriptors).some((value) => value !== undefined) ? descriptors : undefined;
}

/** `transactionDetails` of a charge or verification: order id and invoice number when known. */
function detailsOf(request: GatewayRequest, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const physical = request.gatewaySpecificFields.physical_goods_indicator;
  return {
    ...extra,
    merchantOrderId: request.orderId ?? undefined,
    merchantInvoiceNumber: specificText(request, 'merchant_invoice_number') ?? request.orderId ?? undefined,
    physicalGoodsIndicator: physical === true || physical === 'true' ? true : undefined,
  };
}

/** POST /payments/v1/charges with captureFlag true (purchase) or false (authorize). */
async function charge(call: GatewayCall, capture: boolean): Promise<GatewayResponse> {
  const { request } = call;
  const reply = await commerceHubPost(call, PATHS.charges, {
    amount: amountOf(request),
    source: sourceOf(request),
    transactionDetails: detailsOf(request, { captureFlag: capture, createToken: false }),
    transactionInteraction: interactionOf(request),
    billingAddress: billingAddressOf(request),
    dynamicDescriptors: descriptorsOf(request),
  });
  if (!reply.ok) return reply.response;
  return paymentResponse(reply.answer, capture ? 'Transaction approved' : 'Transaction authorized');
}

function referenceId(request: GatewayRequest): string {
  const reference = request.reference?.gatewayTransactionId;
  if (reference === null || reference === undefined || reference === '') throw new GatewayFaultError('No Commerce Hub transaction id to refer to.', 'reference without gateway_transaction_id');
  return reference;
}

/** POST /payments/v1/charges with captureFlag true and the authorization as reference: all or part of it. */
async function capture(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const reply = await commerceHubPost(call, PATHS.charges, {
    amount: amountOf(request),
    transactionDetails: { captureFlag: true },
    referenceTransactionDetails: { referenceTransactionId: referenceId(request) },
  });
  if (!reply.ok) return reply.response;
  return paymentResponse(reply.answer, 'Transaction captured');
}

/** POST /payments/v1/cancels: the referenced charge (an authorization, or a sale before settlement) is cancelled. */
async function cancel(call: GatewayCall): Promise<GatewayResponse> {
  const reply = await commerceHubPost(call, PATHS.cancels, { referenceTransactionDetails: { referenceTransactionId: referenceId(call.request), referenceTransactionType: 'CHARGES' } });
  if (!reply.ok) return reply.response;
  return paymentResponse(reply.answer, 'Transaction cancelled');
}

/** POST /payments/v1/refunds with the amount (partial refunds allowed) and the charge as reference. */
async function refund(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const reply = await commerceHubPost(call, PATHS.refunds, {
    amount: amountOf(request),
    referenceTransactionDetails: { referenceTransactionId: referenceId(request), referenceTransactionType: 'CHARGES' },
  });
  if (!reply.ok) return reply.response;
  return paymentResponse(reply.answer, 'Refund approved');
}

/** POST /payments-vas/v1/accounts/verification: the card checked without an amount. */
async function verify(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const reply = await commerceHubPost(call, PATHS.verification, {
    source: sourceOf(request),
    transactionDetails: detailsOf(request),
    billingAddress: billingAddressOf(request),
  });
  if (!reply.ok) return reply.response;
  return verificationResponse(reply.answer);
}

/** POST /payments-vas/v1/tokens: Commerce Hub tokenizes the card; its first token's tokenData is the third-party token. */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  creditCard(request);
  const reply = await commerceHubPost(call, PATHS.tokens, {
    source: sourceOf(request),
    billingAddress: billingAddressOf(request),
    transactionDetails: {},
    transactionInteraction: interactionOf(request),
  });
  if (!reply.ok) return reply.response;
  const token = reply.parsed.paymentTokens?.[0];
  if (reply.answer.errors.length > 0 || token === undefined || token.tokenResponseCode !== '000') {
    return paymentResponse({ ...reply.answer, responseCode: token?.tokenResponseCode ?? reply.answer.responseCode, responseMessage: token?.tokenResponseDescription ?? reply.answer.responseMessage }, 'Card stored');
  }
  return {
    ...blankResponse(true, 'Card stored'),
    gatewayTransactionId: reply.answer.transactionId,
    thirdPartyToken: token.tokenData,
    specificResponseFields: { commerce_hub: { token_source: token.tokenSource ?? null, transaction_state: reply.answer.transactionState ?? null } },
  };
}

/**
 * Fiserv Commerce Hub through its REST API (payments v1, payments-vas v1), every request
 * HMAC-signed; cards and Commerce Hub tokens. Not implemented: 3-D Secure data, wallets, network
 * tokens, encrypted card data, stored-credential fields. See docs/gateways/commerce_hub.md.
 */
export const commerceHubGateway = defineGateway({
  gatewayType: 'commerce_hub',
  name: 'CommerceHub',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Default',
      credentials: [
        { name: 'api_key', label: 'Api Key', safe: false },
        { name: 'api_secret', label: 'Api Secret', safe: false },
        { name: 'merchant_id', label: 'Merchant Id', safe: true },
        { name: 'terminal_id', label: 'Terminal Id', safe: true },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token'],
  gatewaySpecificFields: [
    'token_source',
    'card_expiration_month',
    'card_expiration_year',
    'merchant_invoice_number',
    'physical_goods_indicator',
    'origin',
    'eci_indicator',
    'pos_condition_code',
    'pos_entry_mode',
    'data_entry_source',
    'mcc',
    'merchant_name',
    'customer_service_number',
    'service_entitlement',
  ],
  supportedCountries: ['US'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover'],
  regions: ['north_america'],
  homepage: 'https://developer.fiserv.com/product/CommerceHub',
  displayApiUrl: COMMERCE_HUB_LIVE_BASE,
  companyName: 'Fiserv',
  capturesAreFinal: true,
  endpoint: (request) => (request.testMode ? COMMERCE_HUB_TEST_BASE : COMMERCE_HUB_LIVE_BASE),
  scrub: scrubWith(scrubJsonKeys('cardData', 'securityCode', 'tokenData', 'cavv', 'encryptionBlock'), scrubHeaders('api-key', 'authorization')),
  operations: {
    purchase: (call) => charge(call, true),
    authorize: (call) => charge(call, false),
    capture,
    void: cancel,
    credit: refund,
    verify,
    store,
  },
});
