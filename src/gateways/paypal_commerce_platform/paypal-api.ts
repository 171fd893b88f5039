import { createHash } from 'node:crypto';
import { z } from 'zod';
import {
  decimalAmount,
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  parseJsonAnswer,
  readAnswer,
  requireCredential,
  scrubJsonKeys,
  scrubWith,
  type AdapterPaymentMethod,
  type GatewayCall,
  type GatewayRequest,
  type GatewayResponse,
  type OutboundResponse,
} from '../kit/index.js';
import { errorAnswerResponse, type PayPalErrorAnswer } from './paypal-mapping.js';

export const PAYPAL_TEST_BASE = 'https://api-m.sandbox.paypal.com';
export const PAYPAL_LIVE_BASE = 'https://api-m.paypal.com';

/** Currencies PayPal takes without decimals although ISO 4217 gives them two (PayPal's "Currency codes" page). */
export const PAYPAL_EXPONENTS = { HUF: 0, TWD: 0 } as const;

export function paypalEndpoint(request: GatewayRequest): string {
  return request.testMode ? PAYPAL_TEST_BASE : PAYPAL_LIVE_BASE;
}

/** PayPal's names for card data and the OAuth token in answers, on top of the shared rules (Authorization headers, `number`). */
export const scrubPayPal = scrubWith(scrubJsonKeys('number', 'security_code', 'expiry', 'access_token'));

/** Tokens are renewed this long before PayPal says they expire, so none expires in flight. */
const EXPIRY_MARGIN_MS = 60_000;

interface CachedToken {
  value: string;
  expiresAt: number;
}

/**
 * OAuth2 access tokens per gateway credentials and PayPal base URL, in memory only: keyed by a
 * SHA-256 of client id, secret and origin (the secret itself is never a key), never logged.
 * A fetch in flight is shared by concurrent calls of the same credentials.
 */
const tokens = new Map<string, CachedToken>();
const inFlight = new Map<string, Promise<string | GatewayResponse>>();

const tokenAnswer = z.object({ access_token: z.string().min(1), token_type: z.string().optional(), expires_in: z.coerce.number().positive() });
const oauthError = z.object({ error: z.string(), error_description: z.string().optional() });

function tokenKey(call: GatewayCall): string {
  const clientId = requireCredential(call.request, 'login');
  const secret = requireCredential(call.request, 'password');
  return createHash('sha256').update(`${call.http.url('/v1/oauth2/token')}\u0000${clientId}\u0000${secret}`).digest('hex');
}

/**
 * POST /v1/oauth2/token with the client id and secret as Basic auth (grant_type client_credentials).
 * Returns the token, or the decline a refused client stands for (config_error: nothing was charged).
 */
async function fetchToken(call: GatewayCall, key: string): Promise<string | GatewayResponse> {
  const basic = Buffer.from(`${requireCredential(call.request, 'login')}:${requireCredential(call.request, 'password')}`, 'utf8').toString('base64');
  const response = await call.http.postForm('/v1/oauth2/token', { grant_type: 'client_credentials' }, { authorization: `Basic ${basic}`, accept: 'application/json' });
  faultOnServerError('PayPal', response);
  const json = parseJsonAnswer('PayPal', response);
  if (response.status === 400 || response.status === 401 || response.status === 403) {
    const error = readAnswer('PayPal', oauthError, json);
    return errorAnswerResponse(401, { name: error.error, message: error.error_description ?? error.error, details: [] }, 'config_error');
  }
  if (response.status !== 200) throw new GatewayFaultError('PayPal returned an unexpected response.', `HTTP ${response.status} from the token endpoint`);
  const answer = readAnswer('PayPal', tokenAnswer, json);
  // Expired tokens of other credentials (a gateway redacted or re-keyed) are dropped on the way.
  const now = Date.now();
  for (const [other, cached] of tokens) if (cached.expiresAt <= now) tokens.delete(other);
  tokens.set(key, { value: answer.access_token, expiresAt: Date.now() + answer.expires_in * 1000 - EXPIRY_MARGIN_MS });
  return answer.access_token;
}

/** A valid access token for the call's credentials: cached until it expires, fetched otherwise. */
async function accessToken(call: GatewayCall, key: string, fresh: boolean): Promise<string | GatewayResponse> {
  const cached = tokens.get(key);
  if (!fresh && cached !== undefined && cached.expiresAt > Date.now()) return cached.value;
  tokens.delete(key);
  const pending = inFlight.get(key);
  if (pending !== undefined) return pending;
  const fetching = fetchToken(call, key).finally(() => inFlight.delete(key));
  inFlight.set(key, fetching);
  return fetching;
}

const errorSchema = z.object({
  name: z.string(),
  message: z.string().optional(),
  debug_id: z.string().optional(),
  details: z.array(z.object({ issue: z.string(), description: z.string().optional(), field: z.string().optional() })).optional(),
});

/** One answer: the parsed JSON of a 2xx (an empty 204 is `{}`), or the decline a 4xx stands for. */
export type PayPalReply = { ok: true; status: number; json: Record<string, unknown> } | { ok: false; response: GatewayResponse };

/**
 * POSTs `body` to `path` with a Bearer token and `PayPal-Request-Id` (Coffer's transaction token,
 * plus `requestSuffix` for a second call of the same transaction). A 401 means the cached token
 * was revoked or expired early: the token is fetched again and the call repeated once (the same
 * request id makes the repeat safe). 5xx and unreadable answers are faults; a 4xx is a decline.
 */
export async function paypalPost(call: GatewayCall, path: string, body: Record<string, unknown> | null, requestSuffix = ''): Promise<PayPalReply> {
  const key = tokenKey(call);
  let response: OutboundResponse | undefined;
  for (const fresh of [false, true]) {
    const token = await accessToken(call, key, fresh);
    if (typeof token !== 'string') return { ok: false, response: token };
    response = await call.http.postJson(path, body ?? {}, {
      authorization: `Bearer ${token}`,
      'paypal-request-id': `${call.request.transactionToken}${requestSuffix}`,
      prefer: 'return=representation',
    });
    if (response.status !== 401) break;
    tokens.delete(key);
  }
  const answer = response as OutboundResponse;
  faultOnServerError('PayPal', answer);
  if (answer.status === 204 && answer.body.trim() === '') return { ok: true, status: 204, json: {} };
  const json = parseJsonAnswer('PayPal', answer);
  if (answer.status >= 400) {
    const security = answer.status === 401 || answer.status === 403;
    const parsed = errorSchema.safeParse(json);
    if (!parsed.success && security) return { ok: false, response: errorAnswerResponse(answer.status, { name: String(json.error ?? 'NOT_AUTHORIZED'), message: String(json.error_description ?? 'Authorization failed'), details: [] }, 'config_error') };
    const error = readAnswer('PayPal', errorSchema, json) as PayPalErrorAnswer;
    return { ok: false, response: errorAnswerResponse(answer.status, error, security ? 'config_error' : null) };
  }
  if (answer.status < 200 || answer.status > 299) throw new GatewayFaultError('PayPal returned an unexpected response.', `HTTP ${answer.status}`);
  return { ok: true, status: answer.status, json };
}

/** `{ currency_code, value }` with the decimals PayPal takes for the currency ("10.00", "1500"). */
export function paypalAmount(amount: number | null, currency: string | null): { currency_code: string; value: string } {
  if (amount === null || currency === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  return { currency_code: currency, value: decimalAmount(amount, currency, PAYPAL_EXPONENTS) };
}

/** `payment_source.card` with raw card data (expiry "YYYY-MM"), name and billing address when the card has them. */
export function cardSource(method: Extract<AdapterPaymentMethod, { type: 'credit_card' }>): Record<string, unknown> {
  if (method.month === null || method.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const name = [method.firstName, method.lastName].filter((part) => part !== null && part !== '').join(' ');
  const { address } = method;
  return {
    name: name === '' ? undefined : name,
    number: method.number.reveal(),
    expiry: `${String(method.year).padStart(4, '0')}-${String(method.month).padStart(2, '0')}`,
    security_code: method.verificationValue?.reveal(),
    billing_address: address.country
      ? {
          address_line_1: address.address1 || undefined,
          address_line_2: address.address2 || undefined,
          admin_area_2: address.city || undefined,
          admin_area_1: address.state || undefined,
          postal_code: address.zip || undefined,
          country_code: address.country,
        }
      : undefined,
  };
}

/** The id of the reference transaction (authorization or capture id); without one nothing can be sent. */
export function referenceId(request: GatewayRequest): string {
  const id = request.reference?.gatewayTransactionId;
  if (id === null || id === undefined || id === '') throw new GatewayInputError('No PayPal id to refer to.', 'processing_error');
  return encodeURIComponent(id);
}
