import { createHash } from 'node:crypto';
import {
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  gatewayMinorUnits,
  optionalCredential,
  parseXmlAnswer,
  requireCredential,
  scrubHeaders,
  scrubWith,
  scrubXmlElements,
  xmlDocument,
  type GatewayCall,
  type GatewayRequest,
  type XmlValue,
} from '../kit/index.js';
import { ORBITAL_CURRENCIES, ORBITAL_EXPONENTS } from './orbital-currencies.js';

/**
 * Orbital's XML interface: one path, `/authorize`, for every request; the document's root element
 * (`NewOrder`, `MarkForCapture`, `Reversal`) says what it is. Sources: Orbital Gateway XML
 * Interface Specification (transport headers, element order, retry logic), ActiveMerchant's
 * orbital.rb (endpoints, BIN choice by merchant id length).
 */
export const ORBITAL_PATH = '/authorize';
export const ORBITAL_TEST_BASE = 'https://orbitalvar1.chasepaymentech.com';
export const ORBITAL_LIVE_BASE = 'https://orbital1.chasepaymentech.com';
/** The document version announced in Content-Type (`application/PTI95`). */
export const ORBITAL_VERSION = '9.5';

export function orbitalEndpoint(request: GatewayRequest): string {
  return request.testMode ? ORBITAL_TEST_BASE : ORBITAL_LIVE_BASE;
}

/** Orbital's credential and card elements, on top of the shared rules; the Trace-number header is a digit run the shared rules mask anyway. */
export const scrubOrbital = scrubWith(
  scrubXmlElements('OrbitalConnectionUsername', 'OrbitalConnectionPassword', 'AccountNum', 'CCAccountNum', 'CardSecVal', 'MerchantID', 'CustomerMerchantID', 'SafetechToken', 'CheckDDA', 'BCRtNum'),
  scrubHeaders('Merchant-Id'),
);

/** A gateway-specific field given as text, if it was. */
export function specificText(request: GatewayRequest, name: string): string | undefined {
  const value = request.gatewaySpecificFields[name];
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/**
 * Connection username and password, unless the gateway is in Spreedly's `merchant_id_only` mode
 * (Orbital then authenticates the caller by its source IP): left out of the document entirely.
 */
export function connectionCredentials(request: GatewayRequest): Record<string, XmlValue> {
  if (optionalCredential(request, 'mode') === 'merchant_id_only') return {};
  const login = optionalCredential(request, 'login');
  const password = optionalCredential(request, 'password');
  if (login === undefined && password === undefined) return {};
  return { OrbitalConnectionUsername: requireCredential(request, 'login'), OrbitalConnectionPassword: requireCredential(request, 'password') };
}

/** BIN (Salem/Stratus 000001 for a 6-digit merchant id, PNS/Tandem 000002 otherwise), MerchantID, TerminalID. */
export function merchantBlock(request: GatewayRequest): Record<string, XmlValue> {
  const merchantId = requireCredential(request, 'merchant_id');
  return { BIN: merchantId.length === 6 ? '000001' : '000002', MerchantID: merchantId, TerminalID: specificText(request, 'terminal_id') ?? '001' };
}

/** `CurrencyCode` and `CurrencyExponent`, and the amount in Orbital's unit for that exponent. */
export function orbitalMoney(amount: number | null, currency: string | null): { amount: string; CurrencyCode: string; CurrencyExponent: string } {
  if (amount === null || currency === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  const entry = ORBITAL_CURRENCIES[currency];
  if (entry === undefined) throw new GatewayInputError(`Orbital does not take ${currency}.`, 'invalid_amount');
  const units = gatewayMinorUnits(amount, currency, ORBITAL_EXPONENTS);
  // Amount is 12 digits at most (implied decimals).
  if (units > 999_999_999_999) throw new GatewayInputError('The amount is too large for Orbital.', 'invalid_amount');
  return { amount: String(units), CurrencyCode: entry[0], CurrencyExponent: String(entry[1]) };
}

/**
 * Orbital's OrderID: letters, digits, space and `, $ @ & -` (a `.` becomes `-`), no leading
 * space, at most 22 characters. The order id the client sent, else Coffer's transaction token.
 */
export function orbitalOrderId(request: GatewayRequest): string {
  const cleaned = (request.orderId ?? '').replace(/\./g, '-').replace(/[^,$@&\- \w]/g, '').trimStart().slice(0, 22);
  return cleaned === '' ? request.transactionToken.slice(0, 22) : cleaned;
}

/**
 * The Trace-number of Orbital's retry logic: a number from 1 to 9999999999999999 that Orbital
 * remembers per merchant, answering a repeat with the first answer instead of processing it again.
 * Derived from the transaction token (and a suffix for a second request of one operation) so a
 * retried call carries the same one; a numeric gateway-specific `idempotency_key` is used as is.
 */
export function traceNumber(request: GatewayRequest, suffix = ''): string {
  const given = specificText(request, 'idempotency_key');
  if (suffix === '' && given !== undefined && /^[1-9]\d{0,15}$/.test(given)) return given;
  const digest = createHash('sha256').update(`${request.transactionToken}${suffix}`).digest();
  const value = digest.readBigUInt64BE(0) * 2n ** 64n + digest.readBigUInt64BE(8);
  return String((value % 9_999_999_999_999_999n) + 1n);
}

/** Retry logic is on unless the gateway-specific `retry_logic` is false (Spreedly's default is on). */
function retryLogic(request: GatewayRequest): boolean {
  const value = request.gatewaySpecificFields.retry_logic;
  return !(value === false || value === 'false');
}

/** `<Request><{kind}>…</{kind}></Request>`. */
export function orbitalDocument(kind: 'NewOrder' | 'MarkForCapture' | 'Reversal', content: Record<string, XmlValue>): string {
  return xmlDocument('Request', { [kind]: content });
}

/** The answer's one element under `Response` (NewOrderResp, MarkForCaptureResp, ReversalResp, QuickResp), or a root `ErrorResponse`. */
export interface OrbitalAnswer {
  kind: string;
  fields: Record<string, unknown>;
}

/**
 * POSTs a document with Orbital's transport headers (and, with retry logic, Trace-number and
 * Merchant-Id). A 5xx, a body that is not XML, or one without `Response` is a fault.
 */
export async function orbitalPost(call: GatewayCall, document: string, traceSuffix = ''): Promise<OrbitalAnswer> {
  const { request } = call;
  const headers: Record<string, string> = {
    'mime-version': '1.1',
    'content-type': `application/PTI${ORBITAL_VERSION.replace('.', '')}`,
    'content-transfer-encoding': 'text',
    'request-number': '1',
    'document-type': 'Request',
    'interface-version': 'Coffer|Orbital XML',
    accept: 'application/xml',
  };
  if (retryLogic(request)) {
    headers['trace-number'] = traceNumber(request, traceSuffix);
    headers['merchant-id'] = requireCredential(request, 'merchant_id');
  }
  const response = await call.http.send({ method: 'POST', path: ORBITAL_PATH, headers, body: document });
  faultOnServerError('Orbital', response);
  if (response.status !== 200) throw new GatewayFaultError('Orbital returned an unexpected response.', `HTTP ${response.status}`);
  // NUL characters occur in RespMsg (ActiveMerchant's note): not XML, so they are dropped first.
  const parsed = parseXmlAnswer('Orbital', { ...response, body: response.body.split('\u0000').join('') });
  const error = parsed.ErrorResponse;
  if (error !== null && typeof error === 'object' && !Array.isArray(error)) return { kind: 'ErrorResponse', fields: error as Record<string, unknown> };
  const root = parsed.Response as Record<string, unknown> | undefined;
  if (root === undefined || root === null || typeof root !== 'object') throw new GatewayFaultError('Orbital returned an unexpected response.', 'Response: missing');
  const entry = Object.entries(root).find(([, value]) => value !== null && typeof value === 'object' && !Array.isArray(value));
  if (entry === undefined) throw new GatewayFaultError('Orbital returned an unexpected response.', 'Response: empty');
  return { kind: entry[0], fields: entry[1] as Record<string, unknown> };
}
