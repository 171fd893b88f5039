import {
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  optionalCredential,
  parseJsonAnswer,
  requireCredential,
  scrubJsonKeys,
  scrubWith,
  type GatewayCall,
  type GatewayRequest,
} from '../kit/index.js';

/**
 * The `Braintree-Version` Coffer speaks: a date the GraphQL API pins its behaviour to (the version
 * the "Making API Calls" and "Charging payment methods" guides send).
 */
export const BRAINTREE_VERSION = '2019-01-01';

/** The one documented endpoint path; every query and mutation is a POST to it. */
export const GRAPHQL_PATH = '/graphql';

/** One entry of a GraphQL answer's `errors` array, as Braintree fills it. */
export interface GraphQlError {
  message?: string;
  extensions?: { errorClass?: string; legacyCode?: string | number | null };
}

/** A mutation's payload (`data.<mutation>`), or the validation errors Braintree answered instead. */
export interface BraintreeReply {
  payload: Record<string, unknown> | null;
  errors: GraphQlError[];
}

/**
 * `errorClass` values that say the request never reached the payment logic (the Braintree SDKs
 * raise an exception for each): Coffer's credentials, the service or its limits, not the card.
 * VALIDATION (and NOT_FOUND: an id that does not exist) are answers to the request: declines.
 */
const FAULT_CLASSES = new Set(['AUTHENTICATION', 'AUTHORIZATION', 'INTERNAL', 'SERVICE_AVAILABILITY', 'RESOURCE_LIMIT', 'UNSUPPORTED_CLIENT']);

/**
 * Braintree-specific scrubbing on top of the shared rules (which already filter `number`, `cvv`
 * and Basic credentials): payment method ids, as ActiveMerchant filters nonces and vault tokens,
 * since a single-use id can be charged by whoever holds the API keys.
 */
export const scrubBraintree = scrubWith(
  scrubJsonKeys('number', 'cvv', 'cryptogram', 'paymentMethodId'),
  (text) => text.replace(/("paymentMethod"\s*:\s*\{\s*"id"\s*:\s*)"(?:[^"\\]|\\.)*"/g, '$1"[FILTERED]"'),
);

/** `mode` is Spreedly's auth-mode switch; only `blue` (API keys) is a Braintree mode that still exists. */
function checkMode(request: GatewayRequest): void {
  const mode = optionalCredential(request, 'mode');
  if (mode !== undefined && mode !== 'blue') throw new GatewayInputError(`Braintree mode "${mode}" is not supported; use blue (API keys).`, 'config_error');
}

function authorization(request: GatewayRequest): string {
  const publicKey = requireCredential(request, 'public_key');
  const privateKey = requireCredential(request, 'private_key');
  return `Basic ${Buffer.from(`${publicKey}:${privateKey}`, 'utf8').toString('base64')}`;
}

function readErrors(value: unknown): GraphQlError[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw new GatewayFaultError('Braintree returned an unexpected response.', 'errors is not a list');
  return value.filter((entry): entry is GraphQlError => entry !== null && typeof entry === 'object');
}

/**
 * Sends one mutation with `input` as its `$input` variable and returns its payload. Coffer's
 * transaction token travels as `clientMutationId` (Braintree echoes it; it has no idempotency key).
 * A 5xx, an unreadable body, HTTP 401/403 and errors of a fault class (bad API keys, Braintree
 * down or rate-limited) are GatewayFaultErrors; validation errors come back for the caller to
 * map onto a decline.
 */
export async function braintreeCall(call: GatewayCall, query: string, mutation: string, input: Record<string, unknown>): Promise<BraintreeReply> {
  const { request } = call;
  checkMode(request);
  const headers = { authorization: authorization(request), 'braintree-version': BRAINTREE_VERSION };
  const response = await call.http.postJson(GRAPHQL_PATH, { query, variables: { input: { clientMutationId: request.transactionToken, ...input } } }, headers);
  faultOnServerError('Braintree', response);
  if (response.status === 401 || response.status === 403) throw new GatewayFaultError('Braintree refused the API keys.', `HTTP ${response.status}`);
  const json = parseJsonAnswer('Braintree', response);
  const errors = readErrors(json.errors);
  for (const error of errors) {
    const errorClass = error.extensions?.errorClass;
    if (errorClass !== undefined && FAULT_CLASSES.has(errorClass)) {
      throw new GatewayFaultError(`Braintree refused the request (${errorClass.toLowerCase()}).`, `errorClass ${errorClass}`);
    }
  }
  if (response.status !== 200 && errors.length === 0) throw new GatewayFaultError('Braintree returned an unexpected response.', `HTTP ${response.status}`);
  const data = json.data;
  const payload = data !== null && typeof data === 'object' ? (data as Record<string, unknown>)[mutation] : undefined;
  if (payload !== null && payload !== undefined && typeof payload === 'object') return { payload: payload as Record<string, unknown>, errors };
  if (errors.length === 0) throw new GatewayFaultError('Braintree returned an unexpected response.', `data.${mutation} missing`);
  return { payload: null, errors };
}

/** The Braintree id of the transaction a capture, void or credit refers to. */
export function referenceId(request: GatewayRequest): string {
  const id = request.reference?.gatewayTransactionId;
  if (id === null || id === undefined || id === '') throw new GatewayInputError('There is no Braintree transaction to refer to.', 'processing_error');
  return id;
}

/** The merchant account of the call: `gateway_specific_fields[braintree][merchant_account_id]`, else the credential. */
export function merchantAccountId(request: GatewayRequest): string | undefined {
  const field = request.gatewaySpecificFields.merchant_account_id;
  if (typeof field === 'string' && field !== '') return field;
  return optionalCredential(request, 'merchant_account_id');
}
