import { randomBytes } from 'node:crypto';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';

/**
 * A fake Mercado Pago Payments API v1 on 127.0.0.1 for e2e tests: /v1/card_tokens, /v1/payments,
 * PUT /v1/payments/{id} (capture, cancel), /v1/payments/{id}/refunds; Bearer access token,
 * X-Idempotency-Key replay, and Mercado Pago's test convention that the cardholder name picks the
 * outcome (APRO approved, OTHE other reason, CALL call for authorize, FUND insufficient amount,
 * SECU security code, EXPI expiry, FORM form error; "Test cards" page). State lives in memory.
 */

export interface FakeMercadoPagoPayment {
  id: number;
  status: string;
  amount: number;
  captured: boolean;
  refunded: number;
}

const TEST_OUTCOMES: Record<string, [string, string]> = {
  APRO: ['approved', 'accredited'],
  OTHE: ['rejected', 'cc_rejected_other_reason'],
  CALL: ['rejected', 'cc_rejected_call_for_authorize'],
  FUND: ['rejected', 'cc_rejected_insufficient_amount'],
  SECU: ['rejected', 'cc_rejected_bad_filled_security_code'],
  EXPI: ['rejected', 'cc_rejected_bad_filled_date'],
  FORM: ['rejected', 'cc_rejected_bad_filled_other'],
};

const error = (status: number, message: string, code?: string | number): FakeAnswer => ({
  status,
  json: { message, error: status === 401 ? 'unauthorized' : status === 404 ? 'not_found' : 'bad_request', status, cause: code === undefined ? [] : [{ code, description: message }] },
});

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return /^\d{12,19}$/.test(digits) && sum % 10 === 0;
}

export class FakeMercadoPago {
  readonly payments = new Map<number, FakeMercadoPagoPayment>();
  private readonly tokens = new Map<string, { holder: string; used: boolean; cardId?: string }>();
  /** customer id → email and saved cards (card id → holder name). */
  readonly customers = new Map<string, { email: string; cards: Map<string, string> }>();
  private nextId = 20359978;

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly accessToken: string,
  ) {}

  static async start(accessToken: string): Promise<FakeMercadoPago> {
    let fake: FakeMercadoPago | null = null;
    const route = (handler: (self: FakeMercadoPago, body: Record<string, unknown>, params: string[]) => FakeAnswer) => (request: FakeRequest, params: string[]) => {
      const self = fake as FakeMercadoPago;
      if (request.headers.authorization !== `Bearer ${self.accessToken}`) return error(401, 'invalid access token');
      return handler(self, jsonOf(request), params);
    };
    const server = await FakeGatewayServer.start(
      [
        { method: 'POST', path: '/v1/card_tokens', handle: route((self, body) => self.cardToken(body)) },
        { method: 'POST', path: '/v1/payments', handle: route((self, body) => self.pay(body)) },
        { method: 'PUT', path: /^\/v1\/payments\/(\d+)$/, handle: route((self, body, [id]) => self.update(Number(id), body)) },
        { method: 'POST', path: /^\/v1\/payments\/(\d+)\/refunds$/, handle: route((self, body, [id]) => self.refund(Number(id), body)) },
        { method: 'POST', path: '/v1/customers', handle: route((self, body) => self.createCustomer(body)) },
        { method: 'GET', path: '/v1/customers/search', handle: (request: FakeRequest) => (fake as FakeMercadoPago).searchCustomer(request) },
        { method: 'POST', path: /^\/v1\/customers\/([^/]+)\/cards$/, handle: route((self, body, [id]) => self.saveCard(decodeURIComponent(id as string), body)) },
      ],
      { idempotencyHeader: 'x-idempotency-key', notFound: () => error(404, 'resource not found') },
    );
    fake = new FakeMercadoPago(server, accessToken);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private cardToken(body: Record<string, unknown>): FakeAnswer {
    if (typeof body.card_id === 'string') {
      const owner = [...this.customers.values()].find((customer) => customer.cards.has(body.card_id as string));
      if (owner === undefined) return error(400, 'invalid parameter card_id', 'E210');
      const id = randomBytes(16).toString('hex');
      this.tokens.set(id, { holder: owner.cards.get(body.card_id) as string, used: false, cardId: body.card_id });
      return { status: 201, json: { id, card_id: body.card_id, status: 'active' } };
    }
    const number = String(body.card_number ?? '');
    if (!luhn(number)) return error(400, 'invalid parameter cardNumber', 'E301');
    // The security code is required only for cards that have one in use; a vaulted card's is gone after its first use.
    if (body.security_code !== undefined && !/^\d{3,4}$/.test(String(body.security_code))) return error(400, 'invalid parameter securityCode', 'E302');
    if (typeof body.expiration_month !== 'number' || typeof body.expiration_year !== 'number') return error(400, 'invalid parameter cardExpirationMonth', 325);
    const id = randomBytes(16).toString('hex');
    const holder = String((body.cardholder as Record<string, unknown> | undefined)?.name ?? '');
    this.tokens.set(id, { holder, used: false });
    return { status: 201, json: { id, first_six_digits: number.slice(0, 6), last_four_digits: number.slice(-4), expiration_month: body.expiration_month, expiration_year: body.expiration_year, status: 'active', cardholder: { name: holder } } };
  }

  private pay(body: Record<string, unknown>): FakeAnswer {
    const token = this.tokens.get(String(body.token ?? ''));
    if (token === undefined || token.used) return error(400, 'Card Token not found', 2006);
    token.used = true;
    const payer = body.payer as Record<string, unknown> | undefined;
    if (token.cardId !== undefined && (payer?.type !== 'customer' || !this.customers.get(String(payer.id))?.cards.has(token.cardId))) return error(400, 'Invalid users involved', 2034);
    if (typeof body.transaction_amount !== 'number' || body.transaction_amount <= 0) return error(400, 'transaction_amount attribute can\'t be null', 4037);
    if (payer?.type !== 'customer' && typeof payer?.email !== 'string') return error(400, 'payer.email must be a valid email', 4050);
    const first = token.holder.split(' ')[0]?.toUpperCase() ?? '';
    const [status, detail] = TEST_OUTCOMES[first] ?? ['approved', 'accredited'];
    const capture = body.capture !== false;
    const id = this.nextId++;
    const finalStatus = status === 'approved' && !capture ? 'authorized' : status;
    this.payments.set(id, { id, status: finalStatus, amount: body.transaction_amount, captured: finalStatus === 'approved', refunded: 0 });
    return { status: 201, json: this.view(id, finalStatus === 'authorized' ? 'pending_capture' : detail) };
  }

  private update(id: number, body: Record<string, unknown>): FakeAnswer {
    const payment = this.payments.get(id);
    if (payment === undefined) return error(404, 'Payment not found', 2000);
    if (body.status === 'cancelled') {
      if (payment.status !== 'authorized') return error(400, 'Invalid status update', 3040);
      payment.status = 'cancelled';
      return { json: this.view(id, 'by_collector') };
    }
    if (body.capture === true) {
      if (payment.status !== 'authorized') return error(400, 'Payment already captured or not authorized', 3040);
      const amount = typeof body.transaction_amount === 'number' ? body.transaction_amount : payment.amount;
      if (amount > payment.amount) return error(400, 'transaction_amount greater than authorized', 4040);
      payment.amount = amount;
      payment.status = 'approved';
      payment.captured = true;
      return { json: this.view(id, 'accredited') };
    }
    return error(400, 'nothing to update');
  }

  private refund(id: number, body: Record<string, unknown>): FakeAnswer {
    const payment = this.payments.get(id);
    if (payment === undefined) return error(404, 'Payment not found', 2000);
    if (payment.status !== 'approved') return error(400, 'Payment not refundable', 2063);
    const amount = typeof body.amount === 'number' ? body.amount : payment.amount - payment.refunded;
    if (payment.refunded + amount > payment.amount + 1e-9) return error(400, 'Amount exceeds refundable amount', 2085);
    payment.refunded = Math.round((payment.refunded + amount) * 1000) / 1000;
    return { status: 201, json: { id: this.nextId++ + 1_000_000_000, payment_id: id, amount, status: 'approved', source: { id: '1', name: 'Coffer', type: 'collector' } } };
  }

  createCustomer(body: Record<string, unknown>): FakeAnswer {
    const email = String(body.email ?? '');
    if (!email.includes('@')) return error(400, 'invalid email', '100');
    if ([...this.customers.values()].some((customer) => customer.email === email)) return error(400, 'the customer already exist', '101');
    const id = `${this.nextId++}-${randomBytes(7).toString('base64url')}`;
    this.customers.set(id, { email, cards: new Map() });
    return { status: 201, json: { id, email, cards: [] } };
  }

  searchCustomer(request: FakeRequest): FakeAnswer {
    if (request.headers.authorization !== `Bearer ${this.accessToken}`) return error(401, 'invalid access token');
    const email = request.query.get('email');
    const results = [...this.customers.entries()].filter(([, customer]) => customer.email === email).map(([id, customer]) => ({ id, email: customer.email }));
    return { json: { paging: { limit: 10, offset: 0, total: results.length }, results } };
  }

  private saveCard(customerId: string, body: Record<string, unknown>): FakeAnswer {
    const customer = this.customers.get(customerId);
    if (customer === undefined) return error(404, 'Customer not found', '100');
    const token = this.tokens.get(String(body.token ?? ''));
    if (token === undefined || token.used) return error(400, 'invalid card token', 'E210');
    token.used = true;
    const cardId = String(this.nextId++ * 1000);
    customer.cards.set(cardId, token.holder);
    return { status: 201, json: { id: cardId, customer_id: customerId, payment_method: { id: 'visa', name: 'Visa', payment_type_id: 'credit_card' } } };
  }

  private view(id: number, detail: string): Record<string, unknown> {
    const payment = this.payments.get(id) as FakeMercadoPagoPayment;
    return { id, status: payment.status, status_detail: detail, transaction_amount: payment.amount, captured: payment.captured, authorization_code: payment.status === 'rejected' ? null : '301299', binary_mode: true };
  }
}
