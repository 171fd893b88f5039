import { randomUUID } from 'node:crypto';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';

/**
 * A local Braintree GraphQL API (POST /graphql) for adapter and e2e tests: Basic auth with the
 * keys it was started with, `Braintree-Version` required, the mutations Coffer sends, with state
 * (single-use payment methods consumed, vaulted ones reusable, transactions through their statuses).
 * Answer shapes follow Braintree's GraphQL guides (data.<mutation>, extensions.requestId) and
 * schema; errors carry extensions.errorClass and legacyCode. Sandbox-like triggers:
 *  - amounts 2000.00–2999.99 are processor-declined with that legacyCode (as Braintree's sandbox);
 *  - card 4000111111111115 is declined 2000 Do Not Honor; 4000111111111511 is gateway-rejected (FRAUD);
 *  - CVV 200 does not match; postal code 20000 does not match.
 */

export interface FakeCard {
  number: string;
  cvv: string | undefined;
  postalCode: string | undefined;
}

export interface FakeTransaction {
  id: string;
  legacyId: string;
  status: string;
  amount: number;
  refunded: number;
  kind: 'transaction' | 'refund';
}

const PROCESSOR_MESSAGES: Record<string, string> = { '2000': 'Do Not Honor', '2001': 'Insufficient Funds', '2004': 'Expired Card', '2010': 'Card Issuer Declined CVV', '3000': 'Processor Network Unavailable - Try Again' };

const graphId = (kind: string, legacy: string): string => Buffer.from(`${kind}_${legacy}`).toString('base64').replace(/=+$/, '');

function luhn(number: string): boolean {
  let sum = 0;
  for (let i = 0; i < number.length; i += 1) {
    let digit = Number(number[number.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

function validation(mutation: string, message: string, legacyCode: string): FakeAnswer {
  return { json: { data: { [mutation]: null }, errors: [{ message, locations: [{ line: 1, column: 80 }], path: [mutation], extensions: { errorClass: 'VALIDATION', legacyCode, inputPath: ['input'] } }], extensions: { requestId: randomUUID() } } };
}

const answer = (mutation: string, payload: unknown): FakeAnswer => ({ json: { data: { [mutation]: payload }, extensions: { requestId: randomUUID() } } });

export class FakeBraintree {
  readonly singleUse = new Map<string, FakeCard>();
  readonly vaulted = new Map<string, FakeCard>();
  readonly transactions = new Map<string, FakeTransaction>();
  /** Captured and charged transactions settle at once (Braintree's sandbox settles in batches; refunds need SETTLED). */
  settleImmediately = true;
  private sequence = 0;

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly authorization: string,
  ) {}

  static async start(publicKey: string, privateKey: string): Promise<FakeBraintree> {
    const holder: { fake?: FakeBraintree } = {};
    const server = await FakeGatewayServer.start([{ method: 'POST', path: '/graphql', handle: (request) => (holder.fake as FakeBraintree).handle(request) }]);
    holder.fake = new FakeBraintree(server, `Basic ${Buffer.from(`${publicKey}:${privateKey}`).toString('base64')}`);
    return holder.fake;
  }

  get url(): string {
    return this.server.url;
  }

  get requests(): FakeRequest[] {
    return this.server.requests;
  }

  /** The mutation a recorded request called, and its `$input`. */
  static mutationOf(request: FakeRequest): { mutation: string; input: Record<string, any> } {
    const body = jsonOf(request) as { query: string; variables: { input: Record<string, any> } };
    const match = /\{\s*(\w+)\(input: \$input\)/.exec(body.query);
    return { mutation: match?.[1] ?? '', input: body.variables.input };
  }

  /** Requests that carried this clientMutationId (Coffer's transaction token). */
  requestsFor(token: string): Array<{ mutation: string; input: Record<string, any>; request: FakeRequest }> {
    return this.requests.map((request) => ({ ...FakeBraintree.mutationOf(request), request })).filter((entry) => entry.input.clientMutationId === token);
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private next(): string {
    this.sequence += 1;
    return `${Date.now().toString(36)}${this.sequence}`;
  }

  private handle(request: FakeRequest): FakeAnswer {
    if (request.headers.authorization !== this.authorization) {
      return { status: 401, json: { errors: [{ message: 'Authentication credentials are invalid.', extensions: { errorClass: 'AUTHENTICATION' } }], extensions: { requestId: randomUUID() } } };
    }
    if (!/^\d{4}-\d{2}-\d{2}$/.test(request.headers['braintree-version'] ?? '')) {
      return { json: { errors: [{ message: 'Braintree-Version header is required.', extensions: { errorClass: 'UNSUPPORTED_CLIENT' } }], extensions: { requestId: randomUUID() } } };
    }
    const { mutation, input } = FakeBraintree.mutationOf(request);
    switch (mutation) {
      case 'tokenizeCreditCard':
        return this.tokenize(input);
      case 'tokenizeNetworkToken':
        return this.tokenizeNetworkToken(input);
      case 'chargePaymentMethod':
      case 'authorizePaymentMethod':
        return this.transact(mutation, input);
      case 'captureTransaction':
        return this.capture(input);
      case 'refundTransaction':
        return this.refund(input);
      case 'reverseTransaction':
        return this.reverse(input);
      case 'vaultPaymentMethod':
        return this.vault(input);
      case 'verifyPaymentMethod': {
        const card = this.vaulted.get(String(input.paymentMethodId));
        if (card === undefined) return validation(mutation, 'Unknown payment method.', '91565');
        return answer(mutation, { verification: this.verification(card) });
      }
      case 'deletePaymentMethodFromVault':
        this.vaulted.delete(String(input.paymentMethodId));
        return answer(mutation, { clientMutationId: input.clientMutationId });
      default:
        return { json: { errors: [{ message: `Unknown mutation ${mutation}`, extensions: { errorClass: 'VALIDATION' } }] } };
    }
  }

  private tokenize(input: Record<string, any>): FakeAnswer {
    const card = input.creditCard as Record<string, any>;
    const number = String(card.number ?? '');
    if (number.length < 12 || number.length > 19) return validation('tokenizeCreditCard', 'Credit card number must be 12-19 digits.', '81716');
    if (!luhn(number)) return validation('tokenizeCreditCard', 'Credit card number is invalid.', '81715');
    const id = `tokencc_bf_${this.next()}`;
    this.singleUse.set(id, { number, cvv: card.cvv, postalCode: card.billingAddress?.postalCode });
    return answer('tokenizeCreditCard', { paymentMethod: { id, usage: 'SINGLE_USE', details: { __typename: 'CreditCardDetails', last4: number.slice(-4) } } });
  }

  /** A DPAN with its cryptogram (NetworkTokenInput): cryptogram, expiry and origin are required by the schema. */
  private tokenizeNetworkToken(input: Record<string, any>): FakeAnswer {
    const token = input.networkToken as Record<string, any>;
    const number = String(token.number ?? '');
    if (!luhn(number)) return validation('tokenizeNetworkToken', 'Credit card number is invalid.', '81715');
    if (typeof token.cryptogram !== 'string' || token.cryptogram === '') return validation('tokenizeNetworkToken', 'Cryptogram is required.', '81750');
    if (!['APPLE_PAY', 'GOOGLE_PAY', 'NETWORK_TOKEN'].includes(token.originDetails?.origin)) return validation('tokenizeNetworkToken', 'Origin is required.', '81751');
    const id = `tokennt_bf_${this.next()}`;
    this.singleUse.set(id, { number, cvv: undefined, postalCode: undefined });
    return answer('tokenizeNetworkToken', { paymentMethod: { id, usage: 'SINGLE_USE' } });
  }

  private takeCard(id: string): FakeCard | undefined {
    const single = this.singleUse.get(id);
    if (single !== undefined) {
      this.singleUse.delete(id);
      return single;
    }
    return this.vaulted.get(id);
  }

  private processor(card: FakeCard, legacyCode: string, message: string) {
    return {
      legacyCode,
      message,
      avsStreetAddressResponse: 'MATCHES',
      avsPostalCodeResponse: card.postalCode === undefined ? 'NOT_PROVIDED' : card.postalCode === '20000' ? 'DOES_NOT_MATCH' : 'MATCHES',
      cvvResponse: card.cvv === undefined ? 'NOT_PROVIDED' : card.cvv === '200' ? 'DOES_NOT_MATCH' : 'MATCHES',
      authorizationId: legacyCode === '1000' ? 'A1B2C3' : null,
    };
  }

  private transact(mutation: string, input: Record<string, any>): FakeAnswer {
    const card = this.takeCard(String(input.paymentMethodId));
    if (card === undefined) return validation(mutation, 'Unknown or expired payment_method_nonce.', '91565');
    const amount = Number(input.transaction?.amount);
    if (!(amount > 0)) return validation(mutation, 'Amount must be greater than zero.', '81531');
    const legacyId = this.next();
    const id = graphId('transaction', legacyId);
    const money = { value: String(input.transaction.amount), currencyCode: 'USD' };
    const whole = Math.floor(amount);
    let status: string;
    let history: unknown[];
    if (card.number === '4000111111111511') {
      status = 'GATEWAY_REJECTED';
      history = [{ __typename: 'GatewayRejectedEvent', status, gatewayRejectionReason: 'FRAUD', processorResponse: null, amount: money }];
    } else if (card.number === '4000111111111115' || (whole >= 2000 && whole < 3000)) {
      const code = card.number === '4000111111111115' ? '2000' : String(whole);
      status = 'PROCESSOR_DECLINED';
      history = [{ __typename: 'ProcessorDeclinedEvent', status, declineType: 'SOFT', processorResponse: this.processor(card, code, PROCESSOR_MESSAGES[code] ?? 'Processor Declined'), amount: money }];
    } else {
      const authorized = { __typename: 'AuthorizedEvent', status: 'AUTHORIZED', processorResponse: this.processor(card, '1000', 'Approved'), amount: money };
      status = mutation === 'chargePaymentMethod' ? (this.settleImmediately ? 'SETTLED' : 'SUBMITTED_FOR_SETTLEMENT') : 'AUTHORIZED';
      history = status === 'AUTHORIZED' ? [authorized] : [{ __typename: 'SubmittedForSettlementEvent', status }, authorized];
    }
    this.transactions.set(id, { id, legacyId, status, amount: Math.round(amount * 100), refunded: 0, kind: 'transaction' });
    return answer(mutation, { transaction: { id, legacyId, status, amount: money, merchantAccountId: input.transaction.merchantAccountId ?? 'default', statusHistory: history, riskData: null } });
  }

  private capture(input: Record<string, any>): FakeAnswer {
    const transaction = this.transactions.get(String(input.transactionId));
    if (transaction === undefined) return { json: { data: { captureTransaction: null }, errors: [{ message: 'Transaction not found.', extensions: { errorClass: 'NOT_FOUND' } }] } };
    if (transaction.status !== 'AUTHORIZED') return validation('captureTransaction', 'Cannot submit for settlement unless status is authorized.', '91507');
    const cents = input.transaction?.amount === undefined ? transaction.amount : Math.round(Number(input.transaction.amount) * 100);
    if (cents > transaction.amount) return validation('captureTransaction', 'Settlement amount is too large.', '91522');
    transaction.amount = cents;
    transaction.status = this.settleImmediately ? 'SETTLED' : 'SUBMITTED_FOR_SETTLEMENT';
    const money = { value: (cents / 100).toFixed(2), currencyCode: 'USD' };
    return answer('captureTransaction', { transaction: { id: transaction.id, legacyId: transaction.legacyId, status: transaction.status, amount: money, statusHistory: [{ status: transaction.status }, { status: 'AUTHORIZED', processorResponse: { legacyCode: '1000', message: 'Approved' } }] } });
  }

  private refund(input: Record<string, any>): FakeAnswer {
    const transaction = this.transactions.get(String(input.transactionId));
    if (transaction === undefined) return { json: { data: { refundTransaction: null }, errors: [{ message: 'Transaction not found.', extensions: { errorClass: 'NOT_FOUND' } }] } };
    if (transaction.status !== 'SETTLED' && transaction.status !== 'SETTLING') return validation('refundTransaction', 'Cannot refund transaction unless it is settled.', '91506');
    const cents = input.refund?.amount === undefined ? transaction.amount - transaction.refunded : Math.round(Number(input.refund.amount) * 100);
    if (cents > transaction.amount - transaction.refunded) return validation('refundTransaction', 'Refund amount is too large.', '91521');
    transaction.refunded += cents;
    const legacyId = this.next();
    const id = graphId('refund', legacyId);
    this.transactions.set(id, { id, legacyId, status: 'SUBMITTED_FOR_SETTLEMENT', amount: cents, refunded: 0, kind: 'refund' });
    return answer('refundTransaction', { refund: { id, legacyId, status: 'SUBMITTED_FOR_SETTLEMENT', amount: { value: (cents / 100).toFixed(2), currencyCode: 'USD' }, orderId: input.refund?.orderId ?? null } });
  }

  private reverse(input: Record<string, any>): FakeAnswer {
    const transaction = this.transactions.get(String(input.transactionId));
    if (transaction === undefined) return { json: { data: { reverseTransaction: null }, errors: [{ message: 'Transaction not found.', extensions: { errorClass: 'NOT_FOUND' } }] } };
    if (transaction.status === 'AUTHORIZED' || transaction.status === 'SUBMITTED_FOR_SETTLEMENT') {
      transaction.status = 'VOIDED';
      return answer('reverseTransaction', { reversal: { __typename: 'Transaction', id: transaction.id, legacyId: transaction.legacyId, status: 'VOIDED' } });
    }
    if (transaction.status === 'SETTLED' && transaction.refunded === 0) {
      transaction.refunded = transaction.amount;
      const legacyId = this.next();
      const id = graphId('refund', legacyId);
      this.transactions.set(id, { id, legacyId, status: 'SUBMITTED_FOR_SETTLEMENT', amount: transaction.amount, refunded: 0, kind: 'refund' });
      return answer('reverseTransaction', { reversal: { __typename: 'Refund', id, legacyId, status: 'SUBMITTED_FOR_SETTLEMENT' } });
    }
    return validation('reverseTransaction', 'Transaction can only be voided if status is authorized, submitted_for_settlement, or - for PayPal - settlement_pending.', '91504');
  }

  private verification(card: FakeCard) {
    const legacyId = this.next();
    const declined = card.number === '4000111111111115';
    return {
      id: graphId('verification', legacyId),
      legacyId,
      status: declined ? 'PROCESSOR_DECLINED' : 'VERIFIED',
      gatewayRejectionReason: null,
      processorResponse: this.processor(card, declined ? '2000' : '1000', declined ? 'Do Not Honor' : 'Approved'),
    };
  }

  private vault(input: Record<string, any>): FakeAnswer {
    const card = this.singleUse.get(String(input.paymentMethodId));
    if (card === undefined) return validation('vaultPaymentMethod', 'Unknown or expired payment_method_nonce.', '91565');
    this.singleUse.delete(String(input.paymentMethodId));
    const verification = this.verification(card);
    if (verification.status !== 'VERIFIED') return answer('vaultPaymentMethod', { paymentMethod: null, verification });
    const legacyId = this.next();
    const id = graphId('paymentmethod_cc', legacyId);
    this.vaulted.set(id, card);
    return answer('vaultPaymentMethod', { paymentMethod: { id, legacyId, usage: 'MULTI_USE' }, verification });
  }
}
