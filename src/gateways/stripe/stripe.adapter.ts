import type { Secret } from '../../domain/secret.js';
import {
  blankResponse,
  GatewayFaultError,
  type AdapterPaymentMethod,
  type GatewayAdapter,
  type GatewayRequest,
  type GatewayResponse,
  type TranscriptEntry,
} from '../adapter.js';
import type { GatewayHttpClient } from '../http-client.js';
import { formEncode, type FormValue } from './form.js';
import { declineResponse, paymentIntentResponse, type IntentLike, type StripeError } from './stripe-mapping.js';

export const STRIPE_API_VERSION = '2024-06-20';

export interface StripeAdapterOptions {
  baseUrl: string;
  timeoutMs: number;
}

interface Reply {
  status: number;
  json: Record<string, unknown> & { error?: StripeError; id?: string; status?: string };
}

/**
 * Stripe-specific scrubbing on top of the shared rules: card fields at any nesting depth of the
 * form encoding (`payment_method_data[card][cvc]`, URL-encoded or not), secret keys and client secrets.
 */
export function scrubStripe(text: string): string {
  return text
    .replace(/((?:%5B|\[)(?:number|cvc)(?:%5D|\])=)[^&\s]*/gi, '$1[FILTERED]')
    .replace(/\b(sk|rk)_(live|test)_[A-Za-z0-9]+/g, '$1_$2_[FILTERED]')
    .replace(/("client_secret"\s*:\s*)"[^"]*"/g, '$1"[FILTERED]"');
}

/** Statuses meaning success, per operation. */
const SUCCESS: Record<'purchase' | 'authorize' | 'capture' | 'void' | 'complete', readonly string[]> = {
  purchase: ['succeeded'],
  authorize: ['requires_capture', 'succeeded'],
  capture: ['succeeded'],
  void: ['canceled'],
  complete: ['succeeded', 'requires_capture'],
};

/**
 * Stripe through the PaymentIntents API (`login` = secret key): purchase and authorize create and
 * confirm a PaymentIntent (automatic or manual capture), capture and void act on it, credit is a
 * refund, verify is a confirmed SetupIntent, store creates a PaymentMethod and a Customer.
 * Coffer's transaction token is Stripe's Idempotency-Key, so a retried call never charges twice.
 */
export class StripeAdapter implements GatewayAdapter {
  constructor(
    private readonly http: GatewayHttpClient,
    private readonly options: StripeAdapterOptions,
  ) {}

  async execute(request: GatewayRequest, transcript: TranscriptEntry[]): Promise<GatewayResponse> {
    const key = request.credentials.login;
    if (key === undefined) return { ...blankResponse(false, 'Missing Stripe secret key'), errorCode: 'config_error' };
    switch (request.operation) {
      case 'purchase':
      case 'authorize': {
        const reply = await this.call(key, request, transcript, 'POST', '/v1/payment_intents', {
          amount: request.amount,
          currency: request.currencyCode?.toLowerCase(),
          capture_method: request.operation === 'purchase' ? 'automatic' : 'manual',
          confirm: true,
          payment_method_types: ['card'],
          payment_method_data: paymentMethodData(request.paymentMethod),
          ...paymentMethodReference(request.paymentMethod),
          description: request.description,
          receipt_email: request.email,
          metadata: request.orderId === null ? undefined : { order_id: request.orderId },
          shipping: shipping(request),
          payment_method_options: request.attempt3dsecure ? { card: { request_three_d_secure: 'any' } } : undefined,
          expand: ['latest_charge'],
          ...(request.gatewaySpecificFields as Record<string, FormValue>),
        });
        return this.intentOutcome(reply, request.operation === 'purchase' ? 'Transaction approved' : 'Transaction authorized', SUCCESS[request.operation]);
      }
      case 'capture': {
        const reply = await this.call(key, request, transcript, 'POST', `/v1/payment_intents/${referenceId(request)}/capture`, {
          amount_to_capture: request.amount,
          expand: ['latest_charge'],
        });
        return this.intentOutcome(reply, 'Transaction captured', SUCCESS.capture);
      }
      case 'complete': {
        // A pending verification is a SetupIntent; everything else a PaymentIntent.
        if (request.reference?.transactionType === 'Verification') {
          const reply = await this.call(key, request, transcript, 'GET', `/v1/setup_intents/${referenceId(request)}`, {});
          return this.intentOutcome(reply, 'Card verified', ['succeeded']);
        }
        const reply = await this.call(key, request, transcript, 'GET', `/v1/payment_intents/${referenceId(request)}`, { expand: ['latest_charge'] });
        return this.intentOutcome(reply, 'Transaction approved', SUCCESS.complete);
      }
      case 'void': {
        const reply = await this.call(key, request, transcript, 'POST', `/v1/payment_intents/${referenceId(request)}/cancel`, {});
        return this.intentOutcome(reply, 'Transaction voided', SUCCESS.void);
      }
      case 'credit': {
        const reply = await this.call(key, request, transcript, 'POST', '/v1/refunds', {
          payment_intent: referenceId(request),
          amount: request.amount,
          metadata: request.orderId === null ? undefined : { order_id: request.orderId },
        });
        if (reply.json.error !== undefined) return declineResponse(reply.json.error);
        const ok = reply.json.status === 'succeeded' || reply.json.status === 'pending';
        return { ...blankResponse(ok, ok ? 'Transaction refunded' : `Refund is ${String(reply.json.status)}`), gatewayTransactionId: reply.json.id ?? null };
      }
      case 'verify': {
        const reply = await this.call(key, request, transcript, 'POST', '/v1/setup_intents', {
          confirm: true,
          usage: 'off_session',
          payment_method_types: ['card'],
          payment_method_data: paymentMethodData(request.paymentMethod),
          ...paymentMethodReference(request.paymentMethod),
        });
        if (reply.json.error !== undefined) return declineResponse(reply.json.error);
        const ok = reply.json.status === 'succeeded';
        return { ...blankResponse(ok, ok ? 'Card verified' : `Setup intent is ${String(reply.json.status)}`), gatewayTransactionId: reply.json.id ?? null, pending: reply.json.status === 'requires_action' };
      }
      case 'store': {
        const method = await this.call(key, request, transcript, 'POST', '/v1/payment_methods', paymentMethodData(request.paymentMethod) as Record<string, FormValue>);
        if (method.json.error !== undefined) return declineResponse(method.json.error);
        const customer = await this.call(key, { ...request, transactionToken: `${request.transactionToken}-customer` }, transcript, 'POST', '/v1/customers', {
          payment_method: method.json.id,
          email: request.email,
        });
        if (customer.json.error !== undefined) return declineResponse(customer.json.error);
        return { ...blankResponse(true, 'Card stored'), gatewayTransactionId: customer.json.id ?? null, thirdPartyToken: `${String(customer.json.id)}|${String(method.json.id)}` };
      }
      default:
        return { ...blankResponse(false, `Stripe does not support ${request.operation}`), errorCode: 'unsupported_feature' };
    }
  }

  private intentOutcome(reply: Reply, successMessage: string, successStatuses: readonly string[]): GatewayResponse {
    if (reply.json.error !== undefined) return declineResponse(reply.json.error);
    if (typeof reply.json.id !== 'string' || typeof reply.json.status !== 'string') {
      throw new GatewayFaultError('Stripe returned an unexpected response.', 'no intent id or status');
    }
    return paymentIntentResponse(reply.json as unknown as IntentLike, successMessage, successStatuses);
  }

  /** One API call. 5xx and unparseable answers are faults; 4xx carry Stripe's error object. */
  private async call(key: Secret, request: GatewayRequest, transcript: TranscriptEntry[], method: 'POST' | 'GET', path: string, fields: Record<string, FormValue>): Promise<Reply> {
    const encoded = formEncode(fields);
    const headers: Record<string, string> = { authorization: `Bearer ${key.reveal()}`, 'stripe-version': STRIPE_API_VERSION };
    if (method === 'POST') {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      headers['idempotency-key'] = request.transactionToken;
    }
    const response = await this.http.send(
      {
        method,
        url: `${this.options.baseUrl}${path}${method === 'GET' && encoded !== '' ? `?${encoded}` : ''}`,
        headers,
        ...(method === 'POST' ? { body: encoded } : {}),
        timeoutMs: this.options.timeoutMs,
      },
      transcript,
      scrubStripe,
    );
    let parsed: unknown;
    try {
      parsed = JSON.parse(response.body);
    } catch {
      throw new GatewayFaultError('Stripe returned an unreadable response.', `HTTP ${response.status}, not JSON`);
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new GatewayFaultError('Stripe returned an unexpected response.', `HTTP ${response.status}, not a JSON object`);
    }
    const json = parsed as Reply['json'];
    if (response.status >= 500) throw new GatewayFaultError('Stripe returned an error.', `HTTP ${response.status}`);
    if (response.status >= 400 && json.error === undefined) throw new GatewayFaultError('Stripe returned an unexpected response.', `HTTP ${response.status}`);
    if (response.status === 401 || response.status === 403) {
      return { status: response.status, json: { error: { ...json.error, code: 'authentication_error', type: 'invalid_request_error' } } };
    }
    return { status: response.status, json };
  }
}

function referenceId(request: GatewayRequest): string {
  const id = request.reference?.gatewayTransactionId;
  if (id === null || id === undefined) throw new GatewayFaultError('No Stripe id to refer to.', 'reference without gateway_transaction_id');
  return encodeURIComponent(id);
}

function paymentMethodData(method: AdapterPaymentMethod | null): FormValue {
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
function paymentMethodReference(method: AdapterPaymentMethod | null): Record<string, FormValue> {
  if (method === null || method.type !== 'third_party_token') return {};
  const [customer, paymentMethod] = method.token.split('|');
  return { customer, payment_method: paymentMethod, payment_method_data: undefined };
}

function shipping(request: GatewayRequest): FormValue {
  const address = request.shippingAddress;
  if (address === null || address.name === null) return undefined;
  return {
    name: address.name,
    phone: address.phone_number,
    address: { line1: address.address1, line2: address.address2, city: address.city, state: address.state, postal_code: address.zip, country: address.country },
  };
}
