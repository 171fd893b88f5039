import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';
import { cardFreeId } from './gateway-ids.js';

/**
 * A fake Fiserv Commerce Hub on 127.0.0.1 for e2e tests: POST /ch/payments/v1/charges (charge,
 * authorization, or capture with referenceTransactionDetails), /ch/payments/v1/cancels,
 * /ch/payments/v1/refunds, /ch/payments-vas/v1/tokens, /ch/payments-vas/v1/accounts/verification.
 * It checks Api-Key, Auth-Token-Type, a Timestamp within five minutes and the HMAC signature
 * (Base64 HMAC-SHA256 of Api-Key + Client-Request-Id + Timestamp + body under the API secret),
 * computed here on its own, and the merchantDetails of every body; it replays answers by
 * Client-Request-Id, as Commerce Hub documents for idempotency. The fake's own convention (not
 * Commerce Hub's): a card holder whose last name is "Decline <code>" is declined with that
 * gateway response code. State lives in memory.
 */

export interface FakeCommerceHubCharge {
  id: string;
  state: 'AUTHORIZED' | 'CAPTURED' | 'CANCELLED' | 'DECLINED';
  total: number;
  currency: string;
  captured: number;
  refunded: number;
}

export interface FakeCommerceHubCredentials {
  apiKey: string;
  apiSecret: string;
  merchantId: string;
  terminalId: string;
}

const DECLINES: Record<string, string> = { '100': 'Do not honor', '101': 'Expired card', '116': 'Not sufficient funds', '517': 'CVV2 Declined' };

export function commerceHubSignature(secret: string, apiKey: string, clientRequestId: string, timestamp: string, body: string): string {
  return createHmac('sha256', secret).update(apiKey + clientRequestId + timestamp + body).digest('base64');
}

const newId = () => cardFreeId(() => randomUUID().replaceAll('-', ''));

function gatewayError(status: number, type: string, code: string, message: string, field?: string): FakeAnswer {
  return { status, json: { error: [{ type, code, message, ...(field === undefined ? {} : { field }) }] } };
}

function answer(type: string, state: string, id: string, total: number, currency: string, code: string, message: string, extra: Record<string, unknown> = {}): FakeAnswer {
  const approved = code === '000';
  return {
    status: 201,
    json: {
      gatewayResponse: { transactionType: type, transactionState: state, transactionOrigin: 'ECOM', transactionProcessingDetails: { transactionTimestamp: new Date().toISOString(), apiTraceId: id, transactionId: id } },
      paymentReceipt: {
        approvedAmount: { total: approved ? total : 0, currency },
        processorResponseDetails: {
          approvalStatus: approved ? 'APPROVED' : 'DECLINED',
          approvalCode: approved ? 'OK5882' : undefined,
          processor: 'FISERV',
          host: 'NASHVILLE',
          responseCode: code,
          responseMessage: message,
          hostResponseCode: approved ? '00' : '05',
          bankAssociationDetails: { associationResponseCode: 'V000', avsSecurityCodeResponse: { streetMatch: 'MATCH', postalCodeMatch: 'MATCH', securityCodeMatch: 'MATCH', association: { avsCode: 'Y', securityCodeResponse: 'M' } } },
        },
      },
      networkDetails: approved ? { network: { network: 'Visa' }, transactionIdentifier: '013326811921010' } : undefined,
      ...extra,
    },
  };
}

export class FakeCommerceHub {
  readonly charges = new Map<string, FakeCommerceHubCharge>();
  /** tokenData → last four digits of the card it stands for. */
  readonly tokens = new Map<string, string>();

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly credentials: FakeCommerceHubCredentials,
  ) {}

  static async start(credentials: FakeCommerceHubCredentials): Promise<FakeCommerceHub> {
    let fake: FakeCommerceHub | null = null;
    const route = (handler: (self: FakeCommerceHub, body: Record<string, unknown>) => FakeAnswer) => (request: FakeRequest) => {
      const self = fake as FakeCommerceHub;
      return self.guard(request) ?? handler(self, jsonOf(request));
    };
    const server = await FakeGatewayServer.start(
      [
        { method: 'POST', path: '/ch/payments/v1/charges', handle: route((self, body) => (body.referenceTransactionDetails === undefined ? self.charge(body) : self.capture(body))) },
        { method: 'POST', path: '/ch/payments/v1/cancels', handle: route((self, body) => self.cancel(body)) },
        { method: 'POST', path: '/ch/payments/v1/refunds', handle: route((self, body) => self.refund(body)) },
        { method: 'POST', path: '/ch/payments-vas/v1/tokens', handle: route((self, body) => self.tokenize(body)) },
        { method: 'POST', path: '/ch/payments-vas/v1/accounts/verification', handle: route((self, body) => self.verify(body)) },
      ],
      { idempotencyHeader: 'client-request-id', notFound: () => gatewayError(404, 'GATEWAY', '404', 'Not Found') },
    );
    fake = new FakeCommerceHub(server, credentials);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private guard(request: FakeRequest): FakeAnswer | null {
    const { apiKey, apiSecret, merchantId, terminalId } = this.credentials;
    const { headers } = request;
    if (headers['api-key'] !== apiKey) return gatewayError(401, 'APIM', '401', 'Invalid API key');
    if (headers['auth-token-type'] !== 'HMAC' || headers['client-request-id'] === undefined) return gatewayError(400, 'GATEWAY', '104', 'Missing header', 'Auth-Token-Type');
    const timestamp = headers.timestamp ?? '';
    if (!/^\d{13}$/.test(timestamp) || Math.abs(Date.now() - Number(timestamp)) > 5 * 60_000) return gatewayError(401, 'APIM', '401', 'Stale or missing timestamp');
    if (headers.authorization !== commerceHubSignature(apiSecret, apiKey, headers['client-request-id'], timestamp, request.rawBody)) return gatewayError(401, 'APIM', '401', 'HMAC signature mismatch');
    const merchant = jsonOf(request).merchantDetails as Record<string, unknown> | undefined;
    if (merchant?.merchantId !== merchantId || merchant?.terminalId !== terminalId) return gatewayError(400, 'GATEWAY', '109', 'Invalid merchant.', 'merchantDetails.merchantId');
    return null;
  }

  private charge(body: Record<string, unknown>): FakeAnswer {
    const amount = body.amount as { total?: unknown; currency?: unknown } | undefined;
    if (typeof amount?.total !== 'number' || typeof amount.currency !== 'string') return gatewayError(400, 'GATEWAY', '001', 'Invalid amount', 'amount.total');
    const source = body.source as Record<string, unknown> | undefined;
    const card = source?.card as Record<string, unknown> | undefined;
    if (source?.sourceType === 'PaymentToken') {
      if (typeof source.tokenData !== 'string' || !this.tokens.has(source.tokenData)) return gatewayError(400, 'HOST', '403', 'TransArmor Invalid Token or Account Number', 'source.tokenData');
    } else if (source?.sourceType !== 'PaymentCard' || !/^\d{12,19}$/.test(String(card?.cardData ?? ''))) {
      return gatewayError(400, 'GATEWAY', '001', 'Invalid card number', 'source.card.cardData');
    }
    const id = newId();
    const total = amount.total;
    const currency = amount.currency;
    const lastName = String((body.billingAddress as Record<string, unknown> | undefined)?.lastName ?? '');
    const decline = /^Decline (\d{3})$/.exec(lastName);
    if (decline !== null) {
      const code = decline[1] as string;
      this.charges.set(id, { id, state: 'DECLINED', total, currency, captured: 0, refunded: 0 });
      return answer('CHARGE', 'DECLINED', id, total, currency, code, DECLINES[code] ?? 'Decline');
    }
    const capture = (body.transactionDetails as Record<string, unknown> | undefined)?.captureFlag === true;
    this.charges.set(id, { id, state: capture ? 'CAPTURED' : 'AUTHORIZED', total, currency, captured: capture ? total : 0, refunded: 0 });
    return answer('CHARGE', capture ? 'CAPTURED' : 'AUTHORIZED', id, total, currency, '000', 'Approved');
  }

  private referenced(body: Record<string, unknown>): FakeCommerceHubCharge | undefined {
    const reference = body.referenceTransactionDetails as Record<string, unknown> | undefined;
    return this.charges.get(String(reference?.referenceTransactionId));
  }

  private capture(body: Record<string, unknown>): FakeAnswer {
    const auth = this.referenced(body);
    if (auth === undefined) return gatewayError(400, 'GATEWAY', '333', 'No previous transaction', 'referenceTransactionDetails.referenceTransactionId');
    if (auth.state !== 'AUTHORIZED') return gatewayError(400, 'GATEWAY', '776', 'Duplicate Completion');
    const total = (body.amount as { total?: number } | undefined)?.total ?? auth.total;
    if (total > auth.total) return gatewayError(400, 'HOST', '771', 'Amount Too Large', 'amount.total');
    auth.state = 'CAPTURED';
    auth.captured = total;
    const id = newId();
    // A capture is a charge of its own: refunds and cancels refer to its id.
    this.charges.set(id, { id, state: 'CAPTURED', total, currency: auth.currency, captured: total, refunded: 0 });
    return answer('CHARGE', 'CAPTURED', id, total, auth.currency, '000', 'Approved');
  }

  private cancel(body: Record<string, unknown>): FakeAnswer {
    const charge = this.referenced(body);
    if (charge === undefined) return gatewayError(400, 'GATEWAY', '333', 'No previous transaction');
    if (charge.state !== 'AUTHORIZED') return gatewayError(400, 'GATEWAY', '334', 'Already reversed');
    charge.state = 'CANCELLED';
    return answer('CANCEL', 'AUTHORIZED', newId(), charge.total, charge.currency, '000', 'APPROVAL');
  }

  private refund(body: Record<string, unknown>): FakeAnswer {
    const charge = this.referenced(body);
    if (charge === undefined) return gatewayError(400, 'GATEWAY', '333', 'No previous transaction');
    if (charge.state !== 'CAPTURED') return gatewayError(400, 'GATEWAY', '244', 'Original transaction not approved.');
    const total = (body.amount as { total?: number } | undefined)?.total ?? charge.captured - charge.refunded;
    if (charge.refunded + total > charge.captured + 1e-9) return gatewayError(400, 'HOST', '771', 'Amount Too Large', 'amount.total');
    charge.refunded = Math.round((charge.refunded + total) * 1000) / 1000;
    return answer('REFUND', 'CAPTURED', newId(), total, charge.currency, '000', 'Approved');
  }

  private tokenize(body: Record<string, unknown>): FakeAnswer {
    const card = (body.source as Record<string, unknown> | undefined)?.card as Record<string, unknown> | undefined;
    const number = String(card?.cardData ?? '');
    if (!/^\d{12,19}$/.test(number)) return gatewayError(400, 'GATEWAY', '001', 'Invalid card number', 'source.card.cardData');
    // A TransArmor-like token: 16 characters, never card-like (Coffer scrubs card-like text by design).
    const token = cardFreeId(() => `${randomBytes(6).toString('hex')}${number.slice(-4)}`);
    this.tokens.set(token, number.slice(-4));
    const id = newId();
    return {
      status: 201,
      json: {
        gatewayResponse: { transactionType: 'TOKENIZE', transactionState: 'AUTHORIZED', transactionOrigin: 'ECOM', transactionProcessingDetails: { transactionId: id, apiTraceId: id } },
        source: { sourceType: 'PaymentCard', card: { last4: number.slice(-4), scheme: 'VISA', expirationMonth: card?.expirationMonth, expirationYear: card?.expirationYear } },
        paymentTokens: [{ tokenData: token, tokenSource: 'TRANSARMOR', tokenResponseCode: '000', tokenResponseDescription: 'SUCCESS' }],
        processorResponseDetails: { approvalStatus: 'APPROVED', responseCode: '000', responseMessage: 'APPROVAL' },
      },
    };
  }

  private verify(body: Record<string, unknown>): FakeAnswer {
    const card = (body.source as Record<string, unknown> | undefined)?.card as Record<string, unknown> | undefined;
    if (!/^\d{12,19}$/.test(String(card?.cardData ?? ''))) return gatewayError(400, 'GATEWAY', '001', 'Invalid card number', 'source.card.cardData');
    const lastName = String((body.billingAddress as Record<string, unknown> | undefined)?.lastName ?? '');
    const verified = !lastName.startsWith('Decline');
    const id = newId();
    const base = answer('VERIFICATION', verified ? 'VERIFIED' : 'NOT_VERIFIED', id, 0, 'USD', verified ? '000' : '100', verified ? 'Approved' : 'Do not honor');
    return base;
  }
}
