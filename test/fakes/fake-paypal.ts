import { randomBytes } from 'node:crypto';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';

/**
 * A fake PayPal REST API on 127.0.0.1 for e2e tests, on the shared FakeGatewayServer: the OAuth2
 * token endpoint (Basic client id and secret), Bearer checks on every API call, Orders v2 with a
 * card payment source (or a vaulted card's `vault_id`), Vault v3 setup and payment tokens (processed at once, as PayPal does for cards), authorization capture and
 * void, capture refunds, PayPal-Request-Id replay of authenticated calls, and PayPal's sandbox card-name triggers
 * ("CCREJECT-IF", "CCREJECT-EC", … from its "Card testing" page) that decline with their
 * processor response code. State lives in memory for assertions.
 */

export interface FakePayPalPayment {
  id: string;
  kind: 'authorization' | 'capture';
  currency: string;
  amount: number;
  captured: number;
  refunded: number;
  status: string;
}

/** Card name triggers → processor response code (PayPal's "Card testing" page). */
const TRIGGERS: Record<string, string> = {
  'CCREJECT-REFUSED': '0500',
  'CCREJECT-SF': '9500',
  'CCREJECT-EC': '5400',
  'CCREJECT-IRC': '5180',
  'CCREJECT-IF': '5120',
  'CCREJECT-LS': '9520',
  'CCREJECT-IA': '1330',
  'CCREJECT-BANK_ERROR': '5100',
  'CCREJECT-CVV_F': '00N7',
};

function paypalId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789';
  return Array.from(randomBytes(17), (byte) => alphabet[byte % alphabet.length]).join('');
}

const unprocessable = (issue: string, description: string): FakeAnswer => ({
  status: 422,
  json: { name: 'UNPROCESSABLE_ENTITY', details: [{ issue, description }], message: 'The requested action could not be performed, semantically incorrect, or failed business validation.', debug_id: paypalId().toLowerCase() },
});

function cents(value: unknown): number {
  return Math.round(Number(value) * 100);
}

export class FakePayPal {
  readonly payments = new Map<string, FakePayPalPayment>();
  /** Vaulted cards by payment token id (setup tokens until they are turned into payment tokens). */
  readonly vault = new Map<string, Record<string, unknown>>();
  private readonly setupTokens = new Map<string, Record<string, unknown>>();
  private readonly tokens = new Set<string>();
  private readonly replies = new Map<string, FakeAnswer>();
  tokensIssued = 0;

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly clientId: string,
    private readonly secret: string,
  ) {}

  static async start(options: { clientId: string; secret: string }): Promise<FakePayPal> {
    const holder: { fake?: FakePayPal } = {};
    const self = () => holder.fake as FakePayPal;
    const server = await FakeGatewayServer.start(
      [
        { method: 'POST', path: '/v1/oauth2/token', handle: (request) => self().token(request) },
        { method: 'POST', path: '/v2/checkout/orders', handle: (request) => self().api(request, () => self().order(jsonOf(request))) },
        { method: 'POST', path: /^\/v2\/payments\/authorizations\/([^/]+)\/capture$/, handle: (request, [id]) => self().api(request, () => self().capture(id as string, jsonOf(request))) },
        { method: 'POST', path: /^\/v2\/payments\/authorizations\/([^/]+)\/void$/, handle: (request, [id]) => self().api(request, () => self().void(id as string)) },
        { method: 'POST', path: '/v3/vault/setup-tokens', handle: (request) => self().api(request, () => self().setupToken(jsonOf(request))) },
        { method: 'POST', path: '/v3/vault/payment-tokens', handle: (request) => self().api(request, () => self().paymentToken(jsonOf(request))) },
        { method: 'POST', path: /^\/v2\/payments\/captures\/([^/]+)\/refund$/, handle: (request, [id]) => self().api(request, () => self().refund(id as string, jsonOf(request))) },
      ],
    );
    holder.fake = new FakePayPal(server, options.clientId, options.secret);
    return holder.fake;
  }

  get url(): string {
    return this.server.url;
  }

  /** Every token issued so far stops working (as when PayPal revokes or expires one early). */
  revokeTokens(): void {
    this.tokens.clear();
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private token(request: FakeRequest): FakeAnswer {
    const expected = `Basic ${Buffer.from(`${this.clientId}:${this.secret}`).toString('base64')}`;
    if (request.headers.authorization !== expected) return { status: 401, json: { error: 'invalid_client', error_description: 'Client Authentication failed' } };
    if (new URLSearchParams(request.rawBody).get('grant_type') !== 'client_credentials') return { status: 400, json: { error: 'unsupported_grant_type', error_description: 'Grant Type is NULL' } };
    const token = `A21AA${randomBytes(24).toString('base64url')}`;
    this.tokens.add(token);
    this.tokensIssued += 1;
    return { json: { scope: 'https://uri.paypal.com/services/payments/payment', access_token: token, token_type: 'Bearer', app_id: 'APP-80W284485P519543T', expires_in: 32400, nonce: 'n' } };
  }

  /**
   * An authenticated API call, replayed for a repeated PayPal-Request-Id. A call refused with 401
   * is not stored: PayPal never processed it, so its repeat with a fresh token is a new attempt.
   */
  private api(request: FakeRequest, handle: () => FakeAnswer): FakeAnswer {
    const refused = this.authorized(request);
    if (refused !== undefined) return refused;
    const key = `${request.path}\u0000${request.headers['paypal-request-id'] ?? ''}`;
    const saved = request.headers['paypal-request-id'] === undefined ? undefined : this.replies.get(key);
    if (saved !== undefined) return saved;
    const answer = handle();
    if (request.headers['paypal-request-id'] !== undefined) this.replies.set(key, answer);
    return answer;
  }

  /** The 401 PayPal answers to a missing, unknown or revoked Bearer token; undefined when the token is good. */
  private authorized(request: FakeRequest): FakeAnswer | undefined {
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if (token !== undefined && this.tokens.has(token)) return undefined;
    return { status: 401, json: { error: 'invalid_token', error_description: 'The token passed in was not found in the system' } };
  }

  private setupToken(body: Record<string, unknown>): FakeAnswer {
    const card = (body.payment_source as { card?: Record<string, unknown> } | undefined)?.card;
    if (typeof card?.number !== 'string' || !/^\d{13,19}$/.test(card.number)) return unprocessable('INVALID_PARAMETER_VALUE', 'The card details are not valid.');
    const id = paypalId();
    this.setupTokens.set(id, card);
    return { status: 201, json: { id, customer: { id: `customer_${paypalId().slice(0, 10)}` }, status: 'APPROVED', payment_source: { card: { last_digits: card.number.slice(-4), expiry: card.expiry } } } };
  }

  private paymentToken(body: Record<string, unknown>): FakeAnswer {
    const token = (body.payment_source as { token?: { id?: string; type?: string } } | undefined)?.token;
    const card = token?.type === 'SETUP_TOKEN' && token.id !== undefined ? this.setupTokens.get(token.id) : undefined;
    if (card === undefined) return unprocessable('SETUP_TOKEN_NOT_FOUND', 'The setup token is not valid.');
    this.setupTokens.delete(token?.id as string);
    const id = paypalId().slice(0, 8).toLowerCase();
    this.vault.set(id, card);
    return { status: 201, json: { id, customer: { id: 'customer_1' }, payment_source: { card: { brand: 'VISA', last_digits: String(card.number).slice(-4) } } } };
  }

  private order(body: Record<string, unknown>): FakeAnswer {
    const unit = (body.purchase_units as Array<Record<string, unknown>> | undefined)?.[0];
    const amount = unit?.amount as { currency_code?: string; value?: string } | undefined;
    const source = (body.payment_source as { card?: Record<string, unknown> } | undefined)?.card;
    const vaulted = typeof source?.vault_id === 'string' ? this.vault.get(source.vault_id) : undefined;
    if (typeof source?.vault_id === 'string' && vaulted === undefined) return unprocessable('INVALID_PAYMENT_SOURCE', 'The vault_id is not valid.');
    const card = vaulted ?? source;
    if (body.intent !== 'CAPTURE' && body.intent !== 'AUTHORIZE') return { status: 400, json: { name: 'INVALID_REQUEST', message: 'Request is not well-formed.', details: [{ field: '/intent', issue: 'MISSING_REQUIRED_PARAMETER' }] } };
    if (amount?.currency_code === undefined || amount.value === undefined) return { status: 400, json: { name: 'INVALID_REQUEST', message: 'Request is not well-formed.', details: [{ field: '/purchase_units/0/amount', issue: 'MISSING_REQUIRED_PARAMETER' }] } };
    if (typeof card?.number !== 'string' || !/^\d{13,19}$/.test(card.number) || !/^\d{4}-\d{2}$/.test(String(card.expiry))) return unprocessable('INVALID_PARAMETER_VALUE', 'The card details are not valid.');
    const trigger = TRIGGERS[String(card.name ?? '').split(' ')[0] ?? ''];
    const orderId = paypalId();
    const id = paypalId();
    const capture = body.intent === 'CAPTURE';
    const value = cents(amount.value);
    const processor = trigger === undefined ? { avs_code: card.billing_address === undefined ? 'U' : 'Y', cvv_code: card.security_code === undefined ? 'P' : 'M', response_code: '0000' } : { avs_code: 'N', cvv_code: 'N', response_code: trigger };
    const status = trigger !== undefined ? (capture ? 'DECLINED' : 'DENIED') : capture ? 'COMPLETED' : 'CREATED';
    if (trigger === undefined) {
      this.payments.set(id, { id, kind: capture ? 'capture' : 'authorization', currency: amount.currency_code, amount: value, captured: capture ? value : 0, refunded: 0, status });
    }
    const payment = { id, status, amount, processor_response: processor, network_transaction_reference: { id: randomBytes(7).toString('hex').slice(0, 15), network: 'VISA' } };
    return {
      status: 201,
      json: {
        id: orderId,
        status: 'COMPLETED',
        intent: body.intent,
        payment_source: { card: { last_digits: card.number.slice(-4), brand: 'VISA', type: 'CREDIT' } },
        purchase_units: [{ reference_id: 'default', payments: capture ? { captures: [payment] } : { authorizations: [payment] } }],
      },
    };
  }

  private capture(id: string, body: Record<string, unknown>): FakeAnswer {
    const authorization = this.payments.get(id);
    if (authorization?.kind !== 'authorization') return { status: 404, json: { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.', details: [{ issue: 'INVALID_RESOURCE_ID' }] } };
    if (authorization.status !== 'CREATED') return unprocessable('AUTHORIZATION_ALREADY_CAPTURED', 'Authorization has been previously captured and hence cannot be captured again.');
    const amount = body.amount as { currency_code: string; value: string };
    const value = cents(amount.value);
    if (value > authorization.amount) return unprocessable('MAX_CAPTURE_AMOUNT_EXCEEDED', 'Capture amount exceeds allowable limit.');
    authorization.captured += value;
    if (body.final_capture === true) authorization.status = 'CAPTURED';
    const captureId = paypalId();
    this.payments.set(captureId, { id: captureId, kind: 'capture', currency: amount.currency_code, amount: value, captured: value, refunded: 0, status: 'COMPLETED' });
    return { status: 201, json: { id: captureId, status: 'COMPLETED', amount, final_capture: body.final_capture === true } };
  }

  private void(id: string): FakeAnswer {
    const authorization = this.payments.get(id);
    if (authorization?.kind !== 'authorization') return { status: 404, json: { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.', details: [{ issue: 'INVALID_RESOURCE_ID' }] } };
    if (authorization.status !== 'CREATED') return unprocessable('PREVIOUSLY_VOIDED', 'Authorization has been previously voided and hence cannot be voided again.');
    authorization.status = 'VOIDED';
    return { status: 200, json: { id, status: 'VOIDED', amount: { currency_code: authorization.currency, value: (authorization.amount / 100).toFixed(2) } } };
  }

  private refund(id: string, body: Record<string, unknown>): FakeAnswer {
    const capture = this.payments.get(id);
    if (capture?.kind !== 'capture') return { status: 404, json: { name: 'RESOURCE_NOT_FOUND', message: 'The specified resource does not exist.', details: [{ issue: 'INVALID_RESOURCE_ID' }] } };
    const amount = body.amount as { currency_code: string; value: string } | undefined;
    const value = amount === undefined ? capture.captured - capture.refunded : cents(amount.value);
    if (value > capture.captured - capture.refunded) return unprocessable('REFUND_AMOUNT_EXCEEDED', 'The refund amount must be less than or equal to the capture amount that has not yet been refunded.');
    capture.refunded += value;
    return { status: 201, json: { id: paypalId(), status: 'COMPLETED', amount } };
  }
}
