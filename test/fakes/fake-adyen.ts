import { randomBytes } from 'node:crypto';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';

/**
 * A fake Adyen Checkout API v71 on 127.0.0.1 for e2e tests, on the shared FakeGatewayServer: the
 * routes Coffer's Adyen module uses (/payments, /payments/{psp}/captures|refunds|cancels,
 * /storedPaymentMethods), X-API-Key or Basic auth, the merchant account check, required fields,
 * Idempotency-Key replay, and Adyen's test conventions: the card holder name picks the refusal
 * (DECLINED, NOT_ENOUGH_BALANCE, CVC_DECLINED, CARD_EXPIRED, … as on Adyen's "Testing result
 * codes" page; spaces count as underscores). State lives in memory for assertions.
 */

export interface FakeAdyenPayment {
  pspReference: string;
  amount: { value: number; currency: string };
  manualCapture: boolean;
  captured: number;
  refunded: number;
  cancelled: boolean;
}

/** holderName → [refusalReasonCode, refusalReason, resultCode] (Adyen's "Testing result codes"). */
const TEST_REFUSALS: Record<string, [string, string, string]> = {
  DECLINED: ['2', 'Refused', 'Refused'],
  REFERRAL: ['3', 'Referral', 'Refused'],
  ERROR: ['4', 'Acquirer Error', 'Error'],
  BLOCK_CARD: ['5', 'Blocked Card', 'Refused'],
  CARD_EXPIRED: ['6', 'Expired Card', 'Refused'],
  NOT_ENOUGH_BALANCE: ['12', 'Not enough balance', 'Refused'],
  CVC_DECLINED: ['24', 'CVC Declined', 'Refused'],
};

const serviceError = (status: number, errorCode: string, message: string, errorType = 'validation'): FakeAnswer => ({
  status,
  json: { status, errorCode, message, errorType, pspReference: psp() },
});

/** A pspReference shaped like Adyen's documented ones (`993617895204576J`): 15 digits and a letter. */
function psp(): string {
  const digits = Array.from(randomBytes(15), (byte) => String(byte % 10)).join('');
  return `${digits}${String.fromCharCode(65 + (randomBytes(1)[0] as number) % 26)}`;
}

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return /^\d{12,19}$/.test(digits) && sum % 10 === 0;
}

export class FakeAdyen {
  readonly payments = new Map<string, FakeAdyenPayment>();
  /** storedPaymentMethodId → shopperReference and card. */
  readonly stored = new Map<string, { shopperReference: string; card: Record<string, unknown> }>();
  private constructor(
    readonly server: FakeGatewayServer,
    private readonly merchantAccount: string,
    private readonly apiKeys: Set<string>,
  ) {}

  static async start(options: { merchantAccount: string; apiKeys: string[] }): Promise<FakeAdyen> {
    let fake: FakeAdyen | null = null;
    const route = (handler: (fake: FakeAdyen, request: FakeRequest, params: string[]) => FakeAnswer) => (request: FakeRequest, params: string[]) => (fake as FakeAdyen).guard(request) ?? handler(fake as FakeAdyen, request, params);
    const server = await FakeGatewayServer.start(
      [
        { method: 'POST', path: /^(?:\/checkout)?\/v71\/payments$/, handle: route((self, request) => self.pay(jsonOf(request))) },
        { method: 'POST', path: /^(?:\/checkout)?\/v71\/payments\/([^/]+)\/(captures|refunds|cancels)$/, handle: route((self, request, [reference, kind]) => self.modify(reference as string, kind as string, jsonOf(request))) },
        { method: 'POST', path: /^(?:\/checkout)?\/v71\/storedPaymentMethods$/, handle: route((self, request) => self.store(jsonOf(request))) },
      ],
      { idempotencyHeader: 'idempotency-key', notFound: () => serviceError(404, '000', 'Not found', 'validation') },
    );
    fake = new FakeAdyen(server, options.merchantAccount, new Set(options.apiKeys));
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** Auth (X-API-Key, or Basic with any user whose password is a known key) and the merchant account. */
  private guard(request: FakeRequest): FakeAnswer | null {
    const apiKey = request.headers['x-api-key'];
    const basic = /^Basic (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    const password = basic === undefined ? undefined : Buffer.from(basic, 'base64').toString('utf8').split(':').slice(1).join(':');
    if (!this.apiKeys.has(apiKey ?? password ?? '')) return serviceError(401, '000', 'HTTP Status Response - Unauthorized', 'security');
    let body: Record<string, unknown>;
    try {
      body = jsonOf(request);
    } catch {
      return serviceError(400, '702', 'Unexpected input', 'validation');
    }
    if (body.merchantAccount !== this.merchantAccount) return serviceError(403, '901', 'Invalid Merchant Account', 'security');
    return null;
  }

  private pay(body: Record<string, unknown>): FakeAnswer {
    for (const field of ['amount', 'reference', 'paymentMethod', 'returnUrl']) {
      if (body[field] === undefined) return field === 'returnUrl' ? serviceError(422, '14_030', 'Return URL is missing.') : serviceError(422, '130', `Required field '${field}' is not provided.`);
    }
    const amount = body.amount as { value: number; currency: string };
    const method = body.paymentMethod as Record<string, unknown>;
    let card = method;
    if (typeof method.storedPaymentMethodId === 'string') {
      const stored = this.stored.get(method.storedPaymentMethodId);
      if (stored === undefined || stored.shopperReference !== body.shopperReference) return serviceError(422, '800', 'Contract not found');
      card = stored.card;
    } else if (!luhn(String(method.number ?? ''))) {
      return serviceError(422, '101', 'Invalid card number');
    }
    const reference = psp();
    const holder = String(card.holderName ?? '').toUpperCase().replace(/ /g, '_');
    const refusal = TEST_REFUSALS[holder];
    if (refusal !== undefined) {
      return { json: { pspReference: reference, resultCode: refusal[2], refusalReason: refusal[1], refusalReasonCode: refusal[0], merchantReference: body.reference } };
    }
    const manualCapture = (body.additionalData as Record<string, unknown> | undefined)?.manualCapture === 'true';
    this.payments.set(reference, { pspReference: reference, amount, manualCapture, captured: manualCapture ? 0 : amount.value, refunded: 0, cancelled: false });
    const billing = body.billingAddress as Record<string, unknown> | undefined;
    return {
      json: {
        additionalData: {
          authCode: String(100000 + Math.floor(Math.random() * 899999)),
          avsResult: billing === undefined ? '5 No AVS data provided' : '7 Both postal code and address match',
          cvcResult: card.cvc === undefined ? '6 No CVC/CVV provided' : '1 Matches',
          refusalReasonRaw: 'AUTHORISED',
          // Adyen returns the scheme's transaction id under the MIT framework (a recurring model was sent).
          ...(body.recurringProcessingModel === undefined ? {} : { networkTxReference: `nti_${reference}` }),
        },
        pspReference: reference,
        resultCode: 'Authorised',
        merchantReference: body.reference,
      },
    };
  }

  private modify(reference: string, kind: string, body: Record<string, unknown>): FakeAnswer {
    const payment = this.payments.get(reference);
    if (payment === undefined) return serviceError(422, '167', 'Original pspReference required for this operation');
    const amount = body.amount as { value: number; currency: string } | undefined;
    if (kind !== 'cancels' && amount === undefined) return serviceError(422, '137', 'Invalid amount specified');
    if (amount !== undefined && amount.currency !== payment.amount.currency) return serviceError(422, '138', 'Invalid currency specified');
    // Adyen accepts modifications asynchronously; the fake applies them at once for assertions.
    if (kind === 'captures') payment.captured += amount?.value ?? 0;
    if (kind === 'refunds') payment.refunded += amount?.value ?? 0;
    if (kind === 'cancels') payment.cancelled = true;
    return {
      status: 201,
      json: { merchantAccount: body.merchantAccount, paymentPspReference: reference, reference: body.reference, pspReference: psp(), status: 'received', ...(amount === undefined ? {} : { amount }) },
    };
  }

  private store(body: Record<string, unknown>): FakeAnswer {
    const card = body.paymentMethod as Record<string, unknown> | undefined;
    if (typeof body.shopperReference !== 'string' || body.shopperReference.length < 3) return serviceError(422, '130', "Required field 'shopperReference' is not provided.");
    if (body.recurringProcessingModel === undefined) return serviceError(422, '130', "Required field 'recurringProcessingModel' is not provided.");
    if (card === undefined || !luhn(String(card.number ?? ''))) return serviceError(422, '101', 'Invalid card number');
    // Never all digits: a Luhn-valid 16-digit id would read as a card number and be scrubbed from the answer.
    let id = randomBytes(8).toString('hex').toUpperCase();
    while (/^[0-9]+$/.test(id)) id = randomBytes(8).toString('hex').toUpperCase();
    this.stored.set(id, { shopperReference: body.shopperReference, card });
    const number = String(card.number);
    return { status: 201, json: { expiryMonth: card.expiryMonth, expiryYear: card.expiryYear, holderName: card.holderName, id, lastFour: number.slice(-4), shopperReference: body.shopperReference, type: 'scheme' } };
  }
}
