import { randomBytes } from 'node:crypto';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';
import { cardFreeId } from './gateway-ids.js';

/**
 * A fake EBANX Direct API on 127.0.0.1 for e2e tests: POST /ws/direct, /ws/verifycard and /ws/token
 * (JSON in the `request_body` form field), /ws/capture, /ws/cancel and /ws/refund (form fields). It
 * checks the integration key, refuses a repeated merchant_payment_code or merchant_refund_code as
 * EBANX does, and keeps payments and stored cards in memory. The fake's own convention (not
 * EBANX's): a card holder named "Reject <reason>" is declined with that reason in the description.
 */

export interface FakeEbanxPayment {
  hash: string;
  status: 'CO' | 'PE' | 'CA';
  amount: number;
  currency: string;
  merchantPaymentCode: string;
  captured: number;
  refunded: number;
}

const error = (code: string, message: string): FakeAnswer => ({ json: { status: 'ERROR', status_code: code, status_message: message } });

export class FakeEbanx {
  readonly payments = new Map<string, FakeEbanxPayment>();
  /** token → holder name of a stored card. */
  readonly tokens = new Map<string, string>();
  readonly refundCodes = new Set<string>();
  /** Every request's parameters by operation, in order. */
  readonly calls: Array<{ operation: string; parameters: Record<string, unknown>; request: FakeRequest }> = [];

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly integrationKey: string,
  ) {}

  static async start(integrationKey: string): Promise<FakeEbanx> {
    let fake: FakeEbanx | null = null;
    const route = (operation: string) => ({ method: 'POST', path: `/ws/${operation}`, handle: (request: FakeRequest) => (fake as FakeEbanx).handle(operation, request) });
    const server = await FakeGatewayServer.start(['direct', 'capture', 'cancel', 'refund', 'verifycard', 'token'].map(route));
    fake = new FakeEbanx(server, integrationKey);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** The calls of one operation that concern this payment hash or merchant_payment_code. */
  callsFor(operation: string, key: string): Record<string, unknown>[] {
    return this.calls.filter((call) => call.operation === operation && JSON.stringify(call.parameters).includes(key)).map((call) => call.parameters);
  }

  private handle(operation: string, request: FakeRequest): FakeAnswer {
    const form = new URLSearchParams(request.rawBody);
    const wrapped = form.get('request_body');
    let parameters: Record<string, unknown>;
    try {
      parameters = wrapped === null ? Object.fromEntries(form) : (JSON.parse(wrapped) as Record<string, unknown>);
    } catch {
      return error('BP-DR-0', 'Invalid request_body');
    }
    this.calls.push({ operation, parameters, request });
    if (parameters.integration_key !== this.integrationKey) return error('DA-1', 'Invalid integration key');
    switch (operation) {
      case 'direct':
        return this.direct(parameters.payment as Record<string, unknown> | undefined);
      case 'capture':
        return this.capture(String(parameters.hash), parameters.amount === undefined ? undefined : Number(parameters.amount));
      case 'cancel':
        return this.cancel(String(parameters.hash));
      case 'refund':
        return this.refund(parameters);
      case 'verifycard':
        return { json: { status: 'SUCCESS', payment_type_code: 'creditcard', card_verification: { transaction_status: { code: 'OK', description: 'Accepted' }, transaction_type: 'ZERO DOLLAR' } } };
      default:
        return this.token(parameters.creditcard as Record<string, unknown> | undefined);
    }
  }

  private answer(payment: FakeEbanxPayment, code: string, description: string, extra: Record<string, unknown> = {}): FakeAnswer {
    return {
      json: {
        payment: { hash: payment.hash, merchant_payment_code: payment.merchantPaymentCode, status: payment.status, amount_ext: payment.amount.toFixed(2), currency_ext: payment.currency, payment_type_code: 'visa', transaction_status: { acquirer: 'EBANX', code, description }, capture_available: payment.status === 'PE' },
        status: 'SUCCESS',
        ...extra,
      },
    };
  }

  private direct(payment: Record<string, unknown> | undefined): FakeAnswer {
    const card = payment?.creditcard as Record<string, unknown> | undefined;
    for (const field of ['name', 'country', 'merchant_payment_code', 'currency_code', 'amount_total']) if (payment?.[field] === undefined) return error('BP-DR-1', `Parameter ${field} not informed`);
    const code = String(payment?.merchant_payment_code);
    if ([...this.payments.values()].some((existing) => existing.merchantPaymentCode === code)) return error('BP-DR-2', 'Payment with this merchant_payment_code already exists');
    const holder = typeof card?.token === 'string' ? this.tokens.get(card.token) : String(card?.card_name ?? '');
    if (holder === undefined) return error('BP-DR-3', 'Token not found');
    if (typeof card?.token !== 'string' && !/^\d{12,19}$/.test(String(card?.card_number ?? ''))) return error('BP-DR-4', 'Invalid card number');
    const hash = cardFreeId(() => randomBytes(24).toString('hex'));
    const amount = Number(payment?.amount_total);
    const rejected = /^Reject (.+)$/i.exec(holder);
    const auto = card?.auto_capture !== false;
    const record: FakeEbanxPayment = { hash, status: rejected !== null ? 'CA' : auto ? 'CO' : 'PE', amount, currency: String(payment?.currency_code), merchantPaymentCode: code, captured: rejected === null && auto ? amount : 0, refunded: 0 };
    this.payments.set(hash, record);
    if (rejected !== null) return this.answer(record, 'NOK', `Transaction declined reason ${rejected[1] as string}`);
    return this.answer(record, 'OK', auto ? 'Accepted' : 'Pre-authorized');
  }

  private capture(hash: string, amount: number | undefined): FakeAnswer {
    const payment = this.payments.get(hash);
    if (payment === undefined) return error('BP-CAP-3', 'Payment not found');
    if (payment.status !== 'PE') return error('BP-CAP-4', 'Payment cannot be captured');
    if (amount !== undefined && amount > payment.amount) return error('BP-CAP-10', 'Amount greater than authorized');
    payment.status = 'CO';
    payment.captured = amount ?? payment.amount;
    return this.answer(payment, 'OK', 'Accepted');
  }

  private cancel(hash: string): FakeAnswer {
    const payment = this.payments.get(hash);
    if (payment === undefined) return error('BP-CAN-2', 'Payment not found');
    if (payment.status !== 'PE') return error('BP-CAN-3', 'Payment cannot be cancelled');
    payment.status = 'CA';
    return this.answer(payment, 'NOK', 'Transaction cancelled');
  }

  private refund(parameters: Record<string, unknown>): FakeAnswer {
    const payment = this.payments.get(String(parameters.hash));
    if (payment === undefined) return error('BP-REF-CAN-2', `Payment not found with this hash: ${String(parameters.hash)}`);
    const code = String(parameters.merchant_refund_code ?? '');
    if (this.refundCodes.has(code)) return error('BP-REF-6', 'Refund with this merchant_refund_code already exists');
    const amount = Number(parameters.amount);
    if (payment.status !== 'CO' || payment.refunded + amount > payment.captured + 1e-9) return error('BP-REF-7', 'Amount greater than available for refund');
    this.refundCodes.add(code);
    payment.refunded = Math.round((payment.refunded + amount) * 100) / 100;
    return this.answer(payment, 'OK', 'Accepted', { refund: { id: String(20000 + this.refundCodes.size), merchant_refund_code: code, status: 'RE', amount_ext: amount.toFixed(2), description: parameters.description }, operation: 'refund' });
  }

  private token(card: Record<string, unknown> | undefined): FakeAnswer {
    if (!/^\d{12,19}$/.test(String(card?.card_number ?? ''))) return error('BP-TK-1', 'Invalid card number');
    const token = cardFreeId(() => randomBytes(32).toString('hex'));
    this.tokens.set(token, String(card?.card_name ?? ''));
    const number = String(card?.card_number);
    return { json: { status: 'SUCCESS', payment_type_code: 'visa', token, masked_card_number: `${number.slice(0, 6)}xxxxxx${number.slice(-4)}` } };
  }
}
