import { randomBytes } from 'node:crypto';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';

/**
 * A fake Stripe API on 127.0.0.1 for Coffer's tests: a real HTTP server speaking the subset of
 * Stripe's public REST API the Stripe adapter uses (PaymentIntents, SetupIntents, Refunds,
 * PaymentMethods, Customers), form-encoded requests and JSON answers shaped as Stripe's API
 * reference documents them, Stripe's test card numbers, Bearer secret keys and Idempotency-Key
 * replay. State lives in memory. Every request is recorded for assertions, and a test can switch
 * the server into a failure mode (500, garbage, hang, connection reset).
 *
 * Written from Stripe's public API reference; response objects carry the fields Coffer reads and
 * the ones a reader of a transcript expects, not every field Stripe returns.
 */

/** How the server answers every request from now on. */
export type { FakeMode as FakeStripeMode } from './fake-gateway-server.js';

export interface RecordedRequest {
  method: string;
  /** The path without the query string, e.g. `/v1/payment_intents`. */
  path: string;
  query: Record<string, string | string[]>;
  /** Header names in lower case. */
  headers: Record<string, string>;
  rawBody: string;
  /** The form body decoded; a name sent more than once (`expand[]`) maps to an array. */
  form: Record<string, string | string[]>;
}

type Json = Record<string, unknown>;
type Checks = { address_line1_check: string | null; address_postal_code_check: string | null; cvc_check: string | null };
type Behaviour =
  | { kind: 'approve'; checks?: Partial<Checks> }
  | { kind: 'decline'; code: string; declineCode?: string; message: string; param?: string }
  | { kind: 'authenticate' };

const DECLINED = 'Your card was declined.';

/** Stripe's documented test card numbers and what they do (https://docs.stripe.com/testing). */
const CARDS: Record<string, Behaviour> = {
  '4242424242424242': { kind: 'approve' },
  '5555555555554444': { kind: 'approve' },
  '4000000000000010': { kind: 'approve', checks: { address_line1_check: 'fail', address_postal_code_check: 'fail' } },
  '4000000000000002': { kind: 'decline', code: 'card_declined', declineCode: 'generic_decline', message: DECLINED },
  '4000000000009995': { kind: 'decline', code: 'card_declined', declineCode: 'insufficient_funds', message: 'Your card has insufficient funds.' },
  '4000000000000069': { kind: 'decline', code: 'expired_card', message: 'Your card has expired.', param: 'exp_month' },
  '4000000000000127': { kind: 'decline', code: 'incorrect_cvc', message: "Your card's security code is incorrect.", param: 'cvc' },
  '4000000000000119': { kind: 'decline', code: 'processing_error', message: 'An error occurred while processing your card. Try again in a little bit.' },
  '4000002500003155': { kind: 'authenticate' },
};

class StripeHttpError extends Error {
  constructor(
    readonly status: number,
    readonly error: Json,
  ) {
    super(String(error.message));
  }
}

const invalid = (message: string, extra: Json = {}, status = 400) => new StripeHttpError(status, { type: 'invalid_request_error', message, ...extra });
const missing = (param: string) => invalid(`Missing required param: ${param}.`, { code: 'parameter_missing', param });
const noSuch = (kind: string, id: string, param?: string) =>
  invalid(`No such ${kind}: '${id}'`, { code: 'resource_missing', ...(param === undefined ? {} : { param }) }, param === undefined ? 404 : 400);

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return digits.length >= 12 && sum % 10 === 0;
}

function brandOf(number: string): string {
  if (number.startsWith('4')) return 'visa';
  if (/^(5[1-5]|2[2-7])/.test(number)) return 'mastercard';
  if (/^3[47]/.test(number)) return 'amex';
  if (number.startsWith('6')) return 'discover';
  return 'unknown';
}

function parseForm(text: string): Record<string, string | string[]> {
  const form: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const seen = form[name];
    form[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  return form;
}

/** Read access to a decoded form: one field, or every `prefix[name]` field as `{ name: value }`. */
class Form {
  constructor(private readonly fields: Record<string, string | string[]>) {}

  get(name: string): string | undefined {
    const value = this.fields[name];
    return Array.isArray(value) ? value.at(-1) : value;
  }

  list(name: string): string[] {
    const value = this.fields[name];
    return value === undefined ? [] : Array.isArray(value) ? value : [value];
  }

  /** `under('metadata')` of `metadata[order_id]=7` is `{ order_id: '7' }` (one level). */
  under(prefix: string): Record<string, string> {
    const out: Record<string, string> = {};
    const start = `${prefix}[`;
    for (const name of Object.keys(this.fields)) {
      if (name.startsWith(start) && name.endsWith(']') && !name.slice(start.length, -1).includes('[')) out[name.slice(start.length, -1)] = this.get(name) as string;
    }
    return out;
  }

  /** The fields below `prefix[inner]` as a form of their own (`payment_method_data[card]` → `number`, …). */
  scope(prefix: string): Form {
    const out: Record<string, string | string[]> = {};
    const start = `${prefix}[`;
    for (const [name, value] of Object.entries(this.fields)) {
      if (!name.startsWith(start)) continue;
      const rest = name.slice(start.length);
      const close = rest.indexOf(']');
      out[rest.slice(0, close) + rest.slice(close + 1)] = value;
    }
    return new Form(out);
  }
}

export interface Card {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string | null;
}
interface PaymentMethod {
  json: Json;
  card: Card;
  customer: string | null;
}
interface Intent {
  json: Json;
  paymentMethod: PaymentMethod | null;
  multicapture: boolean;
}

/** A running fake Stripe. `url` is its base URL (`http://127.0.0.1:<port>`). */
export class FakeStripe {
  /** Secret keys the fake accepts; any other Bearer key is answered 401. */
  readonly apiKeys: Set<string>;
  readonly intents = new Map<string, Intent>();
  readonly charges = new Map<string, Json>();
  readonly refunds = new Map<string, Json>();
  readonly setupIntents = new Map<string, Json>();
  readonly paymentMethods = new Map<string, PaymentMethod>();
  readonly customers = new Map<string, Json>();
  /**
   * When set, every card is declined with the message (and decline code) made from it: some
   * gateways echo the card number in their text, and Coffer must not keep it.
   */
  echoingDecline: ((card: Card) => { message: string; declineCode?: string }) | null = null;
  /** When true, requests are carried out but their answers never leave (a connection lost after sending). */
  answersLost = false;
  /** Searches that answer empty before new intents show (Stripe's search index lags behind). */
  searchLag = 0;
  private readonly idempotent = new Map<string, { fingerprint: string; status: number; body: string }>();
  private server: FakeGatewayServer | null = null;
  url = '';

  constructor(apiKeys: string[] = ['sk_test_fake_coffer_0000']) {
    this.apiKeys = new Set(apiKeys);
  }

  async start(): Promise<this> {
    // One catch-all route: Stripe's own dispatch (auth, idempotency, resources) is below.
    this.server = await FakeGatewayServer.start([
      {
        method: '*',
        path: /^/,
        handle: (request) => {
          const answer = this.answer(request);
          // Carried out, never answered: Coffer's call times out with the intent made (for reconciliation).
          return this.answersLost ? new Promise<FakeAnswer>(() => undefined) : answer;
        },
      },
    ]);
    this.url = this.server.url;
    return this;
  }

  async close(): Promise<void> {
    const server = this.server;
    if (server === null) return;
    this.server = null;
    await server.close();
  }

  /** Every request received, oldest first, with its form body decoded. */
  get requests(): RecordedRequest[] {
    return (this.server?.requests ?? []).map(recorded);
  }

  /** From now on: answer normally, 500, `body` with status 200 (garbage), never (hang), or reset the connection. */
  setMode(mode: 'normal' | 'error500' | 'garbage' | 'hang' | 'reset', options: { body?: string } = {}): void {
    this.server?.setMode(mode, options);
  }

  /** Requests sent with this Idempotency-Key. */
  requestsWithKey(key: string): RecordedRequest[] {
    return this.requests.filter((request) => request.headers['idempotency-key'] === key);
  }

  lastRequest(): RecordedRequest {
    const last = this.requests.at(-1);
    if (last === undefined) throw new Error('the fake Stripe received no request');
    return last;
  }

  /** The cardholder finished (or failed) 3-D Secure on a PaymentIntent waiting in `requires_action`. */
  authenticate(intentId: string, succeed = true): void {
    const intent = this.intents.get(intentId);
    if (intent === undefined || intent.json.status !== 'requires_action') throw new Error(`${intentId} is not waiting for authentication`);
    intent.json.next_action = null;
    if (succeed) {
      this.approve(intent, {});
    } else {
      intent.json.status = 'requires_payment_method';
      intent.json.last_payment_error = {
        type: 'invalid_request_error',
        code: 'payment_intent_authentication_failure',
        message: 'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
      };
    }
  }

  private answer(request: FakeRequest): FakeAnswer {
    const recordedRequest = recorded(request);
    const { headers, rawBody } = recordedRequest;
    const key = /^Bearer (\S+)$/.exec(headers.authorization ?? '')?.[1];
    if (key === undefined) return this.errorAnswer(invalid('You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth.', {}, 401));
    if (!this.apiKeys.has(key)) return this.errorAnswer(invalid(`Invalid API Key provided: ${key.slice(0, 8)}****${key.slice(-4)}`, {}, 401));

    const idempotencyKey = recordedRequest.method === 'POST' ? headers['idempotency-key'] : undefined;
    const scope = `${key}\u0000${idempotencyKey ?? ''}`;
    const fingerprint = `${recordedRequest.method} ${recordedRequest.path} ${rawBody}`;
    if (idempotencyKey !== undefined) {
      const saved = this.idempotent.get(scope);
      if (saved !== undefined) {
        if (saved.fingerprint !== fingerprint) {
          return this.errorAnswer(new StripeHttpError(400, {
            type: 'idempotency_error',
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
          }));
        }
        return this.reply(saved.status, saved.body, { 'idempotent-replayed': 'true' });
      }
    }

    let status = 200;
    let body: string;
    try {
      const version = headers['stripe-version'];
      if (version !== undefined && !/^\d{4}-\d{2}-\d{2}(\.\w+)?$/.test(version)) throw invalid(`Invalid Stripe API version: ${version}`);
      if (recordedRequest.method === 'POST' && rawBody !== '' && !(headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
        throw invalid('Invalid request: request bodies must be application/x-www-form-urlencoded.');
      }
      body = JSON.stringify(this.route(recordedRequest, key.startsWith('sk_live_')));
    } catch (error) {
      if (!(error instanceof StripeHttpError)) throw error;
      status = error.status;
      body = JSON.stringify({ error: error.error });
    }
    // Stripe saves the result of a request that ran (success or card error), not of one refused up front.
    if (idempotencyKey !== undefined && (status === 200 || status === 402)) this.idempotent.set(scope, { fingerprint, status, body });
    return this.reply(status, body);
  }

  private reply(status: number, body: string, extra: Record<string, string> = {}): FakeAnswer {
    return { status, body, contentType: 'application/json', headers: { 'request-id': `req_${this.id()}`, 'stripe-version': '2024-06-20', ...extra } };
  }

  /** `metadata['key']:'value'` only (the one query Coffer sends), answered empty while `searchLag` lasts. */
  private searchIntents(query: string): Json {
    const match = /^metadata\['([^']+)'\]:'([^']*)'$/.exec(query);
    if (match === null) throw invalid('Invalid search query.', { param: 'query' });
    const found = this.searchLag > 0 ? [] : [...this.intents.values()].filter((intent) => (intent.json.metadata as Record<string, string> | undefined)?.[match[1] as string] === match[2]);
    if (this.searchLag > 0) this.searchLag -= 1;
    return { object: 'search_result', url: '/v1/payment_intents/search', has_more: false, next_page: null, data: found.map((intent) => intent.json) };
  }

  private errorAnswer(error: StripeHttpError): FakeAnswer {
    return this.reply(error.status, JSON.stringify({ error: error.error }));
  }

  private id(): string {
    return randomBytes(18).toString('base64url').replace(/[-_]/g, 'x').slice(0, 24);
  }

  private route(request: RecordedRequest, livemode: boolean): Json {
    const { method, path } = request;
    const form = new Form(method === 'GET' ? request.query : request.form);
    const expand = form.list('expand[]');
    let match: RegExpExecArray | null;
    if (method === 'POST' && path === '/v1/payment_intents') return this.createIntent(form, expand, livemode);
    if (method === 'GET' && path === '/v1/payment_intents/search') return this.searchIntents(form.get('query') ?? '');
    if ((match = /^\/v1\/payment_intents\/([^/]+)$/.exec(path)) !== null && method === 'GET') return this.intentJson(this.intent(match[1] as string), expand);
    if ((match = /^\/v1\/payment_intents\/([^/]+)\/capture$/.exec(path)) !== null && method === 'POST') return this.capture(this.intent(match[1] as string), form, expand);
    if ((match = /^\/v1\/payment_intents\/([^/]+)\/cancel$/.exec(path)) !== null && method === 'POST') return this.cancel(this.intent(match[1] as string), form, expand);
    if (method === 'POST' && path === '/v1/refunds') return this.refund(form);
    if (method === 'POST' && path === '/v1/setup_intents') return this.createSetupIntent(form, livemode);
    if ((match = /^\/v1\/setup_intents\/([^/]+)$/.exec(path)) !== null && method === 'GET') {
      const setup = this.setupIntents.get(match[1] as string);
      if (setup === undefined) throw noSuch('setupintent', match[1] as string);
      return setup;
    }
    if (method === 'POST' && path === '/v1/payment_methods') {
      const type = form.get('type');
      if (type !== 'card') throw type === undefined ? missing('type') : invalid(`Invalid type: ${type}`, { param: 'type' });
      return this.createPaymentMethod(form, 'card').json;
    }
    if ((match = /^\/v1\/payment_methods\/([^/]+)$/.exec(path)) !== null && method === 'GET') return this.paymentMethod(match[1] as string).json;
    if (method === 'POST' && path === '/v1/customers') return this.createCustomer(form, livemode);
    throw invalid(`Unrecognized request URL (${method}: ${path}). Please see https://stripe.com/docs or we can help at https://support.stripe.com/.`, {}, 404);
  }

  private intent(id: string): Intent {
    const intent = this.intents.get(id);
    if (intent === undefined) throw noSuch('payment_intent', id);
    return intent;
  }

  private paymentMethod(id: string, param?: string): PaymentMethod {
    const method = this.paymentMethods.get(id);
    if (method === undefined) throw noSuch('PaymentMethod', id, param);
    return method;
  }

  /** A card PaymentMethod from `card[…]` and `billing_details[…]` of `data`; refuses numbers and dates Stripe refuses. */
  private createPaymentMethod(data: Form, prefix: string): PaymentMethod {
    const card = data.scope('card');
    const billing = data.scope('billing_details');
    // A wallet's DPAN comes as a network token (card[network_token][number]), without card[number].
    const number = card.get('number') ?? card.get('network_token[number]');
    if (number === undefined) throw missing(`${prefix}[number]`);
    if (card.get('exp_month') === undefined) throw missing(`${prefix}[exp_month]`);
    if (card.get('exp_year') === undefined) throw missing(`${prefix}[exp_year]`);
    const digits = number.replace(/\s/g, '');
    if (!/^\d{12,19}$/.test(digits) || !luhn(digits)) throw new StripeHttpError(402, { type: 'card_error', code: 'incorrect_number', message: 'Your card number is incorrect.', param: 'number' });
    const month = Number(card.get('exp_month'));
    const year = Number(card.get('exp_year'));
    if (!(month >= 1 && month <= 12)) throw new StripeHttpError(402, { type: 'card_error', code: 'invalid_expiry_month', message: "Your card's expiration month is invalid.", param: 'exp_month' });
    const now = new Date();
    if (year < now.getUTCFullYear() || (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1)) {
      throw new StripeHttpError(402, { type: 'card_error', code: 'invalid_expiry_year', message: "Your card's expiration year is invalid.", param: 'exp_year' });
    }
    const given = billing.under('address');
    const address: Json = {};
    for (const field of ['line1', 'line2', 'city', 'state', 'postal_code', 'country']) address[field] = given[field] ?? null;
    const id = `pm_${this.id()}`;
    const method: PaymentMethod = {
      card: { number: digits, exp_month: month, exp_year: year, cvc: card.get('cvc') ?? null },
      customer: null,
      json: {
        id,
        object: 'payment_method',
        type: 'card',
        billing_details: { name: billing.get('name') ?? null, email: billing.get('email') ?? null, phone: null, address },
        card: { brand: brandOf(digits), last4: digits.slice(-4), exp_month: month, exp_year: year, funding: 'credit', country: 'US', checks: { address_line1_check: null, address_postal_code_check: null, cvc_check: null } },
        created: Math.floor(Date.now() / 1000),
        customer: null,
        livemode: false,
      },
    };
    this.paymentMethods.set(id, method);
    return method;
  }

  /** The payment method named by `payment_method` (with its customer) or made from `payment_method_data`. */
  private resolvePaymentMethod(form: Form): PaymentMethod | null {
    const id = form.get('payment_method');
    if (id !== undefined) {
      const method = this.paymentMethod(id, 'payment_method');
      const customer = form.get('customer');
      if (method.customer !== null && method.customer !== customer) {
        throw invalid('The provided PaymentMethod was previously attached to a Customer. To use it, pass the Customer id in the `customer` parameter.', { param: 'payment_method' });
      }
      return method;
    }
    const type = form.get('payment_method_data[type]');
    if (type === undefined) return null;
    if (type !== 'card') throw invalid('Only card payment methods are supported by this fake.', { param: 'payment_method_data[type]' });
    return this.createPaymentMethod(form.scope('payment_method_data'), 'payment_method_data[card]');
  }

  private behaviour(method: PaymentMethod): Behaviour {
    if (this.echoingDecline !== null) return { kind: 'decline', code: 'card_declined', ...this.echoingDecline(method.card) };
    return CARDS[method.card.number] ?? { kind: 'approve' };
  }

  private checksFor(method: PaymentMethod, extra: Partial<Checks> = {}): Checks {
    const address = (method.json.billing_details as { address: Json }).address;
    return {
      address_line1_check: address.line1 === null ? null : 'pass',
      address_postal_code_check: address.postal_code === null ? null : 'pass',
      cvc_check: method.card.cvc === null ? null : 'pass',
      ...extra,
    };
  }

  private createIntent(form: Form, expand: string[], livemode: boolean): Json {
    const amountText = form.get('amount');
    if (amountText === undefined) throw missing('amount');
    if (!/^\d+$/.test(amountText)) throw invalid(`Invalid integer: ${amountText}`, { code: 'parameter_invalid_integer', param: 'amount' });
    const amount = Number(amountText);
    const currency = form.get('currency');
    if (currency === undefined) throw missing('currency');
    if (!/^[a-z]{3}$/.test(currency)) throw invalid(`Invalid currency: ${currency}.`, { code: 'parameter_invalid_string', param: 'currency' });
    if (amount < 50) throw invalid(`Amount must be at least 50 ${currency}`, { code: 'amount_too_small', param: 'amount' });
    const captureMethod = form.get('capture_method') ?? 'automatic';
    if (!['automatic', 'automatic_async', 'manual'].includes(captureMethod)) throw invalid(`Invalid capture_method: ${captureMethod}`, { param: 'capture_method' });
    const confirm = form.get('confirm') === 'true';
    const method = this.resolvePaymentMethod(form);
    if (confirm && method === null) throw missing('payment_method');
    const id = `pi_${this.id()}`;
    const intent: Intent = {
      paymentMethod: method,
      multicapture: form.get('payment_method_options[card][request_multicapture]') === 'if_available',
      json: {
        id,
        object: 'payment_intent',
        amount,
        amount_capturable: 0,
        amount_received: 0,
        capture_method: captureMethod,
        client_secret: `${id}_secret_${this.id()}`,
        confirmation_method: 'automatic',
        created: Math.floor(Date.now() / 1000),
        currency,
        customer: form.get('customer') ?? null,
        description: form.get('description') ?? null,
        last_payment_error: null,
        latest_charge: null,
        livemode,
        metadata: form.under('metadata'),
        next_action: null,
        payment_method: method === null ? null : method.json.id,
        payment_method_types: ['card'],
        receipt_email: form.get('receipt_email') ?? null,
        shipping: form.get('shipping[name]') === undefined ? null : { name: form.get('shipping[name]'), phone: form.get('shipping[phone]') ?? null, address: form.scope('shipping').under('address') },
        status: method === null ? 'requires_payment_method' : 'requires_confirmation',
        canceled_at: null,
        cancellation_reason: null,
      },
    };
    this.intents.set(id, intent);
    if (!confirm || method === null) return this.intentJson(intent, expand);
    const behaviour = this.behaviour(method);
    if (behaviour.kind === 'authenticate') {
      intent.json.status = 'requires_action';
      intent.json.next_action = { type: 'redirect_to_url', redirect_to_url: { url: `https://hooks.stripe.com/3d_secure_2/hosted?payment_intent=${id}`, return_url: form.get('return_url') ?? null } };
      return this.intentJson(intent, expand);
    }
    if (behaviour.kind === 'decline') {
      const charge = this.newCharge(intent, method, 'failed', this.checksFor(method));
      const error = { type: 'card_error', code: behaviour.code, ...(behaviour.declineCode === undefined ? {} : { decline_code: behaviour.declineCode }), message: behaviour.message, ...(behaviour.param === undefined ? {} : { param: behaviour.param }) };
      intent.json.status = 'requires_payment_method';
      intent.json.last_payment_error = error;
      intent.json.latest_charge = charge.id;
      throw new StripeHttpError(402, { ...error, charge: charge.id, payment_intent: this.intentJson(intent, []), payment_method: method.json });
    }
    this.approve(intent, behaviour.checks ?? {});
    return this.intentJson(intent, expand);
  }

  /** The authorization went through: a charge, and the intent waits for capture or has succeeded. */
  private approve(intent: Intent, checks: Partial<Checks>): void {
    const method = intent.paymentMethod as PaymentMethod;
    const charge = this.newCharge(intent, method, 'succeeded', this.checksFor(method, checks));
    const amount = intent.json.amount as number;
    intent.json.latest_charge = charge.id;
    if (intent.json.capture_method === 'manual') {
      intent.json.status = 'requires_capture';
      intent.json.amount_capturable = amount;
    } else {
      intent.json.status = 'succeeded';
      intent.json.amount_received = amount;
      charge.captured = true;
      charge.amount_captured = amount;
    }
  }

  private newCharge(intent: Intent, method: PaymentMethod, status: 'succeeded' | 'failed', checks: Checks): Json {
    const id = `ch_${this.id()}`;
    const card = method.json.card as Json;
    const charge: Json = {
      id,
      object: 'charge',
      amount: intent.json.amount,
      amount_captured: 0,
      amount_refunded: 0,
      captured: false,
      currency: intent.json.currency,
      outcome:
        status === 'succeeded'
          ? { network_status: 'approved_by_network', reason: null, risk_level: 'normal', seller_message: 'Payment complete.', type: 'authorized' }
          : { network_status: 'declined_by_network', reason: 'generic_decline', risk_level: 'normal', seller_message: 'The bank did not return any further details with this decline.', type: 'issuer_declined' },
      paid: status === 'succeeded',
      payment_intent: intent.json.id,
      payment_method: method.json.id,
      payment_method_details: {
        type: 'card',
        // Stripe returns the card network's transaction id on the charge; deterministic here (from the charge id).
        card: { brand: card.brand, last4: card.last4, exp_month: card.exp_month, exp_year: card.exp_year, funding: 'credit', country: 'US', checks, network_transaction_id: `nti_${id}` },
      },
      refunded: false,
      status,
    };
    this.charges.set(id, charge);
    return charge;
  }

  private intentJson(intent: Intent, expand: string[]): Json {
    const json = { ...intent.json };
    if (expand.includes('latest_charge') && typeof json.latest_charge === 'string') json.latest_charge = this.charges.get(json.latest_charge) ?? null;
    if (expand.includes('payment_method') && intent.paymentMethod !== null) json.payment_method = intent.paymentMethod.json;
    return json;
  }

  private capture(intent: Intent, form: Form, expand: string[]): Json {
    if (intent.json.status !== 'requires_capture') {
      throw invalid(
        `This PaymentIntent could not be captured because it has a status of ${String(intent.json.status)}. Only a PaymentIntent with one of the following statuses may be captured: requires_capture.`,
        { code: 'payment_intent_unexpected_state', payment_intent: this.intentJson(intent, []) },
      );
    }
    const capturable = intent.json.amount_capturable as number;
    const text = form.get('amount_to_capture');
    const amount = text === undefined ? capturable : Number(text);
    if (!Number.isInteger(amount) || amount < 1 || amount > capturable) {
      throw invalid(`The amount_to_capture must be a positive integer less than or equal to the amount_capturable (${capturable}).`, { param: 'amount_to_capture' });
    }
    const final = !(intent.multicapture && form.get('final_capture') === 'false');
    intent.json.amount_received = (intent.json.amount_received as number) + amount;
    intent.json.amount_capturable = final ? 0 : capturable - amount;
    if (final) intent.json.status = 'succeeded';
    const charge = this.charges.get(intent.json.latest_charge as string) as Json;
    charge.captured = true;
    charge.amount_captured = intent.json.amount_received;
    return this.intentJson(intent, expand);
  }

  private cancel(intent: Intent, form: Form, expand: string[]): Json {
    const cancelable = ['requires_payment_method', 'requires_capture', 'requires_confirmation', 'requires_action', 'processing'];
    if (!cancelable.includes(intent.json.status as string)) {
      throw invalid(
        `You cannot cancel this PaymentIntent because it has a status of ${String(intent.json.status)}. Only a PaymentIntent with one of the following statuses may be canceled: ${cancelable.join(', ')}.`,
        { code: 'payment_intent_unexpected_state', payment_intent: this.intentJson(intent, []) },
      );
    }
    intent.json.status = 'canceled';
    intent.json.amount_capturable = 0;
    intent.json.canceled_at = Math.floor(Date.now() / 1000);
    intent.json.cancellation_reason = form.get('cancellation_reason') ?? null;
    return this.intentJson(intent, expand);
  }

  private refund(form: Form): Json {
    const intentId = form.get('payment_intent');
    if (intentId === undefined) throw missing('payment_intent');
    const intent = this.intents.get(intentId);
    if (intent === undefined) throw noSuch('payment_intent', intentId, 'payment_intent');
    const charge = typeof intent.json.latest_charge === 'string' ? this.charges.get(intent.json.latest_charge) : undefined;
    const received = intent.json.amount_received as number;
    if (charge === undefined || received === 0) {
      throw invalid(`This PaymentIntent (${intentId}) does not have a successful charge to refund.`, { code: 'charge_not_refundable', param: 'payment_intent' });
    }
    const remaining = received - (charge.amount_refunded as number);
    if (remaining === 0) throw invalid(`Charge ${String(charge.id)} has already been refunded.`, { code: 'charge_already_refunded' });
    const text = form.get('amount');
    const amount = text === undefined ? remaining : Number(text);
    if (!Number.isInteger(amount) || amount < 1 || amount > remaining) {
      throw invalid(`Refund amount (${amount}) is greater than unrefunded amount on charge (${remaining})`, { param: 'amount' });
    }
    charge.amount_refunded = (charge.amount_refunded as number) + amount;
    charge.refunded = charge.amount_refunded === received;
    const id = `re_${this.id()}`;
    const refund: Json = {
      id,
      object: 'refund',
      amount,
      charge: charge.id,
      created: Math.floor(Date.now() / 1000),
      currency: intent.json.currency,
      metadata: form.under('metadata'),
      payment_intent: intentId,
      reason: form.get('reason') ?? null,
      status: 'succeeded',
    };
    this.refunds.set(id, refund);
    return refund;
  }

  private createSetupIntent(form: Form, livemode: boolean): Json {
    const method = this.resolvePaymentMethod(form);
    const confirm = form.get('confirm') === 'true';
    if (confirm && method === null) throw missing('payment_method');
    const id = `seti_${this.id()}`;
    const setup: Json = {
      id,
      object: 'setup_intent',
      client_secret: `${id}_secret_${this.id()}`,
      created: Math.floor(Date.now() / 1000),
      customer: form.get('customer') ?? null,
      last_setup_error: null,
      latest_attempt: null,
      livemode,
      next_action: null,
      payment_method: method === null ? null : method.json.id,
      payment_method_types: ['card'],
      status: method === null ? 'requires_payment_method' : 'requires_confirmation',
      usage: form.get('usage') ?? 'off_session',
    };
    this.setupIntents.set(id, setup);
    if (!confirm || method === null) return setup;
    const behaviour = this.behaviour(method);
    setup.latest_attempt = `setatt_${this.id()}`;
    if (behaviour.kind === 'authenticate') {
      setup.status = 'requires_action';
      setup.next_action = { type: 'redirect_to_url', redirect_to_url: { url: `https://hooks.stripe.com/3d_secure_2/hosted?setup_intent=${id}`, return_url: null } };
    } else if (behaviour.kind === 'decline') {
      const error = { type: 'card_error', code: behaviour.code, ...(behaviour.declineCode === undefined ? {} : { decline_code: behaviour.declineCode }), message: behaviour.message };
      setup.status = 'requires_payment_method';
      setup.last_setup_error = error;
      throw new StripeHttpError(402, { ...error, setup_intent: setup, payment_method: method.json });
    } else {
      setup.status = 'succeeded';
    }
    return setup;
  }

  private createCustomer(form: Form, livemode: boolean): Json {
    const id = `cus_${this.id()}`;
    const methodId = form.get('payment_method');
    if (methodId !== undefined) {
      const method = this.paymentMethod(methodId, 'payment_method');
      // Attaching checks the card with its issuer: a declining card cannot be attached.
      const behaviour = this.behaviour(method);
      if (behaviour.kind === 'decline') {
        throw new StripeHttpError(402, { type: 'card_error', code: behaviour.code, ...(behaviour.declineCode === undefined ? {} : { decline_code: behaviour.declineCode }), message: behaviour.message, param: '' });
      }
      method.customer = id;
      method.json.customer = id;
    }
    const customer: Json = {
      id,
      object: 'customer',
      created: Math.floor(Date.now() / 1000),
      description: form.get('description') ?? null,
      email: form.get('email') ?? null,
      invoice_settings: { default_payment_method: null },
      livemode,
      metadata: form.under('metadata'),
    };
    this.customers.set(id, customer);
    return customer;
  }
}

function recorded(request: FakeRequest): RecordedRequest {
  return { method: request.method, path: request.path, query: parseForm(request.query.toString()), headers: request.headers, rawBody: request.rawBody, form: parseForm(request.rawBody) };
}

/** Starts a fake Stripe accepting `apiKeys`. */
export async function startFakeStripe(apiKeys?: string[]): Promise<FakeStripe> {
  return new FakeStripe(apiKeys).start();
}
