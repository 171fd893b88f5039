import {
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  gatewayMinorUnits,
  parseJsonAnswer,
  requireCredential,
  scrubJsonKeys,
  scrubWith,
  type AdapterPaymentMethod,
  type GatewayCall,
  type GatewayRequest,
} from '../kit/index.js';

/**
 * Paysafe's REST APIs as Coffer calls them: the Card Payments API v1
 * (`/cardpayments/v1/accounts/{account_id}/…`) and, for store, the Customer Vault API v1
 * (`/customervault/v1/profiles`). JSON over HTTPS with HTTP Basic authentication (the API key's
 * user name and password). Facts from Paysafe's developer documentation ("Card Payments API",
 * "Customer Vault API", "Card errors"), Paysafe's Node.js SDK (paysafegroup/paysafe_sdk_nodejs,
 * field names) and ActiveMerchant's Paysafe adapter.
 */

export const PAYSAFE_TEST_BASE = 'https://api.test.paysafe.com';
export const PAYSAFE_LIVE_BASE = 'https://api.paysafe.com';

export function paysafeEndpoint(request: GatewayRequest): string {
  return request.testMode ? PAYSAFE_TEST_BASE : PAYSAFE_LIVE_BASE;
}

/** A Card Payments path under the merchant account the credentials name. */
export function cardPaymentsPath(request: GatewayRequest, resource: string): string {
  return `/cardpayments/v1/accounts/${encodeURIComponent(requireCredential(request, 'account_id'))}/${resource}`;
}

export const CUSTOMER_VAULT_PROFILES = '/customervault/v1/profiles';

/**
 * The card number, CVV and expiry (`cardNum`, `cvv`, `cardExpiry.month/year`) and the API
 * password (inside the Basic `Authorization` header, which the shared rules mask).
 */
export const scrubPaysafe = scrubWith(scrubJsonKeys('cardNum', 'cvv', 'month', 'year'));

type Card = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;
type Json = Record<string, unknown>;

function text(value: string | null | undefined, length: number): string | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  return value.trim().slice(0, length);
}

/**
 * `amount` in minor units of the account's currency, with the currency's ISO 4217 exponent:
 * US$10.99 is 1099, ¥1000 is 1000, 10.139 TND is 10139 (Paysafe's "amount" field description).
 */
export function paysafeAmount(request: GatewayRequest): number {
  if (request.amount === null || request.currencyCode === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  return gatewayMinorUnits(request.amount, request.currencyCode);
}

/**
 * `merchantRefNum` is Coffer's transaction token and `dupCheck` is on: Paysafe refuses a second
 * request with a merchantRefNum it has seen (error 3044/5031), so a transaction sent twice cannot
 * be processed twice. The order id travels in `description`.
 */
export function reference(request: GatewayRequest): Json {
  return { merchantRefNum: request.transactionToken, dupCheck: true };
}

/** `card` with the number, `cardExpiry` {month, year} and the CVV when there is one. */
export function cardObject(card: Card): Json {
  if (card.month === null || card.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const cvv = card.verificationValue?.reveal();
  return { cardNum: card.number.reveal(), cardExpiry: { month: card.month, year: card.year }, cvv: cvv === undefined || cvv === '' ? undefined : cvv };
}

/** `billingDetails` from the card's address (Paysafe's lengths: street 50, city 40, zip 10). */
export function billingDetails(card: Card): Json | undefined {
  const { address } = card;
  const details = {
    street: text(address.address1, 50),
    street2: text(address.address2, 50),
    city: text(address.city, 40),
    state: text(address.state, 40),
    country: text(address.country, 2),
    zip: text(address.zip, 10),
  };
  return Object.values(details).every((value) => value === undefined) ? undefined : details;
}

/** `profile` (the cardholder) and `customerIp`, sent with a card, never with a stored card's token. */
export function holder(request: GatewayRequest, card: Card): Json {
  return {
    profile: { firstName: text(card.firstName, 80), lastName: text(card.lastName, 80), email: text(card.email ?? request.email, 255) },
    customerIp: text(request.ip, 39),
  };
}

/** The card and its holder, or a stored card by `card.paymentToken` (from store). */
export function paymentFields(request: GatewayRequest): Json {
  const method = request.paymentMethod;
  if (method?.type === 'credit_card') return { card: cardObject(method), billingDetails: billingDetails(method), ...holder(request, method) };
  if (method?.type === 'third_party_token') return { card: { paymentToken: method.token.split('|')[0] } };
  throw new GatewayInputError('Paysafe takes credit cards and cards it stored (third_party_token).', 'unsupported_feature');
}

/** The order id (or the description) as `description`, which Paysafe keeps with the transaction. */
export function description(request: GatewayRequest): Json {
  return { description: text(request.description ?? request.orderId, 255) };
}

/** The Paysafe id (authorization, settlement, refund…) a follow-on request refers to. */
export function referenceId(request: GatewayRequest): string {
  const id = request.reference?.gatewayTransactionId;
  if (id === null || id === undefined || id === '') throw new GatewayFaultError('No Paysafe id to refer to.', 'reference without gateway_transaction_id');
  return encodeURIComponent(id);
}

/** An answer: its HTTP status and JSON body. */
export interface PaysafeReply {
  status: number;
  json: Json;
}

/**
 * Sends one request with Basic authentication. A 5xx or a body that is not a JSON object is a
 * fault; every other status is handed back (declines come as 402 with an `error` object, a bad
 * request as 400, wrong credentials as 401).
 */
export async function paysafeSend(call: GatewayCall, method: 'POST' | 'PUT', path: string, body: Json): Promise<PaysafeReply> {
  const { request } = call;
  const basic = Buffer.from(`${requireCredential(request, 'username')}:${requireCredential(request, 'password')}`).toString('base64');
  const response = await call.http.send({
    method,
    path,
    headers: { 'content-type': 'application/json', accept: 'application/json', authorization: `Basic ${basic}` },
    body: JSON.stringify(body),
  });
  faultOnServerError('Paysafe', response);
  return { status: response.status, json: parseJsonAnswer('Paysafe', response) };
}
