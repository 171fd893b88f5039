import { createHmac, randomUUID } from 'node:crypto';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';
import { cardFreeId } from './gateway-ids.js';

/**
 * A fake dLocal Payins API on 127.0.0.1 for e2e tests: POST /secure_payments, /payments (capture, or a
 * payment with a stored card_id), /payments/{id}/cancel, /refunds, /secure_cards. It checks X-Login, X-Trans-Key, X-Version and the request
 * signature (HMAC-SHA256 of X-Login + X-Date + body under the secret key), replays answers by
 * X-Idempotency-Key, and signs its answers the same way (Authorization and X-Date headers) unless
 * told to sign them wrongly. The fake's own convention (not dLocal's): a card holder named
 * "Reject <code>" is rejected with that status_code. State lives in memory.
 */

export interface FakeDLocalPayment {
  id: string;
  status: 'PAID' | 'AUTHORIZED' | 'CANCELLED' | 'REJECTED' | 'VERIFIED';
  amount: number;
  currency: string;
  captured: number;
  refunded: number;
}

const REJECTIONS: Record<string, string> = {
  '300': 'The payment was rejected.',
  '302': 'Insufficient amount.',
  '306': 'Call bank for authorization.',
  '309': 'Card expired.',
  '315': 'Invalid security code.',
};

function sign(secret: string, login: string, date: string, body: string): string {
  return `V2-HMAC-SHA256, Signature: ${createHmac('sha256', secret).update(login + date + body).digest('hex')}`;
}

export class FakeDLocal {
  readonly payments = new Map<string, FakeDLocalPayment>();
  /** card_id → what the fake kept of a stored card. */
  readonly cards = new Map<string, { holderName: string; last4: string }>();
  /** Sign answers with a wrong key from now on (a forged or corrupted answer). */
  forgeSignatures = false;

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly credentials: { login: string; transKey: string; secretKey: string },
  ) {}

  static async start(credentials: { login: string; transKey: string; secretKey: string }): Promise<FakeDLocal> {
    let fake: FakeDLocal | null = null;
    const route = (handler: (self: FakeDLocal, body: Record<string, unknown>, params: string[]) => FakeAnswer) => (request: FakeRequest, params: string[]) => {
      const self = fake as FakeDLocal;
      return self.signed(self.guard(request) ?? handler(self, jsonOf(request), params));
    };
    const server = await FakeGatewayServer.start(
      [
        { method: 'POST', path: '/secure_payments', handle: route((self, body) => self.pay(body)) },
        // POST /payments captures an authorization (authorization_id) or pays with a stored card (card.card_id).
        { method: 'POST', path: '/payments', handle: route((self, body) => (body.authorization_id === undefined ? self.pay(body) : self.capture(body))) },
        { method: 'POST', path: '/secure_cards', handle: route((self, body) => self.storeCard(body)) },
        { method: 'POST', path: /^\/payments\/([^/]+)\/cancel$/, handle: route((self, _body, [id]) => self.cancel(decodeURIComponent(id as string))) },
        { method: 'POST', path: '/refunds', handle: route((self, body) => self.refund(body)) },
      ],
      { idempotencyHeader: 'x-idempotency-key', notFound: () => ({ status: 404, json: { code: 5000, message: 'Invalid request' } }) },
    );
    fake = new FakeDLocal(server, credentials);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private guard(request: FakeRequest): FakeAnswer | null {
    const { login, transKey, secretKey } = this.credentials;
    const date = request.headers['x-date'] ?? '';
    if (request.headers['x-login'] !== login || request.headers['x-trans-key'] !== transKey) return { status: 401, json: { code: 3001, message: 'Invalid credentials.' } };
    if (request.headers['x-version'] !== '2.1' || Number.isNaN(Date.parse(date))) return { status: 400, json: { code: 5013, message: 'Unsupported API version' } };
    if (request.headers.authorization !== sign(secretKey, login, date, request.rawBody)) return { status: 403, json: { code: 3001, message: 'Invalid signature.' } };
    return null;
  }

  private signed(answer: FakeAnswer): FakeAnswer {
    const body = JSON.stringify(answer.json);
    const date = new Date().toISOString();
    const secret = this.forgeSignatures ? 'not-the-secret' : this.credentials.secretKey;
    return { status: answer.status ?? 200, body, contentType: 'application/json', headers: { 'x-date': date, authorization: sign(secret, this.credentials.login, date, body) } };
  }

  private pay(body: Record<string, unknown>): FakeAnswer {
    const card = body.card as Record<string, unknown> | undefined;
    for (const field of ['amount', 'currency', 'country', 'payment_method_id', 'payer', 'card', 'order_id']) {
      if (body[field] === undefined) return { status: 400, json: { code: 5001, message: 'Invalid parameter', param: field } };
    }
    const stored = typeof card?.card_id === 'string' ? this.cards.get(card.card_id) : undefined;
    if (typeof card?.card_id === 'string' && stored === undefined) return { status: 404, json: { code: 5008, message: 'Token not found or inactive' } };
    if (stored === undefined && !/^\d{12,19}$/.test(String(card?.number ?? ''))) return { status: 400, json: { code: 5001, message: 'Invalid parameter', param: 'card.number' } };
    if (stored !== undefined && card !== undefined) card.holder_name = stored.holderName;
    const id = cardFreeId(() => `D-4-${randomUUID()}`);
    const holder = /^Reject (\d{3})$/i.exec(String(card?.holder_name ?? ''));
    const amount = Number(body.amount);
    const currency = String(body.currency);
    const base = { id, amount, currency, country: body.country, payment_method_id: 'CARD', payment_method_flow: 'DIRECT', order_id: body.order_id, card: { holder_name: card?.holder_name, last4: stored?.last4 ?? String(card?.number).slice(-4), brand: 'VI' } };
    if (holder !== null) {
      const code = holder[1] as string;
      this.payments.set(id, { id, status: 'REJECTED', amount, currency, captured: 0, refunded: 0 });
      return { json: { ...base, status: 'REJECTED', status_code: code, status_detail: REJECTIONS[code] ?? 'The payment was rejected.' } };
    }
    if (card?.verify === true) {
      this.payments.set(id, { id, status: 'VERIFIED', amount, currency, captured: 0, refunded: 0 });
      return { json: { ...base, status: 'VERIFIED', status_code: '700', status_detail: 'The payment was verified.' } };
    }
    const capture = card?.capture !== false;
    this.payments.set(id, { id, status: capture ? 'PAID' : 'AUTHORIZED', amount, currency, captured: capture ? amount : 0, refunded: 0 });
    return capture
      ? { json: { ...base, status: 'PAID', status_code: '200', status_detail: 'The payment was paid.' } }
      : { json: { ...base, status: 'AUTHORIZED', status_code: '600', status_detail: 'The payment was authorized.' } };
  }

  private storeCard(body: Record<string, unknown>): FakeAnswer {
    const card = body.card as Record<string, unknown> | undefined;
    const payer = body.payer as Record<string, unknown> | undefined;
    if (body.country === undefined || payer?.name === undefined) return { status: 400, json: { code: 5001, message: 'Invalid parameter', param: body.country === undefined ? 'country' : 'payer.name' } };
    if (!/^\d{12,19}$/.test(String(card?.number ?? ''))) return { status: 400, json: { code: 5001, message: 'Invalid parameter', param: 'card.number' } };
    const cardId = cardFreeId(() => `CV-${randomUUID()}`);
    const last4 = String(card?.number).slice(-4);
    this.cards.set(cardId, { holderName: String(card?.holder_name ?? ''), last4 });
    return { json: { card_id: cardId, holder_name: card?.holder_name, expiration_month: card?.expiration_month, expiration_year: card?.expiration_year, last4, brand: 'VI' } };
  }

  private capture(body: Record<string, unknown>): FakeAnswer {
    const auth = this.payments.get(String(body.authorization_id));
    if (auth === undefined) return { status: 404, json: { code: 4000, message: 'Payment not found' } };
    if (auth.status !== 'AUTHORIZED') return { status: 400, json: { code: 5002, message: 'Invalid transaction status' } };
    const amount = body.amount === undefined ? auth.amount : Number(body.amount);
    if (amount > auth.amount) return { status: 400, json: { code: 5007, message: 'Amount exceeded' } };
    auth.status = 'PAID';
    auth.captured = amount;
    const id = cardFreeId(() => `D-4-${randomUUID()}`);
    // The capture is a payment of its own, refundable by its id.
    this.payments.set(id, { id, status: 'PAID', amount, currency: auth.currency, captured: amount, refunded: 0 });
    return { json: { id, authorization_id: auth.id, amount, currency: auth.currency, status: 'PAID', status_code: '200', status_detail: 'The payment was paid.', order_id: body.order_id } };
  }

  private cancel(id: string): FakeAnswer {
    const payment = this.payments.get(id);
    if (payment === undefined) return { status: 404, json: { code: 4000, message: 'Payment not found' } };
    if (payment.status !== 'AUTHORIZED') return { status: 400, json: { code: 5002, message: 'Invalid transaction status' } };
    payment.status = 'CANCELLED';
    return { json: { id, amount: payment.amount, currency: payment.currency, status: 'CANCELLED', status_code: '400', status_detail: 'The payment was cancelled.' } };
  }

  private refund(body: Record<string, unknown>): FakeAnswer {
    const payment = this.payments.get(String(body.payment_id));
    if (payment === undefined) return { status: 404, json: { code: 4000, message: 'Payment not found' } };
    if (payment.status !== 'PAID') return { status: 400, json: { code: 5002, message: 'Invalid transaction status' } };
    const amount = body.amount === undefined ? payment.captured - payment.refunded : Number(body.amount);
    if (payment.refunded + amount > payment.captured + 1e-9) return { status: 400, json: { code: 5007, message: 'Amount exceeded' } };
    payment.refunded = Math.round((payment.refunded + amount) * 1000) / 1000;
    return { json: { id: cardFreeId(() => `REF-15-${randomUUID()}`), payment_id: payment.id, amount, currency: payment.currency, status: 'SUCCESS', status_code: 200, status_detail: 'The refund was paid.' } };
  }
}
