import { createHash, randomUUID } from 'node:crypto';
import { containsCardLike } from '../../src/domain/scrubbing/card-like.js';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';

/**
 * A fake Nuvei REST API 1.0 on 127.0.0.1 for e2e tests: /ppp/api/v1/getSessionToken.do,
 * payment.do, payout.do, settleTransaction.do, refundTransaction.do, voidTransaction.do. It checks the merchant
 * ids and each request's checksum (SHA-256 of the documented fields and the secret key, computed
 * here on its own), requires a session token it issued on /payment, refuses a repeated
 * clientRequestId, and keeps transactions in memory. Its own conventions (not Nuvei's): a card
 * holder named "Reject <code>" is declined with that issuerDeclineCode; stored payment options are
 * 13-digit numbers from 9000000000000. Every transactionId and userPaymentOptionId it hands out
 * passes the Luhn check on purpose (about one real transactionId in ten does), so the e2e tests
 * prove Coffer's ids and tokens survive its card-number scrubbing (docs/gateways/nuvei.md).
 */

const FIELDS: Record<string, string[]> = {
  getSessionToken: ['merchantId', 'merchantSiteId', 'clientRequestId', 'timeStamp'],
  payment: ['merchantId', 'merchantSiteId', 'clientRequestId', 'amount', 'currency', 'timeStamp'],
  payout: ['merchantId', 'merchantSiteId', 'clientRequestId', 'amount', 'currency', 'timeStamp'],
  settleTransaction: ['merchantId', 'merchantSiteId', 'clientRequestId', 'clientUniqueId', 'amount', 'currency', 'relatedTransactionId', 'authCode', 'descriptorMerchantName', 'descriptorMerchantPhone', 'comment', 'urlDetails', 'timeStamp'],
  refundTransaction: ['merchantId', 'merchantSiteId', 'clientRequestId', 'clientUniqueId', 'amount', 'currency', 'relatedTransactionId', 'authCode', 'comment', 'urlDetails', 'timeStamp'],
  voidTransaction: ['merchantId', 'merchantSiteId', 'clientRequestId', 'clientUniqueId', 'amount', 'currency', 'relatedTransactionId', 'authCode', 'comment', 'urlDetails', 'timeStamp'],
};

const DECLINES: Record<string, string> = { '05': 'Decline', '51': 'Insufficient Funds', '54': 'Expired Card', N7: 'Decline' };

export interface FakeNuveiTransaction {
  id: string;
  type: 'Sale' | 'Auth' | 'Settle' | 'Refund' | 'Void' | 'Credit';
  status: 'APPROVED' | 'DECLINED' | 'VOIDED';
  amount: number;
  currency: string;
  settled: number;
  refunded: number;
}

export class FakeNuvei {
  readonly transactions = new Map<string, FakeNuveiTransaction>();
  /** userPaymentOptionId → the user it belongs to and the card's last digits. */
  readonly paymentOptions = new Map<string, { userTokenId: string; last4: string; holder: string }>();
  /** Leave /payment requests unanswered from now on (the session request still answers). */
  hangPayments = false;
  private readonly sessions = new Set<string>();
  private readonly requestIds = new Set<string>();
  private nextId = 7110000000002000000n;
  private nextUpo = 9000000000000n;

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly credentials: { merchantId: string; merchantSiteId: string; secretKey: string },
  ) {}

  static async start(credentials: { merchantId: string; merchantSiteId: string; secretKey: string }): Promise<FakeNuvei> {
    let fake: FakeNuvei | null = null;
    const route = (method: string, handler: (self: FakeNuvei, body: Record<string, unknown>) => FakeAnswer) => ({
      method: 'POST',
      path: `/ppp/api/v1/${method}.do`,
      handle: (request: FakeRequest) => {
        const self = fake as FakeNuvei;
        const body = jsonOf(request);
        return self.guard(method, body) ?? handler(self, body);
      },
    });
    const server = await FakeGatewayServer.start(
      [
        route('getSessionToken', (self, body) => self.openSession(body)),
        {
          method: 'POST',
          path: '/ppp/api/v1/payment.do',
          handle: (request: FakeRequest) => {
            const self = fake as FakeNuvei;
            if (self.hangPayments) return new Promise<FakeAnswer>(() => undefined);
            const body = jsonOf(request);
            return self.guard('payment', body) ?? self.pay(body);
          },
        },
        route('payout', (self, body) => self.payout(body)),
        route('settleTransaction', (self, body) => self.settle(body)),
        route('refundTransaction', (self, body) => self.refund(body)),
        route('voidTransaction', (self, body) => self.cancel(body)),
      ],
      { notFound: () => ({ status: 404, body: '<html>Not Found</html>', contentType: 'text/html' }) },
    );
    fake = new FakeNuvei(server, credentials);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** The request's own id as Nuvei's answers echo it, and a refusal in Nuvei's error shape. */
  private error(body: Record<string, unknown>, errCode: number, reason: string): FakeAnswer {
    return { json: { status: 'ERROR', errCode, reason, merchantId: body.merchantId, merchantSiteId: body.merchantSiteId, clientRequestId: body.clientRequestId, internalRequestId: 1, version: '1.0' } };
  }

  private guard(method: string, body: Record<string, unknown>): FakeAnswer | null {
    const { merchantId, merchantSiteId, secretKey } = this.credentials;
    if (body.merchantId !== merchantId) return this.error(body, 1013, 'Invalid merchant ID');
    if (body.merchantSiteId !== merchantSiteId) return this.error(body, 1022, 'Invalid merchant site id');
    if (typeof body.timeStamp !== 'string' || !/^\d{14}$/.test(body.timeStamp)) return this.error(body, 1021, 'Invalid timestamp');
    const fields = FIELDS[method] as string[];
    const expected = createHash('sha256').update(fields.map((field) => (body[field] === undefined ? '' : String(body[field]))).join('') + secretKey).digest('hex');
    if (body.checksum !== expected) return this.error(body, 1001, 'Invalid checksum');
    const requestId = String(body.clientRequestId ?? '');
    if (requestId === '' || this.requestIds.has(requestId)) return this.error(body, 1000, 'Duplicate or missing clientRequestId');
    this.requestIds.add(requestId);
    return null;
  }

  private openSession(body: Record<string, unknown>): FakeAnswer {
    const token = randomUUID();
    this.sessions.add(token);
    return { json: { sessionToken: token, internalRequestId: 1, status: 'SUCCESS', errCode: 0, reason: '', merchantId: body.merchantId, merchantSiteId: body.merchantSiteId, version: '1.0', clientRequestId: body.clientRequestId } };
  }

  /** The next 19-digit id that reads as a card (Luhn-valid): the case Coffer must not mask. */
  private id(): string {
    do this.nextId += 7n;
    while (!containsCardLike(String(this.nextId)));
    return String(this.nextId);
  }

  /** The next 13-digit userPaymentOptionId that reads as a card. */
  private upo(): string {
    do this.nextUpo += 1n;
    while (!containsCardLike(String(this.nextUpo)));
    return String(this.nextUpo);
  }

  private answer(body: Record<string, unknown>, transaction: FakeNuveiTransaction, extra: Record<string, unknown> = {}): FakeAnswer {
    return {
      json: {
        internalRequestId: 2,
        status: 'SUCCESS',
        errCode: 0,
        reason: '',
        merchantId: body.merchantId,
        merchantSiteId: body.merchantSiteId,
        version: '1.0',
        clientRequestId: body.clientRequestId,
        clientUniqueId: body.clientUniqueId,
        transactionStatus: transaction.status === 'VOIDED' ? 'APPROVED' : transaction.status,
        gwErrorCode: 0,
        gwExtendedErrorCode: 0,
        transactionType: transaction.type,
        transactionId: transaction.id,
        externalTransactionId: '',
        authCode: transaction.status === 'DECLINED' ? '' : '111711',
        ...extra,
      },
    };
  }

  private pay(body: Record<string, unknown>): FakeAnswer {
    if (typeof body.sessionToken !== 'string' || !this.sessions.delete(body.sessionToken)) return this.error(body, 1069, 'Session expired');
    const amount = Number(body.amount);
    if (typeof body.amount !== 'string' || Number.isNaN(amount)) return this.error(body, 1040, 'Invalid or missing amount');
    const option = body.paymentOption as Record<string, unknown> | undefined;
    const card = option?.card as Record<string, string> | undefined;
    const stored = typeof option?.userPaymentOptionId === 'string' ? this.paymentOptions.get(option.userPaymentOptionId) : undefined;
    if (option?.userPaymentOptionId !== undefined && (stored === undefined || stored.userTokenId !== body.userTokenId)) return this.error(body, 1011, 'Missing or invalid UserPaymentOption data');
    if (stored === undefined && !/^\d{12,19}$/.test(card?.cardNumber ?? '')) return this.error(body, 1004, 'Missing or invalid CardData data');
    if (stored === undefined && card?.CVV !== undefined && !/^\d{3,4}$/.test(card.CVV)) return this.error(body, 1062, 'cardData.CVV is invalid');
    const holder = stored?.holder ?? card?.cardHolderName ?? '';
    const type = body.transactionType === 'Auth' ? 'Auth' : 'Sale';
    const transaction: FakeNuveiTransaction = { id: this.id(), type, status: 'APPROVED', amount, currency: String(body.currency), settled: type === 'Sale' ? amount : 0, refunded: 0 };
    const reject = /^Reject (\w+)$/.exec(holder);
    const last4 = stored?.last4 ?? (card?.cardNumber ?? '').slice(-4);
    const cardAnswer = { ccCardNumber: `4****${last4}`, last4Digits: last4, cvv2Reply: stored === undefined ? 'M' : '', avsCode: 'Y', cardBrand: 'VISA' };
    if (reject !== null) {
      transaction.status = 'DECLINED';
      this.transactions.set(transaction.id, transaction);
      const code = reject[1] as string;
      return this.answer(body, transaction, { gwErrorCode: -1, gwErrorReason: DECLINES[code] ?? 'Decline', issuerDeclineCode: code, issuerDeclineReason: DECLINES[code] ?? 'Decline', paymentOption: { userPaymentOptionId: '', card: cardAnswer } });
    }
    this.transactions.set(transaction.id, transaction);
    let upo = '';
    if (body.savePM === 'true' && typeof body.userTokenId === 'string' && stored === undefined) {
      upo = this.upo();
      this.paymentOptions.set(upo, { userTokenId: body.userTokenId, last4, holder });
    }
    return this.answer(body, transaction, { orderId: '471833818', paymentOption: { userPaymentOptionId: upo, card: cardAnswer }, externalSchemeTransactionId: `SCHEME${transaction.id.slice(-6)}` });
  }

  private payout(body: Record<string, unknown>): FakeAnswer {
    const amount = Number(body.amount);
    if (typeof body.amount !== 'string' || Number.isNaN(amount) || typeof body.userTokenId !== 'string') return this.error(body, 1019, 'Validation Error');
    const option = (body.userPaymentOption as Record<string, unknown> | undefined)?.userPaymentOptionId;
    const stored = typeof option === 'string' ? this.paymentOptions.get(option) : undefined;
    const card = body.cardData as Record<string, string> | undefined;
    if (option !== undefined && (stored === undefined || stored.userTokenId !== body.userTokenId)) return this.error(body, 1011, 'Missing or invalid UserPaymentOption data');
    if (stored === undefined && !/^\d{12,19}$/.test(card?.cardNumber ?? '')) return this.error(body, 1004, 'Missing or invalid CardData data');
    const credit: FakeNuveiTransaction = { id: this.id(), type: 'Credit', status: 'APPROVED', amount, currency: String(body.currency), settled: 0, refunded: 0 };
    this.transactions.set(credit.id, credit);
    return this.answer(body, credit);
  }

  private related(body: Record<string, unknown>): FakeNuveiTransaction | FakeAnswer {
    const related = this.transactions.get(String(body.relatedTransactionId));
    if (related === undefined) return this.error(body, 1140, 'Invalid relatedTransactionId');
    if (typeof body.clientUniqueId !== 'string' || typeof body.amount !== 'string' || typeof body.currency !== 'string') return this.error(body, 1019, 'Validation Error');
    if (body.currency !== related.currency) return this.error(body, 1041, 'Invalid or missing amount currency');
    return related;
  }

  private declineOf(body: Record<string, unknown>, type: FakeNuveiTransaction['type'], reason: string): FakeAnswer {
    const transaction: FakeNuveiTransaction = { id: this.id(), type, status: 'DECLINED', amount: Number(body.amount), currency: String(body.currency), settled: 0, refunded: 0 };
    return this.answer(body, transaction, { transactionStatus: 'ERROR', gwErrorCode: -1100, gwExtendedErrorCode: 1201, gwErrorReason: reason });
  }

  private settle(body: Record<string, unknown>): FakeAnswer {
    const auth = this.related(body);
    if (!('id' in auth)) return auth;
    const amount = Number(body.amount);
    if (auth.type !== 'Auth' || auth.status !== 'APPROVED') return this.declineOf(body, 'Settle', 'Transaction must be an approved Auth');
    if (auth.settled + amount > auth.amount + 1e-9) return this.declineOf(body, 'Settle', 'Settle amount exceeds the authorized amount');
    auth.settled = Math.round((auth.settled + amount) * 1000) / 1000;
    const settle: FakeNuveiTransaction = { id: this.id(), type: 'Settle', status: 'APPROVED', amount, currency: auth.currency, settled: amount, refunded: 0 };
    this.transactions.set(settle.id, settle);
    return this.answer(body, settle);
  }

  private refund(body: Record<string, unknown>): FakeAnswer {
    const paid = this.related(body);
    if (!('id' in paid)) return paid;
    const amount = Number(body.amount);
    if ((paid.type !== 'Sale' && paid.type !== 'Settle') || paid.status !== 'APPROVED') return this.declineOf(body, 'Refund', 'Transaction cannot be refunded');
    if (paid.refunded + amount > paid.settled + 1e-9) return this.declineOf(body, 'Refund', 'Refund amount exceeds the settled amount');
    paid.refunded = Math.round((paid.refunded + amount) * 1000) / 1000;
    const refund: FakeNuveiTransaction = { id: this.id(), type: 'Refund', status: 'APPROVED', amount, currency: paid.currency, settled: 0, refunded: 0 };
    this.transactions.set(refund.id, refund);
    return this.answer(body, refund);
  }

  private cancel(body: Record<string, unknown>): FakeAnswer {
    const target = this.related(body);
    if (!('id' in target)) return target;
    if (target.status !== 'APPROVED' || target.refunded > 0 || (target.type === 'Auth' && target.settled > 0)) return this.declineOf(body, 'Void', 'Transaction cannot be voided');
    if (Number(body.amount) !== target.amount) return this.declineOf(body, 'Void', 'Void amount must equal the transaction amount');
    target.status = 'VOIDED';
    const voided: FakeNuveiTransaction = { id: this.id(), type: 'Void', status: 'APPROVED', amount: target.amount, currency: target.currency, settled: 0, refunded: 0 };
    this.transactions.set(voided.id, voided);
    return this.answer(body, voided);
  }
}
