import { createHmac, randomBytes, randomInt } from 'node:crypto';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';
import { cardFreeId } from './gateway-ids.js';

/**
 * A fake Worldline Connect server API on 127.0.0.1 for e2e tests: POST /v1/{merchantId}/payments,
 * /payments/{id}/approve, /payments/{id}/cancel, /payments/{id}/refund and /tokens. It recomputes
 * the v1HMAC signature on its own (HMAC-SHA256 under the secret API key of method, content type,
 * Date, the sorted X-GCS headers and the path), refuses a Date more than 15 minutes off, and replays
 * answers by X-GCS-Idempotence-Key. The fake's own convention (not Connect's): a card holder whose
 * last name is "Decline <code>" is rejected with that Connect error code (HTTP 402).
 */

export interface FakeConnectPayment {
  id: string;
  status: 'PENDING_APPROVAL' | 'CAPTURE_REQUESTED' | 'CANCELLED' | 'REJECTED' | 'ACCOUNT_VERIFIED';
  amount: number;
  currencyCode: string;
  captured: number;
  refunded: number;
}

export interface FakeConnectCredentials {
  merchantId: string;
  apiKeyId: string;
  secretApiKey: string;
}

const DECLINES: Record<string, string> = { '430285': 'Not authorised', '430360': 'Not authorised', '430306': 'Card expired' };

/** Connect's v1HMAC over the request, as its "Authentication" page describes it. */
export function connectSignature(secret: string, method: string, contentType: string, date: string, headers: Record<string, string>, path: string): string {
  const gcs = Object.keys(headers)
    .filter((name) => name.startsWith('x-gcs-'))
    .sort()
    .map((name) => `${name}:${(headers[name] ?? '').trim()}\n`)
    .join('');
  return createHmac('sha256', secret).update(`${method}\n${contentType}\n${date}\n${gcs}${path}\n`).digest('base64');
}

const newId = () => cardFreeId(() => `000000${randomInt(1000, 9999)}${randomBytes(5).toString('hex')}0000100001`);

function errors(status: number, code: string, message: string, propertyName?: string): FakeAnswer {
  return { status, json: { errorId: randomBytes(8).toString('hex'), errors: [{ code, message, httpStatusCode: status, ...(propertyName === undefined ? {} : { propertyName }) }] } };
}

function paymentJson(payment: FakeConnectPayment, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const authorized = payment.status === 'PENDING_APPROVAL' || payment.status === 'CAPTURE_REQUESTED';
  const category = { PENDING_APPROVAL: 'PENDING_MERCHANT', CAPTURE_REQUESTED: 'PENDING_CONNECT_OR_3RD_PARTY', CANCELLED: 'UNSUCCESSFUL', REJECTED: 'UNSUCCESSFUL', ACCOUNT_VERIFIED: 'ACCOUNT_VERIFIED' }[payment.status];
  const code = { PENDING_APPROVAL: 600, CAPTURE_REQUESTED: 800, CANCELLED: 99999, REJECTED: 100, ACCOUNT_VERIFIED: 300 }[payment.status];
  return {
    id: payment.id,
    paymentOutput: {
      amountOfMoney: { amount: payment.amount, currencyCode: payment.currencyCode },
      references: { paymentReference: '0' },
      paymentMethod: 'card',
      cardPaymentMethodSpecificOutput: { paymentProductId: 1, authorisationCode: authorized ? 'OK1131' : undefined, fraudResults: { fraudServiceResult: 'no-advice', avsResult: 'Y', cvvResult: 'M' }, card: { cardNumber: '************4977', expiryDate: '0330' } },
    },
    status: payment.status,
    statusOutput: { isCancellable: payment.status === 'PENDING_APPROVAL', statusCategory: category, statusCode: code, isAuthorized: authorized, ...extra },
  };
}

export class FakeGlobalCollect {
  readonly payments = new Map<string, FakeConnectPayment>();
  /** token → last four digits of the card. */
  readonly tokens = new Map<string, string>();
  /** Hold every card payment for approval, whatever requiresApproval says (some Connect set-ups do). */
  alwaysRequireApproval = false;

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly credentials: FakeConnectCredentials,
  ) {}

  static async start(credentials: FakeConnectCredentials): Promise<FakeGlobalCollect> {
    let fake: FakeGlobalCollect | null = null;
    const base = `/v1/${credentials.merchantId}`;
    const route = (handler: (self: FakeGlobalCollect, body: Record<string, unknown>, params: string[]) => FakeAnswer) => (request: FakeRequest, params: string[]) => {
      const self = fake as FakeGlobalCollect;
      return self.guard(request) ?? handler(self, jsonOf(request), params);
    };
    const server = await FakeGatewayServer.start(
      [
        { method: 'POST', path: `${base}/payments`, handle: route((self, body) => self.create(body)) },
        { method: 'POST', path: new RegExp(`^${base}/payments/([^/]+)/approve$`), handle: route((self, body, [id]) => self.approve(id as string, body)) },
        { method: 'POST', path: new RegExp(`^${base}/payments/([^/]+)/cancel$`), handle: route((self, _body, [id]) => self.cancel(id as string)) },
        { method: 'POST', path: new RegExp(`^${base}/payments/([^/]+)/refund$`), handle: route((self, body, [id]) => self.refund(id as string, body)) },
        { method: 'POST', path: `${base}/tokens`, handle: route((self, body) => self.tokenize(body)) },
      ],
      { idempotencyHeader: 'x-gcs-idempotence-key', notFound: () => errors(404, '1002', 'UNKNOWN_SERVER_ERROR') },
    );
    fake = new FakeGlobalCollect(server, credentials);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private guard(request: FakeRequest): FakeAnswer | null {
    const { apiKeyId, secretApiKey } = this.credentials;
    const match = /^GCS v1HMAC:([^:]+):(.+)$/.exec(request.headers.authorization ?? '');
    const date = request.headers.date ?? '';
    if (match === null || match[1] !== apiKeyId) return errors(401, '9002', 'MISSING_OR_INVALID_AUTHORIZATION');
    if (Number.isNaN(Date.parse(date)) || Math.abs(Date.now() - Date.parse(date)) > 15 * 60_000) return errors(401, '9007', 'INVALID_DATE');
    const expected = connectSignature(secretApiKey, request.method, request.headers['content-type'] ?? '', date, request.headers, request.path);
    if (match[2] !== expected) return errors(401, '9002', 'MISSING_OR_INVALID_AUTHORIZATION');
    return null;
  }

  private create(body: Record<string, unknown>): FakeAnswer {
    const order = body.order as Record<string, unknown> | undefined;
    const money = order?.amountOfMoney as { amount?: unknown; currencyCode?: unknown } | undefined;
    if (!Number.isInteger(money?.amount) || typeof money?.currencyCode !== 'string') return errors(400, '21000020', 'VALUE_OUT_OF_RANGE', 'order.amountOfMoney.amount');
    const input = body.cardPaymentMethodSpecificInput as Record<string, unknown> | undefined;
    const card = input?.card as Record<string, unknown> | undefined;
    if (typeof input?.token === 'string') {
      if (!this.tokens.has(input.token)) return errors(400, '1006', 'INVALID_TOKEN', 'cardPaymentMethodSpecificInput.token');
    } else if (!/^\d{12,19}$/.test(String(card?.cardNumber ?? ''))) {
      return errors(400, '21000020', 'VALUE_OUT_OF_RANGE', 'cardPaymentMethodSpecificInput.card.cardNumber');
    } else if (!/^\d{4}$/.test(String(card?.expiryDate ?? ''))) {
      return errors(400, '21000020', 'VALUE_OUT_OF_RANGE', 'cardPaymentMethodSpecificInput.card.expiryDate');
    }
    if (typeof input?.paymentProductId !== 'number') return errors(400, '1007', 'UNKNOWN_PRODUCT_ID', 'cardPaymentMethodSpecificInput.paymentProductId');
    const id = newId();
    const amount = money.amount as number;
    const surname = String(((order?.customer as Record<string, unknown> | undefined)?.personalInformation as { name?: { surname?: string } } | undefined)?.name?.surname ?? '');
    const decline = /^Decline (\d+)$/.exec(surname);
    if (decline !== null) {
      const code = decline[1] as string;
      const payment: FakeConnectPayment = { id, status: 'REJECTED', amount, currencyCode: money.currencyCode, captured: 0, refunded: 0 };
      this.payments.set(id, payment);
      const error = { code, requestId: '55635', message: DECLINES[code] ?? 'Not authorised' };
      return { status: 402, json: { errorId: randomBytes(8).toString('hex'), errors: [error], paymentResult: { creationOutput: { externalReference: id }, payment: paymentJson(payment, { errors: [error] }) } } };
    }
    let status: FakeConnectPayment['status'];
    if (amount === 0) status = 'ACCOUNT_VERIFIED';
    else status = input.requiresApproval === false && !this.alwaysRequireApproval ? 'CAPTURE_REQUESTED' : 'PENDING_APPROVAL';
    const payment: FakeConnectPayment = { id, status, amount, currencyCode: money.currencyCode, captured: status === 'CAPTURE_REQUESTED' ? amount : 0, refunded: 0 };
    this.payments.set(id, payment);
    return { status: 201, json: { creationOutput: { additionalReference: id.slice(0, 20), externalReference: id }, payment: paymentJson(payment) } };
  }

  private approve(id: string, body: Record<string, unknown>): FakeAnswer {
    const payment = this.payments.get(decodeURIComponent(id));
    if (payment === undefined) return errors(404, '1002', 'INVALID_PAYMENT_ID', 'paymentId');
    if (payment.status !== 'PENDING_APPROVAL') return errors(409, '300450', 'ORDER WITHOUT REFUNDABLE PAYMENTS');
    const amount = typeof body.amount === 'number' ? body.amount : payment.amount;
    if (amount > payment.amount) return errors(400, '21000020', 'VALUE_OUT_OF_RANGE', 'amount');
    payment.status = 'CAPTURE_REQUESTED';
    payment.captured = amount;
    return { status: 200, json: { payment: paymentJson(payment) } };
  }

  private cancel(id: string): FakeAnswer {
    const payment = this.payments.get(decodeURIComponent(id));
    if (payment === undefined) return errors(404, '1002', 'INVALID_PAYMENT_ID', 'paymentId');
    if (payment.status !== 'PENDING_APPROVAL') return errors(409, '410120', 'PAYMENT_NOT_CANCELLABLE');
    payment.status = 'CANCELLED';
    return { status: 200, json: { payment: paymentJson(payment), cardPaymentMethodSpecificOutput: { voidResponseId: '00' } } };
  }

  private refund(id: string, body: Record<string, unknown>): FakeAnswer {
    const payment = this.payments.get(decodeURIComponent(id));
    if (payment === undefined) return errors(404, '1002', 'INVALID_PAYMENT_ID', 'paymentId');
    if (payment.status !== 'CAPTURE_REQUESTED') return errors(409, '300450', 'ORDER WITHOUT REFUNDABLE PAYMENTS');
    const money = body.amountOfMoney as { amount?: number; currencyCode?: string } | undefined;
    const amount = money?.amount ?? payment.captured - payment.refunded;
    if (payment.refunded + amount > payment.captured) return errors(400, '21000020', 'VALUE_OUT_OF_RANGE', 'amountOfMoney.amount');
    payment.refunded += amount;
    return { status: 201, json: { id: newId(), refundOutput: { amountOfMoney: { amount, currencyCode: payment.currencyCode }, paymentMethod: 'card' }, status: 'REFUND_REQUESTED', statusOutput: { isCancellable: true, statusCategory: 'PENDING_CONNECT_OR_3RD_PARTY', statusCode: 800 } } };
  }

  private tokenize(body: Record<string, unknown>): FakeAnswer {
    const data = ((body.card as Record<string, unknown> | undefined)?.data as Record<string, unknown> | undefined)?.cardWithoutCvv as Record<string, unknown> | undefined;
    const number = String(data?.cardNumber ?? '');
    if (!/^\d{12,19}$/.test(number)) return errors(400, '21000020', 'VALUE_OUT_OF_RANGE', 'card.data.cardWithoutCvv.cardNumber');
    const token = cardFreeId(() => `${randomBytes(4).toString('hex')}-${randomBytes(2).toString('hex')}-${randomBytes(2).toString('hex')}-${randomBytes(6).toString('hex')}`);
    this.tokens.set(token, number.slice(-4));
    return { status: 201, json: { token, isNewToken: true } };
  }
}
