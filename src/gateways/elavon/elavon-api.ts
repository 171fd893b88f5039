import {
  decimalAmount,
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  optionalCredential,
  parseXmlAnswer,
  requireCredential,
  scrubXmlElements,
  scrubWith,
  xmlDocument,
  type AdapterPaymentMethod,
  type GatewayCall,
  type GatewayRequest,
  type XmlValue,
} from '../kit/index.js';

/**
 * Elavon Converge's XML API: one form field `xmldata` holding a `<txn>` document, POSTed to
 * processxml.do; the answer is a `<txn>` document too. Facts from Elavon's Converge developer guide
 * ("XML API", "Transaction types") and ActiveMerchant's Elavon adapter.
 */

export const ELAVON_TEST_BASE = 'https://api.demo.convergepay.com/VirtualMerchantDemo';
export const ELAVON_LIVE_BASE = 'https://api.convergepay.com/VirtualMerchant';
export const ELAVON_PATH = '/processxml.do';

/** Converge's transaction types (`ssl_transaction_type`). */
export type ElavonTransactionType = 'ccsale' | 'ccauthonly' | 'cccomplete' | 'ccreturn' | 'ccvoid' | 'ccdelete' | 'ccverify' | 'ccgettoken';

export function elavonEndpoint(request: GatewayRequest): string {
  return request.testMode ? ELAVON_TEST_BASE : ELAVON_LIVE_BASE;
}

const SECRET_ELEMENTS = ['ssl_pin', 'ssl_card_number', 'ssl_cvv2cvc2', 'ssl_exp_date'];

/**
 * The document travels form-encoded (`%3Cssl_pin%3E1234%3C%2Fssl_pin%3E`), so the plain-XML rule
 * alone would not see it: both spellings are scrubbed.
 */
function scrubEncodedElements(...names: string[]): (text: string) => string {
  const pattern = new RegExp(`(%3C(${names.join('|')})%3E).*?(%3C%2F\\2%3E)`, 'gi');
  return (text) => text.replace(pattern, '$1[FILTERED]$3');
}

export const scrubElavon = scrubWith(scrubXmlElements(...SECRET_ELEMENTS), scrubEncodedElements(...SECRET_ELEMENTS));

/** Cuts a text field to Converge's documented length (null when empty). */
function cut(value: string | null | undefined, length: number): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  return value.slice(0, length);
}

/** `ssl_amount`: a decimal in the currency's major unit ("10.00", "1500" for JPY, "1.234" for KWD). */
export function elavonAmount(request: GatewayRequest): string {
  if (request.amount === null || request.currencyCode === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  return decimalAmount(request.amount, request.currencyCode);
}

/**
 * `ssl_transaction_currency`, sent only for terminals set up for multi-currency (the
 * `multi_currency` credential); other terminals transact in their own currency and reject the field.
 */
export function currencyField(request: GatewayRequest): Record<string, XmlValue> {
  if (optionalCredential(request, 'multi_currency') !== 'true' || request.currencyCode === null) return {};
  return { ssl_transaction_currency: request.currencyCode };
}

type Card = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;

/** The card fields: number, expiry as MMYY, the CVV with its indicator (1 = present), the holder's name. */
export function cardFields(card: Card): Record<string, XmlValue> {
  if (card.month === null || card.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const cvv = card.verificationValue?.reveal();
  return {
    ssl_card_number: card.number.reveal(),
    ssl_exp_date: `${String(card.month).padStart(2, '0')}${String(card.year % 100).padStart(2, '0')}`,
    ...(cvv === undefined || cvv === '' ? {} : { ssl_cvv2cvc2: cvv, ssl_cvv2cvc2_indicator: 1 }),
    ssl_first_name: cut(card.firstName, 20),
    ssl_last_name: cut(card.lastName, 30),
  };
}

/** The billing address Converge checks with AVS (`ssl_avs_address`, `ssl_avs_zip`) and the rest of it. */
export function addressFields(card: Card): Record<string, XmlValue> {
  const { address } = card;
  return {
    ssl_avs_address: cut(address.address1, 30),
    ssl_address2: cut(address.address2, 30),
    ssl_avs_zip: cut(address.zip?.replace(/[^A-Za-z0-9]/g, ''), 9),
    ssl_city: cut(address.city, 30),
    ssl_state: cut(address.state, 30),
    ssl_country: cut(address.country, 50),
  };
}

/** A card, or a Converge token (`ssl_token`, from ccgettoken) for a stored card. */
export function paymentFields(request: GatewayRequest): Record<string, XmlValue> {
  const method = request.paymentMethod;
  if (method?.type === 'credit_card') return { ...cardFields(method), ...addressFields(method), ssl_email: cut(method.email ?? request.email, 100) };
  if (method?.type === 'third_party_token') return { ssl_token: method.token, ssl_email: cut(request.email, 100) };
  throw new GatewayInputError('Elavon takes credit cards and cards it stored (third_party_token).', 'unsupported_feature');
}

/** The order id as `ssl_invoice_number` (25 characters) and the description (255). */
export function invoiceFields(request: GatewayRequest): Record<string, XmlValue> {
  return { ssl_invoice_number: cut(request.orderId, 25), ssl_description: cut(request.description, 255) };
}

/** The Converge transaction id a capture, refund or void refers to. */
export function referenceTxnId(request: GatewayRequest): string {
  const id = request.reference?.gatewayTransactionId;
  if (id === null || id === undefined || id === '') throw new GatewayFaultError('No Elavon ssl_txn_id to refer to.', 'reference without gateway_transaction_id');
  return id;
}

/**
 * Sends one `<txn>`: credentials first (ssl_merchant_id, ssl_user_id, ssl_pin), then the
 * transaction type and `fields` in the order given. Returns the answer's `<txn>` element; a 5xx,
 * a non-XML body or an answer without `<txn>` is a fault.
 */
export async function elavonPost(call: GatewayCall, type: ElavonTransactionType, fields: Record<string, XmlValue>): Promise<Record<string, unknown>> {
  const { request } = call;
  const document = xmlDocument('txn', {
    ssl_merchant_id: requireCredential(request, 'merchant_id'),
    ssl_user_id: requireCredential(request, 'user'),
    ssl_pin: requireCredential(request, 'pin'),
    ssl_transaction_type: type,
    ...fields,
  }).replace(/^<\?xml[^>]*\?>/, '');
  const response = await call.http.postForm(ELAVON_PATH, { xmldata: document }, { accept: 'application/xml' });
  faultOnServerError('Elavon', response);
  const parsed = parseXmlAnswer('Elavon', response);
  const txn = parsed.txn;
  if (txn === null || typeof txn !== 'object' || Array.isArray(txn)) throw new GatewayFaultError('Elavon returned an unexpected response.', `HTTP ${response.status}, no <txn> element`);
  return txn as Record<string, unknown>;
}
