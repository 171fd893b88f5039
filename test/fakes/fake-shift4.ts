import { randomBytes } from 'node:crypto';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';
import { cardFreeId } from './gateway-ids.js';

/**
 * A fake Shift4 API on 127.0.0.1 for e2e tests: POST /charges, /charges/{id}/capture,
 * /charges/{id}/refund, /customers. It checks the secret key (HTTP Basic user, empty password),
 * replays answers by Idempotency-Key (as Shift4 does, with `Idempotent-Replayed`), and keeps charges
 * and customers in memory. Its own convention (not Shift4's): a card holder named "Reject <code>"
 * is declined (402 card_error) with that error code.
 */

export interface FakeShift4Charge {
  id: string;
  amount: number;
  currency: string;
  captured: boolean;
  capturedAmount: number;
  refunded: number;
}

const MESSAGES: Record<string, string> = {
  card_declined: 'The card was declined.',
  insufficient_funds: 'The card has insufficient funds.',
  expired_card: 'The card has expired.',
  incorrect_cvc: 'The card security code is incorrect.',
};

const id = (prefix: string) => cardFreeId(() => `${prefix}_${randomBytes(18).toString('base64url').replace(/[-_]/g, 'x')}`);

export class FakeShift4 {
  readonly charges = new Map<string, FakeShift4Charge>();
  /** customerId → its cards (id → last4 and holder). */
  readonly customers = new Map<string, Map<string, { last4: string; holder: string }>>();

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly secretKey: string,
  ) {}

  static async start(secretKey: string): Promise<FakeShift4> {
    let fake: FakeShift4 | null = null;
    const route = (handler: (self: FakeShift4, body: Record<string, unknown>, params: string[]) => FakeAnswer) => (request: FakeRequest, params: string[]) => {
      const self = fake as FakeShift4;
      return self.guard(request) ?? handler(self, request.rawBody === '' ? {} : jsonOf(request), params);
    };
    const server = await FakeGatewayServer.start(
      [
        { method: 'POST', path: '/charges', handle: route((self, body) => self.charge(body)) },
        { method: 'POST', path: /^\/charges\/([^/]+)\/capture$/, handle: route((self, body, [chargeId]) => self.capture(chargeId as string, body)) },
        { method: 'POST', path: /^\/charges\/([^/]+)\/refund$/, handle: route((self, body, [chargeId]) => self.refund(chargeId as string, body)) },
        { method: 'POST', path: '/customers', handle: route((self, body) => self.customer(body)) },
        { method: 'POST', path: '/credits', handle: route((self, body) => self.credit(body)) },
      ],
      { idempotencyHeader: 'idempotency-key', notFound: () => ({ status: 404, json: { error: { type: 'invalid_request', message: 'Not found' } } }) },
    );
    fake = new FakeShift4(server, secretKey);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private guard(request: FakeRequest): FakeAnswer | null {
    const expected = `Basic ${Buffer.from(`${this.secretKey}:`).toString('base64')}`;
    if (request.headers.authorization !== expected) return { status: 401, json: { error: { type: 'invalid_request', message: 'Provided API key is invalid' } } };
    return null;
  }

  private invalid(message: string): FakeAnswer {
    return { status: 400, json: { error: { type: 'invalid_request', message } } };
  }

  private chargeJson(charge: FakeShift4Charge, card: Record<string, unknown>): Record<string, unknown> {
    return { id: charge.id, created: 1434144998, objectType: 'charge', amount: charge.amount - charge.refunded, currency: charge.currency, card, captured: charge.captured, refunded: charge.refunded > 0, disputed: false, status: 'successful' };
  }

  private charge(body: Record<string, unknown>): FakeAnswer {
    if (!Number.isInteger(body.amount) || typeof body.currency !== 'string' || body.currency !== body.currency.toUpperCase()) return this.invalid('Invalid amount or currency');
    let last4: string;
    let holder: string;
    if (typeof body.card === 'string') {
      const stored = this.customers.get(String(body.customerId))?.get(body.card);
      if (stored === undefined) return this.invalid('Requested Card does not exist');
      ({ last4, holder } = stored);
    } else {
      const card = body.card as Record<string, unknown> | undefined;
      if (!/^\d{12,19}$/.test(String(card?.number ?? ''))) return { status: 402, json: { error: { type: 'card_error', code: 'invalid_number', message: 'The card number is not a valid credit card number.' } } };
      last4 = String(card?.number).slice(-4);
      holder = String(card?.cardholderName ?? '');
    }
    const charge: FakeShift4Charge = { id: id('char'), amount: Number(body.amount), currency: body.currency, captured: body.captured !== false, capturedAmount: 0, refunded: 0 };
    charge.capturedAmount = charge.captured ? charge.amount : 0;
    const reject = /^Reject (\w+)$/.exec(holder);
    if (reject !== null) {
      const code = reject[1] as string;
      return { status: 402, json: { error: { type: 'card_error', code, message: MESSAGES[code] ?? 'The card was declined.', chargeId: charge.id } } };
    }
    this.charges.set(charge.id, charge);
    return { json: this.chargeJson(charge, { id: id('card'), objectType: 'card', last4, brand: 'Visa' }) };
  }

  private capture(chargeId: string, body: Record<string, unknown>): FakeAnswer {
    const charge = this.charges.get(chargeId);
    if (charge === undefined) return this.invalid('Requested Charge does not exist');
    if (charge.captured || charge.refunded > 0) return this.invalid('Charge is already captured or refunded');
    const amount = body.amount === undefined ? charge.amount : Number(body.amount);
    if (amount > charge.amount) return this.invalid('Capture amount exceeds the charge amount');
    charge.captured = true;
    charge.capturedAmount = amount;
    charge.amount = amount;
    return { json: this.chargeJson(charge, { objectType: 'card', last4: '4977', brand: 'Visa' }) };
  }

  private refund(chargeId: string, body: Record<string, unknown>): FakeAnswer {
    const charge = this.charges.get(chargeId);
    if (charge === undefined) return this.invalid('Requested Charge does not exist');
    const amount = body.amount === undefined ? charge.amount - charge.refunded : Number(body.amount);
    if (amount <= 0 || charge.refunded + amount > charge.amount) return this.invalid('Wrong Refund data');
    charge.refunded += amount;
    return { json: { ...this.chargeJson(charge, { objectType: 'card', last4: '4977', brand: 'Visa' }), refunds: [{ created: 1426675529990, amount, currency: charge.currency }] } };
  }

  /** Credits paid out, by id. */
  readonly credits = new Map<string, { amount: number; currency: string; last4: string }>();

  private credit(body: Record<string, unknown>): FakeAnswer {
    if (!Number.isInteger(body.amount) || typeof body.currency !== 'string') return this.invalid('Invalid amount or currency');
    const card = body.card as Record<string, unknown> | string | undefined;
    const last4 = typeof card === 'string' ? this.customers.get(String(body.customerId))?.get(card)?.last4 : /^\d{12,19}$/.test(String(card?.number ?? '')) ? String(card?.number).slice(-4) : undefined;
    if (last4 === undefined) return { status: 402, json: { error: { type: 'card_error', code: 'invalid_number', message: 'The card number is not a valid credit card number.' } } };
    const creditId = id('cred');
    this.credits.set(creditId, { amount: Number(body.amount), currency: body.currency, last4 });
    return { json: { id: creditId, created: 1434145000, objectType: 'credit', amount: body.amount, currency: body.currency, card: { objectType: 'card', last4, brand: 'Visa' } } };
  }

  private customer(body: Record<string, unknown>): FakeAnswer {
    const card = body.card as Record<string, unknown> | undefined;
    if (!/^\d{12,19}$/.test(String(card?.number ?? ''))) return { status: 402, json: { error: { type: 'card_error', code: 'invalid_number', message: 'The card number is not a valid credit card number.' } } };
    const customerId = id('cust');
    const cardId = id('card');
    const last4 = String(card?.number).slice(-4);
    this.customers.set(customerId, new Map([[cardId, { last4, holder: String(card?.cardholderName ?? '') }]]));
    return { json: { id: customerId, objectType: 'customer', email: body.email, defaultCardId: cardId, cards: [{ id: cardId, objectType: 'card', last4, brand: 'Visa', customerId }] } };
  }
}
