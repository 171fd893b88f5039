import {
  cryptogramFor,
  networkTokenOf,
  twoDigitEci,
  walletOf,
  type WalletPaymentMethod,
  GatewayFaultError,
  faultOnServerError,
  formEncode,
  parseJsonAnswer,
  requireCredential,
  scrubFormFields,
  scrubWith,
  type AdapterPaymentMethod,
  type FormValue,
  type GatewayCall,
  type GatewayRequest,
} from '../kit/index.js';
import type { StripeError } from './stripe-mapping.js';

export const STRIPE_API_VERSION = '2024-06-20';

/** One Stripe answer: HTTP status and the JSON object (an `error` object on 4xx). */
export interface StripeReply {
  status: number;
  json: Record<string, unknown> & { error?: StripeError; id?: string; status?: string };
}

/**
 * Stripe-specific scrubbing on top of the shared rules: card fields at any nesting depth of the
 * form encoding (`payment_method_data[card][cvc]`, URL-encoded or not), secret keys and client secrets.
 */
export const scrubStripe = scrubWith(
  scrubFormFields('number', 'cvc'),
  (text) => text.replace(/\b(sk|rk)_(live|test)_[A-Za-z0-9]+/g, '$1_$2_[FILTERED]'),
  (text) => text.replace(/("client_secret"\s*:\s*)"[^"]*"/g, '$1"[FILTERED]"'),
);

/**
 * One API call (`login` = the secret key). 5xx and unparseable answers are faults; 4xx carry
 * Stripe's error object (401/403 become a `config_error` decline). POSTs carry Coffer's
 * transaction token (plus `keySuffix` for a second request of one operation) as Idempotency-Key.
 */
export async function stripeCall(call: GatewayCall, method: 'POST' | 'GET', path: string, fields: Record<string, FormValue>, keySuffix = ''): Promise<StripeReply> {
  const key = requireCredential(call.request, 'login');
  const encoded = formEncode(fields);
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, 'stripe-version': STRIPE_API_VERSION };
  if (method === 'POST') {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    headers['idempotency-key'] = `${call.request.transactionToken}${keySuffix}`;
  }
  const response = await call.http.send({
    method,
    path: `${path}${method === 'GET' && encoded !== '' ? `?${encoded}` : ''}`,
    headers,
    ...(method === 'POST' ? { body: encoded } : {}),
  });
  faultOnServerError('Stripe', response);
  const json = parseJsonAnswer('Stripe', response) as StripeReply['json'];
  if (response.status >= 400 && json.error === undefined) throw new GatewayFaultError('Stripe returned an unexpected response.', `HTTP ${response.status}`);
  if (response.status === 401 || response.status === 403) {
    return { status: response.status, json: { error: { ...json.error, code: 'authentication_error', type: 'invalid_request_error' } } };
  }
  return { status: response.status, json };
}

export function referenceId(request: GatewayRequest): string {
  const id = request.reference?.gatewayTransactionId;
  if (id === null || id === undefined) throw new GatewayFaultError('No Stripe id to refer to.', 'reference without gateway_transaction_id');
  return encodeURIComponent(id);
}

/**
 * Stripe's `tokenization_method` for a wallet's DPAN (Stripe's "network tokens" for Apple Pay and
 * Google Pay; ActiveMerchant's stripe_payment_intents sends the same names).
 */
const TOKENIZATION_METHOD = { apple_pay: 'apple_pay', google_pay: 'google_pay_dpan' } as const;

/**
 * A wallet token as `payment_method_data`: a network token's DPAN under `card[network_token]` (its
 * cryptogram goes in `payment_method_options`, see `networkTokenOptions`); a Google Pay PAN_ONLY
 * card as a card, marked as Google Pay in its metadata.
 */
function walletMethodData(method: WalletPaymentMethod): FormValue {
  const number = method.number.reveal();
  const name = [method.firstName, method.lastName].filter((part) => part !== null).join(' ') || undefined;
  if (!method.networkToken) {
    return { type: 'card', card: { number, exp_month: method.month, exp_year: method.year }, billing_details: { name, email: method.email }, metadata: { input_method: 'GooglePay' } };
  }
  return {
    type: 'card',
    card: {
      last4: number.slice(-4),
      exp_month: method.month,
      exp_year: method.year,
      network_token: { number, exp_month: method.month, exp_year: method.year, tokenization_method: TOKENIZATION_METHOD[method.type] },
    },
    billing_details: { name, email: method.email },
  };
}

/** `payment_method_options[card][network_token]`: the wallet's cryptogram and ECI, on a cardholder-initiated charge. */
export function networkTokenOptions(request: GatewayRequest): Record<string, FormValue> | undefined {
  const wallet = networkTokenOf(request.paymentMethod);
  if (wallet === null) return undefined;
  const cryptogram = cryptogramFor(request, wallet);
  if (cryptogram === null) return undefined;
  return { cryptogram, electronic_commerce_indicator: twoDigitEci(wallet.eci) ?? undefined };
}

export function paymentMethodData(method: AdapterPaymentMethod | null): FormValue {
  const wallet = walletOf(method);
  if (wallet !== null) return walletMethodData(wallet);
  if (method === null || method.type !== 'credit_card') return undefined;
  return {
    type: 'card',
    card: { number: method.number.reveal(), exp_month: method.month, exp_year: method.year, cvc: method.verificationValue?.reveal() },
    billing_details: {
      name: [method.firstName, method.lastName].filter((part) => part !== null).join(' ') || undefined,
      email: method.email,
      address: { line1: method.address.address1, line2: method.address.address2, city: method.address.city, state: method.address.state, postal_code: method.address.zip, country: method.address.country },
    },
  };
}

/** A card vaulted at Stripe by `store` is referred to by its ids, not sent again. */
export function paymentMethodReference(method: AdapterPaymentMethod | null): Record<string, FormValue> {
  if (method === null || method.type !== 'third_party_token') return {};
  const [customer, paymentMethod] = method.token.split('|');
  return { customer, payment_method: paymentMethod, payment_method_data: undefined };
}

export function shipping(request: GatewayRequest): FormValue {
  const address = request.shippingAddress;
  if (address === null || address.name === null) return undefined;
  return {
    name: address.name,
    phone: address.phone_number,
    address: { line1: address.address1, line2: address.address2, city: address.city, state: address.state, postal_code: address.zip, country: address.country },
  };
}
