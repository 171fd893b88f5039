import { randomBytes, randomInt } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';

/**
 * A fake Moneris XML gateway on 127.0.0.1 for e2e tests, on the shared FakeGatewayServer: POST
 * /gateway2/servlet/MpgRequest with `<request><store_id/><api_token/><txn/></request>`, answered
 * with `<response><receipt>` (ResponseCode, Complete, Message, TransID, ReceiptId, …) for purchase,
 * preauth, completion, refund, purchasecorrection, card_verification, res_add_cc and the res_*
 * data-key transactions.
 *
 * Declines follow the spirit of Moneris's test-environment penny-value table with this fake's own
 * values: an amount ending in .05 answers 481 DECLINED, .76 answers 076 LOW FUNDS. A wrong store id
 * or API token answers ResponseCode null "API token mismatch". State lives in memory.
 */

export interface FakeMonerisTransaction {
  transId: string;
  orderId: string;
  kind: string;
  amount: number;
  completed: number;
  refunded: number;
  corrected: boolean;
  fields: Record<string, unknown>;
}

const parser = new XMLParser({ parseTagValue: false, processEntities: false });

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return /^\d{12,19}$/.test(digits) && sum % 10 === 0;
}

function receipt(fields: Record<string, string>): FakeAnswer {
  const all: Record<string, string> = {
    ReceiptId: 'null',
    ReferenceNum: 'null',
    ResponseCode: 'null',
    ISO: 'null',
    AuthCode: 'null',
    TransTime: '21:30:00',
    TransDate: '2026-11-23',
    TransType: 'null',
    Complete: 'false',
    Message: 'null',
    TransAmount: 'null',
    CardType: 'null',
    TransID: 'null',
    TimedOut: 'false',
    BankTotals: 'null',
    Ticket: 'null',
    ...fields,
  };
  const inner = Object.entries(all)
    .map(([name, value]) => `<${name}>${value}</${name}>`)
    .join('');
  return { body: `<?xml version="1.0" standalone="yes"?><response><receipt>${inner}</receipt></response>`, contentType: 'text/xml' };
}

const notProcessed = (message: string, extra: Record<string, string> = {}) => receipt({ Message: message, ...extra });
const TRANS_TYPE: Record<string, string> = { purchase: '00', preauth: '01', completion: '02', refund: '04', purchasecorrection: '11', card_verification: '06' };

export class FakeMoneris {
  readonly transactions = new Map<string, FakeMonerisTransaction>();
  /** data_key → the card it holds. */
  readonly vault = new Map<string, { pan: string; expdate: string }>();
  private sequence = 100;

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly storeId: string,
    private readonly apiToken: string,
  ) {}

  static async start(options: { storeId: string; apiToken: string }): Promise<FakeMoneris> {
    let fake: FakeMoneris | null = null;
    const server = await FakeGatewayServer.start([{ method: 'POST', path: '/gateway2/servlet/MpgRequest', handle: (request) => (fake as FakeMoneris).handle(request) }]);
    fake = new FakeMoneris(server, options.storeId, options.apiToken);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** The transaction element of a recorded request: its name and fields. */
  static transactionOf(request: FakeRequest): { kind: string; fields: Record<string, any> } {
    const document = parser.parse(request.rawBody) as { request?: Record<string, any> };
    const entries = Object.entries(document.request ?? {}).filter(([name]) => name !== 'store_id' && name !== 'api_token');
    const [kind, fields] = entries[0] ?? ['', {}];
    return { kind, fields: (fields ?? {}) as Record<string, any> };
  }

  private handle(request: FakeRequest): FakeAnswer {
    let document: { request?: Record<string, unknown> };
    try {
      document = parser.parse(request.rawBody) as { request?: Record<string, unknown> };
    } catch {
      return notProcessed('Global Error Receipt', { ReceiptId: 'Global Error Receipt' });
    }
    if (document.request?.store_id !== this.storeId || document.request?.api_token !== this.apiToken) return notProcessed('API token mismatch');
    const { kind, fields } = FakeMoneris.transactionOf(request);
    switch (kind) {
      case 'purchase':
      case 'preauth':
      case 'card_verification':
        return this.pay(kind, fields);
      case 'res_purchase_cc':
      case 'res_preauth_cc':
      case 'res_card_verification_cc': {
        const stored = this.vault.get(String(fields.data_key));
        if (stored === undefined) return notProcessed('Invalid data key');
        return this.pay(kind.replace(/^res_|_cc$/g, ''), { ...fields, ...stored }, String(fields.data_key));
      }
      case 'completion':
      case 'refund':
      case 'purchasecorrection':
        return this.follow(kind, fields);
      case 'res_add_cc':
        return this.store(fields);
      default:
        return notProcessed('Invalid transaction type', { ReceiptId: 'Global Error Receipt' });
    }
  }

  private pay(kind: string, fields: Record<string, any>, dataKey?: string): FakeAnswer {
    const orderId = String(fields.order_id ?? '');
    if (orderId === '') return notProcessed('Order id is required');
    if ([...this.transactions.values()].some((txn) => txn.orderId === orderId && txn.kind !== 'completion' && txn.kind !== 'refund' && txn.kind !== 'purchasecorrection')) {
      return notProcessed('The transaction was not sent to the host because of a duplicate order id', { ReceiptId: orderId });
    }
    if (!luhn(String(fields.pan ?? ''))) return notProcessed('Invalid card number', { ReceiptId: orderId });
    if (!/^\d{4}$/.test(String(fields.expdate ?? ''))) return notProcessed('Invalid expiry date', { ReceiptId: orderId });
    const amount = kind === 'card_verification' ? 0 : Number(fields.amount);
    const cents = String(fields.amount ?? '0.00').slice(-2);
    const transId = `${(this.sequence += 1)}-0_11`;
    const common = {
      ReceiptId: orderId,
      ReferenceNum: String(randomInt(1e9, 1e10)),
      ISO: '01',
      TransType: TRANS_TYPE[kind] ?? '00',
      TransAmount: amount.toFixed(2),
      CardType: String(fields.pan).startsWith('4') ? 'V' : 'M',
      TransID: transId,
      Complete: 'true',
      AvsResultCode: fields.avs_info === undefined ? 'null' : 'Y',
      CvdResultCode: fields.cvd_info === undefined ? 'null' : '1M',
      ...(dataKey === undefined ? {} : { DataKey: dataKey, ResSuccess: 'true' }),
    };
    if (cents === '05') return receipt({ ...common, ResponseCode: '481', ISO: '05', AuthCode: '000000', Message: 'DECLINED           *                    =' });
    if (cents === '76') return receipt({ ...common, ResponseCode: '076', ISO: '05', AuthCode: '000000', Message: 'DECLINED LOW FUNDS *                    =' });
    this.transactions.set(transId, { transId, orderId, kind, amount, completed: kind === 'purchase' ? amount : 0, refunded: 0, corrected: false, fields });
    return receipt({ ...common, ResponseCode: kind === 'card_verification' ? '001' : '027', AuthCode: String(randomInt(100000, 999999)), Message: 'APPROVED           *                    =' });
  }

  private follow(kind: string, fields: Record<string, any>): FakeAnswer {
    const original = this.transactions.get(String(fields.txn_number ?? ''));
    if (original === undefined || original.orderId !== fields.order_id) return notProcessed('Transaction not found', { ReceiptId: String(fields.order_id ?? 'null') });
    const done = (amount: number) => {
      const transId = `${(this.sequence += 1)}-0_11`;
      this.transactions.set(transId, { transId, orderId: original.orderId, kind, amount, completed: amount, refunded: 0, corrected: false, fields });
      return receipt({ ReceiptId: original.orderId, ReferenceNum: String(randomInt(1e9, 1e10)), ResponseCode: '027', ISO: '01', AuthCode: '000000', TransType: TRANS_TYPE[kind] ?? '00', Complete: 'true', Message: 'APPROVED           *                    =', TransAmount: amount.toFixed(2), TransID: transId });
    };
    if (original.corrected) return notProcessed('Transaction already voided', { ReceiptId: original.orderId });
    if (kind === 'completion') {
      const amount = Number(fields.comp_amount);
      if (original.kind !== 'preauth' || original.completed > 0) return notProcessed('Only a preauth can be completed, once', { ReceiptId: original.orderId });
      if (!(amount <= original.amount)) return notProcessed('Completion amount exceeds the preauth', { ReceiptId: original.orderId });
      original.completed = amount;
      if (amount === 0) original.corrected = true;
      return done(amount);
    }
    if (kind === 'purchasecorrection') {
      if (original.kind !== 'purchase' && original.kind !== 'completion') return notProcessed('Only a purchase or completion can be corrected', { ReceiptId: original.orderId });
      original.corrected = true;
      return done(original.amount);
    }
    const amount = Number(fields.amount);
    if (amount > original.completed - original.refunded) return notProcessed('Refund exceeds the amount captured', { ReceiptId: original.orderId });
    original.refunded += amount;
    return done(amount);
  }

  private store(fields: Record<string, any>): FakeAnswer {
    if (!luhn(String(fields.pan ?? ''))) return notProcessed('Invalid card number', { ResSuccess: 'false' });
    const dataKey = `ot-${randomBytes(16).toString('base64url').slice(0, 22)}`;
    this.vault.set(dataKey, { pan: String(fields.pan), expdate: String(fields.expdate) });
    return receipt({ DataKey: dataKey, ResponseCode: '001', Complete: 'true', Message: 'Successfully registered CC details.', ResSuccess: 'true', PaymentType: 'cc' });
  }
}
