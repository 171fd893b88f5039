import { z } from 'zod';
import {
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  gatewayMinorUnits,
  optionalCredential,
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
} from '../kit/index.js';
import { serviceErrorResponse, type AdyenServiceError } from './adyen-mapping.js';

/** Checkout API version: every path starts with it. */
export const ADYEN_API_VERSION = 'v71';

export const ADYEN_TEST_BASE = 'https://checkout-test.adyen.com';

/** Where Adyen's minor unit differs from ISO 4217 (Adyen's "Currency codes" page). */
export const ADYEN_EXPONENTS = { CLP: 2, CVE: 0, IDR: 0, ISK: 2 } as const;

/** Sent as `returnUrl` (required by /payments) when `gateway_specific_fields[adyen][return_url]` is absent: Coffer runs no redirect flows. */
export const DEFAULT_RETURN_URL = 'https://coffer.invalid/adyen/return';

/**
 * Test calls go to checkout-test.adyen.com; live calls to the company's own prefix
 * (`subdomain` credential, Customer Area → Developers → API URLs → Prefix), with `/checkout` before
 * the version, as Adyen documents the live URLs.
 */
export function adyenEndpoint(request: GatewayRequest): string {
  if (request.testMode) return ADYEN_TEST_BASE;
  const prefix = optionalCredential(request, 'subdomain');
  if (prefix === undefined) throw new GatewayInputError('Adyen live calls need the live URL prefix: set the subdomain credential.', 'config_error');
  if (!/^[A-Za-z0-9-]+$/.test(prefix)) throw new GatewayInputError('The subdomain credential is not a valid Adyen live URL prefix.', 'config_error');
  return `https://${prefix}-checkout-live.adyenpayments.com/checkout`;
}

/** Adyen's field names for card data and its API key header, on top of the shared rules. */
export const scrubAdyen = scrubWith(scrubJsonKeys('number', 'cvc', 'expiryMonth', 'expiryYear', 'cavv'), scrubHeaders('x-api-key'));

/** API key (X-API-Key) when the gateway has one, else the web service user (Basic). */
function authHeaders(request: GatewayRequest): Record<string, string> {
  const apiKey = optionalCredential(request, 'api_key');
  if (apiKey !== undefined) return { 'x-api-key': apiKey };
  const user = requireCredential(request, 'username');
  const password = requireCredential(request, 'password');
  return { authorization: `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}` };
}

const serviceErrorSchema = z.object({
  status: z.number().optional(),
  errorCode: z.coerce.string(),
  message: z.string(),
  errorType: z.string().optional(),
  pspReference: z.string().optional(),
});

/** One answer: the parsed JSON of a 2xx, or the decline a 4xx ServiceError stands for. */
export type AdyenReply = { ok: true; status: number; json: Record<string, unknown> } | { ok: false; response: GatewayResponse };

/**
 * POSTs `body` to `path` (after the version) with Coffer's transaction token as Idempotency-Key.
 * 5xx and unreadable answers are faults; a 4xx must be a ServiceError (else a fault) and becomes a
 * decline with its standard code.
 */
export async function adyenPost(call: GatewayCall, path: string, body: Record<string, unknown>, keySuffix = ''): Promise<AdyenReply> {
  const response = await call.http.postJson(`/${ADYEN_API_VERSION}${path}`, body, { ...authHeaders(call.request), 'idempotency-key': `${call.request.transactionToken}${keySuffix}` });
  faultOnServerError('Adyen', response);
  const json = parseJsonAnswer('Adyen', response);
  if (response.status >= 400) return { ok: false, response: serviceErrorResponse(response.status, readAnswer('Adyen', serviceErrorSchema, json) as AdyenServiceError) };
  if (response.status < 200 || response.status > 299) throw new GatewayFaultError('Adyen returned an unexpected response.', `HTTP ${response.status}`);
  return { ok: true, status: response.status, json };
}

/** `{ value, currency }` in Adyen's minor unit. */
export function adyenAmount(amount: number | null, currency: string | null): { value: number; currency: string } {
  if (amount === null || currency === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  return { value: gatewayMinorUnits(amount, currency, ADYEN_EXPONENTS), currency };
}

/** A gateway-specific field given as text, if it was. */
export function specificText(request: GatewayRequest, name: string): string | undefined {
  const value = request.gatewaySpecificFields[name];
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}

const RECURRING_MODELS = ['CardOnFile', 'Subscription', 'UnscheduledCardOnFile'];

/** `recurringProcessingModel` for stored cards: the gateway-specific field, else UnscheduledCardOnFile (merchant-initiated reuse). */
export function recurringModel(request: GatewayRequest): string {
  const given = specificText(request, 'recurring_processing_model');
  if (given === undefined) return 'UnscheduledCardOnFile';
  if (!RECURRING_MODELS.includes(given)) throw new GatewayInputError(`recurring_processing_model must be one of ${RECURRING_MODELS.join(', ')}.`, 'processing_error');
  return given;
}

/** A card as Adyen's `scheme` payment method with raw fields (PCI merchants): expiry as "03" and "2030". */
export function schemeCard(method: Pick<Extract<AdapterPaymentMethod, { type: 'credit_card' }>, 'number' | 'month' | 'year' | 'firstName' | 'lastName' | 'verificationValue'>): Record<string, unknown> {
  if (method.month === null || method.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const holderName = [method.firstName, method.lastName].filter((part) => part !== null && part !== '').join(' ');
  return {
    type: 'scheme',
    number: method.number.reveal(),
    expiryMonth: String(method.month).padStart(2, '0'),
    expiryYear: String(method.year),
    holderName: holderName === '' ? undefined : holderName,
    cvc: method.verificationValue?.reveal(),
  };
}

/**
 * `billingAddress` when the card has a country and postal code: street, house number and city are
 * required by Adyen's schema, so missing ones are sent as "N/A" (as ActiveMerchant does).
 */
export function billingAddress(method: Extract<AdapterPaymentMethod, { type: 'credit_card' }>): Record<string, unknown> | undefined {
  const { address } = method;
  if (!address.country || !address.zip) return undefined;
  return {
    street: address.address1 || 'N/A',
    houseNumberOrName: address.address2 || 'N/A',
    postalCode: address.zip,
    city: address.city || 'N/A',
    stateOrProvince: address.state || undefined,
    country: address.country,
  };
}

/** A card stored by `store` is `shopperReference|storedPaymentMethodId`. */
export function storedCard(token: string): { shopperReference: string; storedPaymentMethodId: string } {
  const separator = token.lastIndexOf('|');
  if (separator <= 0 || separator === token.length - 1) throw new GatewayInputError('The third_party_token is not an Adyen stored card (shopperReference|storedPaymentMethodId).', 'invalid_number');
  return { shopperReference: token.slice(0, separator), storedPaymentMethodId: token.slice(separator + 1) };
}

/**
 * The pspReferences a reference transaction stands for: a payment's is its own; a capture or refund
 * is recorded as `paymentPspReference#modificationPspReference`, since refunds of a capture go to the
 * payment's reference with the capture's as `capturePspReference`.
 */
export function referencePsp(request: GatewayRequest): { payment: string; modification: string | null } {
  const id = request.reference?.gatewayTransactionId;
  if (id === null || id === undefined || id === '') throw new GatewayFaultError('No Adyen pspReference to refer to.', 'reference without gateway_transaction_id');
  const [payment, modification] = id.split('#');
  return { payment: payment as string, modification: modification ?? null };
}
