import { randomBytes } from 'node:crypto';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';

/**
 * A fake Checkout.com unified payments API on 127.0.0.1 for e2e tests, on the shared
 * FakeGatewayServer: POST /payments (card and id sources, capture true/false, amount-0 card
 * verification), POST /payments/{id}/captures|refunds|voids (202 with action_id), Bearer secret key
 * auth (401 with an empty body otherwise), Cko-Idempotency-Key replay, 422 request_invalid with
 * error_codes, and a decline convention modelled on the sandbox's amount-driven response codes: an
 * amount ending in 05, 14, 51 or 54 is declined with 20005, 20014, 20051 or 20054. State lives in
 * memory for assertions.
 */

export interface FakeCheckoutPayment {
  id: string;
  amount: number;
  currency: string;
  captured: number;
  refunded: number;
  voided: boolean;
  sourceId: string;
}

const DECLINES: Record<string, [string, string]> = {
  '05': ['20005', 'Declined - Do not honour'],
  '14': ['20014', 'Invalid account number (no such number)'],
  '51': ['20051', 'Insufficient Funds'],
  '54': ['20054', 'Expired Card'],
};

const id = (prefix: string) => `${prefix}_${Array.from(randomBytes(26), (byte) => 'abcdefghijklmnopqrstuvwxyz234567'[byte % 32]).join('')}`;
const invalid = (...codes: string[]): FakeAnswer => ({ status: 422, json: { request_id: id('req'), error_type: 'request_invalid', error_codes: codes } });

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return /^\d{12,19}$/.test(digits) && sum % 10 === 0;
}

/** A 15-digit scheme transaction id like the documented ones, never Luhn-valid (Coffer's leak scan would take it for a PAN). */
function schemeId(): string {
  const digits = String(100000000000000 + Math.floor(Math.random() * 899999999999999));
  return luhn(digits) ? `${digits.slice(0, -1)}${(Number(digits.slice(-1)) + 1) % 10}` : digits;
}

export class FakeCheckout {
  readonly payments = new Map<string, FakeCheckoutPayment>();
  /** src_... → the card it stands for. */
  readonly sources = new Map<string, Record<string, unknown>>();
  private constructor(
    readonly server: FakeGatewayServer,
    private readonly secretKey: string,
  ) {}

  static async start(options: { secretKey: string }): Promise<FakeCheckout> {
    let fake: FakeCheckout | null = null;
    const route = (handler: (self: FakeCheckout, request: FakeRequest, params: string[]) => FakeAnswer) => (request: FakeRequest, params: string[]) => {
      const self = fake as FakeCheckout;
      if (request.headers.authorization !== `Bearer ${self.secretKey}`) return { status: 401, body: '' };
      return handler(self, request, params);
    };
    const server = await FakeGatewayServer.start(
      [
        { method: 'POST', path: '/payments', handle: route((self, request) => self.pay(jsonOf(request))) },
        { method: 'POST', path: /^\/payments\/([^/]+)\/(captures|refunds|voids)$/, handle: route((self, request, [payment, kind]) => self.act(payment as string, kind as string, jsonOf(request))) },
      ],
      { idempotencyHeader: 'cko-idempotency-key', notFound: () => ({ status: 404, body: '' }) },
    );
    fake = new FakeCheckout(server, options.secretKey);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private pay(body: Record<string, unknown>): FakeAnswer {
    const source = body.source as Record<string, unknown> | undefined;
    if (source === undefined) return invalid('payment_source_required');
    if (typeof body.currency !== 'string') return invalid('currency_required');
    if (typeof body.amount !== 'number' || !Number.isInteger(body.amount) || body.amount < 0) return invalid('amount_invalid');
    let sourceId: string;
    let card: Record<string, unknown>;
    if (source.type === 'id') {
      const known = this.sources.get(String(source.id));
      if (known === undefined) return invalid('source_id_invalid');
      sourceId = String(source.id);
      card = known;
    } else if (source.type === 'card') {
      if (!luhn(String(source.number ?? ''))) return invalid('card_number_invalid');
      if (typeof source.expiry_month !== 'number' || typeof source.expiry_year !== 'number') return invalid('card_expiry_month_invalid');
      sourceId = id('src');
      card = source;
      this.sources.set(sourceId, source);
    } else {
      return invalid('payment_source_type_invalid');
    }
    const paymentId = id('pay');
    const decline = body.amount === 0 ? undefined : DECLINES[String(body.amount).padStart(2, '0').slice(-2)];
    const answer = {
      id: paymentId,
      action_id: id('act'),
      amount: body.amount,
      currency: body.currency,
      reference: body.reference,
      scheme_id: schemeId(),
      source: {
        type: 'card',
        id: sourceId,
        expiry_month: card.expiry_month,
        expiry_year: card.expiry_year,
        last4: String(card.number).slice(-4),
        avs_check: card.billing_address === undefined ? 'S' : 'Y',
        cvv_check: card.cvv === undefined ? 'X' : 'Y',
      },
      processed_on: new Date().toISOString(),
    };
    if (decline !== undefined) {
      return { status: 201, json: { ...answer, approved: false, status: 'Declined', response_code: decline[0], response_summary: decline[1] } };
    }
    const verification = body.amount === 0;
    const capture = !verification && body.capture !== false;
    this.payments.set(paymentId, { id: paymentId, amount: body.amount, currency: body.currency, captured: capture ? body.amount : 0, refunded: 0, voided: false, sourceId });
    const status = verification ? 'Card Verified' : capture ? 'Captured' : 'Authorized';
    return { status: 201, json: { ...answer, approved: true, status, auth_code: '770687', response_code: '10000', response_summary: 'Approved' } };
  }

  /** Captures, refunds and voids are applied at once (Checkout.com processes them asynchronously). */
  private act(paymentId: string, kind: string, body: Record<string, unknown>): FakeAnswer {
    const payment = this.payments.get(paymentId);
    if (payment === undefined) return { status: 404, body: '' };
    const amount = typeof body.amount === 'number' ? body.amount : undefined;
    if (kind === 'captures') {
      // Several partial captures may add up to the authorized amount.
      const take = amount ?? payment.amount - payment.captured;
      if (payment.voided || take <= 0 || payment.captured + take > payment.amount) return { status: 403, body: '' };
      payment.captured += take;
    } else if (kind === 'refunds') {
      const refund = amount ?? payment.captured - payment.refunded;
      if (refund <= 0 || refund > payment.captured - payment.refunded) return { status: 403, body: '' };
      payment.refunded += refund;
    } else {
      if (payment.voided || payment.captured > 0) return { status: 403, body: '' };
      payment.voided = true;
    }
    return { status: 202, json: { action_id: id('act'), reference: body.reference, _links: { payment: { href: `${this.url}/payments/${paymentId}` } } } };
  }
}
