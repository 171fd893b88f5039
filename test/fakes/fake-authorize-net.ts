import { randomInt } from 'node:crypto';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';

/**
 * A fake Authorize.Net JSON API on 127.0.0.1 for e2e tests, on the shared FakeGatewayServer: POST
 * /xml/v1/request.api with `createTransactionRequest` (merchantAuthentication name/transactionKey,
 * transactionType authCapture | authOnly | priorAuthCapture | refund | void), answered as the API
 * reference's samples are, byte-order mark first.
 *
 * Test conventions: Authorize.Net's documented sandbox trigger "billTo.zip 46282 is declined with
 * reason 2"; an invalid card number is responseCode 3 / reason 6; billTo.address starting "888" gives
 * AVS Y, otherwise N. Refunds check the last four against the original's card. State lives in memory.
 */

export interface FakeAnetTransaction {
  id: string;
  type: string;
  amount: number;
  lastFour: string;
  captured: number;
  refunded: number;
  voided: boolean;
}

type Json = Record<string, any>;

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return /^\d{12,19}$/.test(digits) && sum % 10 === 0;
}

const reply = (value: unknown): FakeAnswer => ({ body: `\uFEFF${JSON.stringify(value)}`, contentType: 'application/json; charset=utf-8' });
const OK = { resultCode: 'Ok', message: [{ code: 'I00001', text: 'Successful.' }] };
const UNSUCCESSFUL = { resultCode: 'Error', message: [{ code: 'E00027', text: 'The transaction was unsuccessful.' }] };

export class FakeAuthorizeNet {
  readonly transactions = new Map<string, FakeAnetTransaction>();
  /** `customerProfileId|paymentProfileId` → the stored creditCard and billTo. */
  readonly profiles = new Map<string, { creditCard: Json; billTo: Json | undefined }>();

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly login: string,
    private readonly transactionKey: string,
  ) {}

  static async start(options: { login: string; transactionKey: string }): Promise<FakeAuthorizeNet> {
    let fake: FakeAuthorizeNet | null = null;
    const server = await FakeGatewayServer.start([{ method: 'POST', path: '/xml/v1/request.api', handle: (request) => (fake as FakeAuthorizeNet).handle(request) }]);
    fake = new FakeAuthorizeNet(server, options.login, options.transactionKey);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** The transactionRequest of a recorded request. */
  static transactionOf(request: FakeRequest): Json {
    return (JSON.parse(request.rawBody) as Json).createTransactionRequest.transactionRequest as Json;
  }

  private handle(request: FakeRequest): FakeAnswer {
    const parsed = JSON.parse(request.rawBody) as Json;
    const body = (parsed.createTransactionRequest ?? parsed.createCustomerProfileRequest) as Json | undefined;
    const auth = body?.merchantAuthentication as Json | undefined;
    if (auth?.name !== this.login || auth?.transactionKey !== this.transactionKey) {
      return reply({ messages: { resultCode: 'Error', message: [{ code: 'E00007', text: 'User authentication failed due to invalid authentication values.' }] } });
    }
    if (parsed.createCustomerProfileRequest !== undefined) return this.createProfile(body as Json);
    const transaction = body?.transactionRequest as Json;
    switch (transaction.transactionType) {
      case 'authCaptureTransaction':
      case 'authOnlyTransaction':
        return this.pay(transaction);
      default:
        return this.follow(transaction);
    }
  }

  private answer(responseCode: string, id: string, lastFour: string, extra: Json, failed?: { code: string; text: string }): FakeAnswer {
    const base = { responseCode, authCode: responseCode === '1' ? String(randomInt(100000, 999999)) : '', transId: id, refTransID: '', transHash: '', testRequest: '0', accountNumber: `XXXX${lastFour}`, accountType: 'Visa', ...extra };
    if (failed === undefined) return reply({ transactionResponse: { ...base, messages: [{ code: '1', description: 'This transaction has been approved.' }] }, messages: OK });
    return reply({ transactionResponse: { ...base, errors: [{ errorCode: failed.code, errorText: failed.text }] }, messages: UNSUCCESSFUL });
  }

  private createProfile(body: Json): FakeAnswer {
    const paymentProfile = (body.profile?.paymentProfiles ?? {}) as Json;
    const card = (paymentProfile.payment?.creditCard ?? {}) as Json;
    if (!luhn(String(card.cardNumber ?? ''))) return reply({ messages: { resultCode: 'Error', message: [{ code: 'E00013', text: 'Card Number is invalid.' }] } });
    const customerProfileId = String(randomInt(1e8, 1e9));
    const paymentProfileId = String(randomInt(1e8, 1e9));
    this.profiles.set(`${customerProfileId}|${paymentProfileId}`, { creditCard: card, billTo: paymentProfile.billTo as Json | undefined });
    return reply({ customerProfileId, customerPaymentProfileIdList: [paymentProfileId], customerShippingAddressIdList: [], validationDirectResponseList: [], messages: OK });
  }

  private pay(given: Json): FakeAnswer {
    let transaction = given;
    if (given.profile !== undefined) {
      const stored = this.profiles.get(`${given.profile.customerProfileId}|${given.profile.paymentProfile?.paymentProfileId}`);
      if (stored === undefined) return this.answer('3', '0', '', {}, { code: 'E00040', text: 'The record cannot be found.' });
      transaction = { ...given, payment: { creditCard: stored.creditCard }, billTo: stored.billTo };
    }
    const card = (transaction.payment?.creditCard ?? {}) as Json;
    const number = String(card.cardNumber ?? '');
    const lastFour = number.slice(-4);
    if (!luhn(number)) return this.answer('3', '0', lastFour, {}, { code: '6', text: 'The credit card number is invalid.' });
    const id = String(randomInt(1e10, 1e11));
    const avs = String(transaction.billTo?.address ?? '').startsWith('888') ? 'Y' : 'N';
    const common = { avsResultCode: avs, cvvResultCode: card.cardCode === undefined ? '' : 'M', networkTransId: `NT${id}` };
    if (transaction.billTo?.zip === '46282') return this.answer('2', id, lastFour, common, { code: '2', text: 'This transaction has been declined.' });
    const amount = Number(transaction.amount);
    const sale = transaction.transactionType === 'authCaptureTransaction';
    this.transactions.set(id, { id, type: transaction.transactionType as string, amount, lastFour, captured: sale ? amount : 0, refunded: 0, voided: false });
    return this.answer('1', id, lastFour, common);
  }

  private follow(transaction: Json): FakeAnswer {
    const original = this.transactions.get(String(transaction.refTransId));
    const notFound = { code: '16', text: 'The transaction cannot be found.' };
    if (original === undefined) return this.answer('3', '0', '', {}, notFound);
    const failed = (code: string, text: string) => this.answer('3', '0', original.lastFour, {}, { code, text });
    if (original.voided) return failed('310', 'This transaction has already been voided.');
    const amount = Number(transaction.amount ?? original.amount);
    switch (transaction.transactionType) {
      case 'voidTransaction':
        original.voided = true;
        return this.answer('1', original.id, original.lastFour, { avsResultCode: 'P' });
      case 'priorAuthCaptureTransaction':
        if (original.type !== 'authOnlyTransaction' || original.captured > 0) return failed('311', 'This transaction has already been captured.');
        if (amount > original.amount) return failed('47', 'The amount requested for settlement cannot be greater than the original amount authorized.');
        original.captured = amount;
        return this.answer('1', original.id, original.lastFour, { avsResultCode: 'P' });
      case 'refundTransaction': {
        const card = (transaction.payment?.creditCard ?? {}) as Json;
        if (card.cardNumber !== original.lastFour || card.expirationDate !== 'XXXX') return failed('54', 'The referenced transaction does not meet the criteria for issuing a credit.');
        if (amount > original.captured - original.refunded) return failed('55', 'The sum of credits against the referenced transaction would exceed original debit amount.');
        original.refunded += amount;
        return this.answer('1', String(randomInt(1e10, 1e11)), original.lastFour, { avsResultCode: 'P' });
      }
      default:
        return failed('103', 'This transaction cannot be accepted.');
    }
  }
}
