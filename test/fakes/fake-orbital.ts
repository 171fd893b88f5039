import { randomBytes } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';
import { cardFreeId } from './gateway-ids.js';

/**
 * A fake Chase Orbital XML interface on 127.0.0.1 for e2e tests: POST /authorize with Orbital's
 * transport headers (Content-Type application/PTI…, MIME-Version, Document-type…), connection
 * username/password or a merchant id allowed by source IP, NewOrder (A, AC, R, TokenTxnType GT),
 * MarkForCapture and Reversal over an in-memory ledger, and Orbital's retry logic: a repeated
 * Trace-number for the same Merchant-Id is answered with the first answer, nothing processed again.
 * A test convention of its own picks declines by the AVSname's last word (DECLINE → 05 / 530 Do
 * Not Honor, NSF → 51 / 521 Insufficient Funds, CVV → 05 / 531 CVV2/VAK Failure). Its Safetech
 * tokens all pass the Luhn check on purpose, so the e2e tests prove Coffer's stored-card tokens
 * survive its card-number scrubbing.
 */

export interface FakeOrbitalTxn {
  txRefNum: string;
  orderId: string;
  messageType: string;
  /** In Orbital's unit (implied decimals), as sent. */
  amount: number;
  currencyCode: string;
  captured: number | null;
  refunded: number;
  voided: boolean;
}

const DECLINES: Record<string, [string, string, string]> = {
  DECLINE: ['05', '530', 'Do Not Honor'],
  NSF: ['51', '521', 'Insufficient Funds'],
  CVV: ['05', '531', 'CVV2/VAK Failure'],
};

/** Numeric currency code → Orbital's exponent, for the currencies the tests use. */
const EXPONENTS: Record<string, string> = { '840': '2', '124': '2', '978': '2', '826': '2', '392': '0', '152': '2' };

const parser = new XMLParser({ parseTagValue: false, processEntities: true });

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return /^\d{12,19}$/.test(digits) && sum % 10 === 0;
}

function xml(kind: string, fields: Record<string, string>): FakeAnswer {
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const inner = Object.entries(fields).map(([name, value]) => `<${name}>${escape(value)}</${name}>`).join('');
  return { contentType: 'application/PTI95', body: `<?xml version="1.0" encoding="UTF-8"?><Response><${kind}>${inner}</${kind}></Response>` };
}

const quick = (procStatus: string, message: string) => xml('QuickResp', { ProcStatus: procStatus, StatusMsg: message });
const SECURITY = () => quick('20412', 'Precondition Failed: Security Information - agent/chain/merchant is missing');

export interface FakeOrbitalAccount {
  merchantId: string;
  login: string;
  password: string;
  /** Merchant ids Orbital accepts without a connection username (source IP authentication). */
  ipAuthenticated?: string[];
}

export class FakeOrbital {
  readonly txns = new Map<string, FakeOrbitalTxn>();
  readonly tokens = new Map<string, { number: string; brand: string }>();
  /** Every document received: its kind and fields, with the request's headers. */
  readonly received: Array<{ kind: string; fields: Record<string, string>; headers: Record<string, string> }> = [];
  /** How many requests were answered from the retry-logic memory instead of being processed. */
  replayed = 0;
  private readonly traces = new Map<string, FakeAnswer>();

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly account: FakeOrbitalAccount,
  ) {}

  static async start(account: FakeOrbitalAccount): Promise<FakeOrbital> {
    let fake: FakeOrbital | null = null;
    const server = await FakeGatewayServer.start([{ method: 'POST', path: '/authorize', handle: (request) => (fake as FakeOrbital).handle(request) }]);
    fake = new FakeOrbital(server, account);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** The documents received for an OrderID, in order. */
  forOrder(orderId: string): Array<{ kind: string; fields: Record<string, string>; headers: Record<string, string> }> {
    return this.received.filter((entry) => entry.fields.OrderID === orderId);
  }

  private handle(request: FakeRequest): FakeAnswer {
    const headers = request.headers;
    if (!/^application\/PTI\d+$/.test(headers['content-type'] ?? '') || headers['mime-version'] !== '1.1' || headers['document-type'] !== 'Request' || headers['content-transfer-encoding'] !== 'text') {
      return quick('9717', 'Missing or invalid HTTP header');
    }
    const parsed = parser.parse(request.rawBody) as { Request?: Record<string, Record<string, unknown>> };
    const entry = Object.entries(parsed.Request ?? {})[0];
    if (entry === undefined) return quick('9700', 'Invalid XML document');
    const [kind, raw] = entry;
    const fields = Object.fromEntries(Object.entries(raw).map(([name, value]) => [name, String(value)]));
    this.received.push({ kind, fields, headers });

    const trace = headers['trace-number'];
    if (trace !== undefined) {
      if (!/^[1-9]\d{0,15}$/.test(trace) || headers['merchant-id'] !== fields.MerchantID) return quick('9718', 'Invalid Trace-number or Merchant-Id header');
      const saved = this.traces.get(`${fields.MerchantID}:${trace}`);
      if (saved !== undefined) {
        this.replayed += 1;
        return saved;
      }
    }
    const answer = this.process(kind, fields);
    if (trace !== undefined) this.traces.set(`${fields.MerchantID}:${trace}`, answer);
    return answer;
  }

  private process(kind: string, fields: Record<string, string>): FakeAnswer {
    const { merchantId, login, password, ipAuthenticated = [] } = this.account;
    const bin = fields.MerchantID?.length === 6 ? '000001' : '000002';
    if (fields.MerchantID !== merchantId || fields.BIN !== bin) return SECURITY();
    if (fields.OrbitalConnectionUsername === undefined ? !ipAuthenticated.includes(merchantId) : fields.OrbitalConnectionUsername !== login || fields.OrbitalConnectionPassword !== password) return SECURITY();
    switch (kind) {
      case 'NewOrder':
        return fields.MessageType === 'R' ? this.refund(fields) : this.authorize(fields);
      case 'MarkForCapture':
        return this.markForCapture(fields);
      case 'Reversal':
        return this.reversal(fields);
      default:
        return quick('9700', `Unknown request ${kind}`);
    }
  }

  private amount(fields: Record<string, string>): number | null {
    if (!/^\d{1,12}$/.test(fields.Amount ?? '')) return null;
    if (fields.CurrencyCode !== undefined && EXPONENTS[fields.CurrencyCode] !== fields.CurrencyExponent) return null;
    return Number(fields.Amount);
  }

  private authorize(fields: Record<string, string>): FakeAnswer {
    if (fields.MessageType !== 'A' && fields.MessageType !== 'AC') return quick('9700', `Invalid MessageType ${fields.MessageType ?? ''}`);
    const amount = this.amount(fields);
    if (amount === null) return quick('885', `Error validating amount. Must be numeric, equal to zero or greater [${fields.Amount ?? ''}]`);
    let brand = 'VI';
    let number = fields.AccountNum ?? '';
    if (fields.CardBrand !== undefined) {
      const stored = this.tokens.get(number);
      if (stored === undefined || stored.brand !== fields.CardBrand) return quick('841', 'Error validating card/account number range');
      number = stored.number;
      brand = stored.brand;
    } else {
      if (!luhn(number)) return quick('841', 'Error validating card/account number range');
      if (!/^(0[1-9]|1[0-2])\d\d$/.test(fields.Exp ?? '')) return quick('840', 'Error validating Expiration Date');
      brand = number.startsWith('5') ? 'MC' : number.startsWith('3') ? 'AX' : number.startsWith('6') ? 'DI' : 'VI';
    }
    const txRefNum = cardFreeId(() => randomBytes(20).toString('hex').toUpperCase());
    const orderId = fields.OrderID ?? '';
    const decline = DECLINES[(fields.AVSname ?? '').split(' ').at(-1)?.toUpperCase() ?? ''];
    const base = {
      IndustryType: '',
      MessageType: fields.MessageType,
      MerchantID: fields.MerchantID ?? '',
      TerminalID: fields.TerminalID ?? '',
      CardBrand: brand,
      AccountNum: '',
      OrderID: orderId,
      TxRefNum: txRefNum,
      TxRefIdx: decline === undefined ? '1' : '0',
      ProcStatus: '0',
    };
    const avs = fields.AVSzip === undefined ? '3 ' : 'H ';
    const cvv = fields.CardSecVal === undefined ? ' ' : decline?.[1] === '531' ? 'N' : 'M';
    if (decline !== undefined) {
      return xml('NewOrderResp', { ...base, ApprovalStatus: '0', RespCode: decline[0], AVSRespCode: avs, CVV2RespCode: cvv, AuthCode: '', StatusMsg: decline[2], RespMsg: `AUTH DECLINED                   ${decline[1]}`, HostRespCode: decline[1] });
    }
    this.txns.set(txRefNum, { txRefNum, orderId, messageType: fields.MessageType, amount, currencyCode: fields.CurrencyCode ?? '', captured: fields.MessageType === 'AC' ? amount : null, refunded: 0, voided: false });
    let token: Record<string, string> = {};
    if (fields.TokenTxnType === 'GT') {
      let safetech = '';
      do safetech = Array.from(randomBytes(16), (byte) => String(byte % 10)).join('');
      while (!luhn(safetech) || !/^[2-9]/.test(safetech));
      this.tokens.set(safetech, { number, brand });
      token = { SafetechToken: safetech };
    }
    return xml('NewOrderResp', { ...base, ApprovalStatus: '1', RespCode: '00', AVSRespCode: avs, CVV2RespCode: cvv, AuthCode: 'tst595', StatusMsg: 'Approved', RespMsg: '', HostRespCode: '100', ...token });
  }

  private original(fields: Record<string, string>): FakeOrbitalTxn | null {
    const txn = this.txns.get(fields.TxRefNum ?? '');
    return txn === undefined || txn.orderId !== fields.OrderID ? null : txn;
  }

  private noMatch(fields: Record<string, string>): FakeAnswer {
    return quick('881', `The LIDM you supplied (${fields.OrderID ?? ''}) does not match with any existing transaction`);
  }

  private markForCapture(fields: Record<string, string>): FakeAnswer {
    const txn = this.original(fields);
    if (txn === null) return this.noMatch(fields);
    const amount = this.amount(fields);
    if (amount === null || amount > txn.amount) return quick('885', `Error validating amount. Must be numeric, equal to zero or greater [${fields.Amount ?? ''}]`);
    if (txn.messageType !== 'A' || txn.captured !== null || txn.voided) return quick('9803', 'This transaction cannot be marked for capture');
    txn.captured = amount;
    return xml('MarkForCaptureResp', { MerchantID: fields.MerchantID ?? '', TerminalID: fields.TerminalID ?? '', OrderID: txn.orderId, TxRefNum: txn.txRefNum, TxRefIdx: '1', Amount: String(amount), ProcStatus: '0', StatusMsg: '', ApprovalStatus: '1', RespCode: '00', AuthCode: 'tst595', RespMsg: '', HostRespCode: '100' });
  }

  private refund(fields: Record<string, string>): FakeAnswer {
    const txn = this.original(fields);
    if (txn === null) return this.noMatch(fields);
    const amount = this.amount(fields);
    if (amount === null) return quick('885', `Error validating amount. Must be numeric, equal to zero or greater [${fields.Amount ?? ''}]`);
    if (txn.captured === null || txn.voided) return quick('9806', 'Refund Transactions By TxRefNum Are Only Valid When The Original Transaction Was An AUTH Or AUTH CAPTURE.');
    if (txn.refunded + amount > txn.captured) return quick('885', `Error validating amount. The refund exceeds the captured amount [${amount}]`);
    txn.refunded += amount;
    const txRefNum = cardFreeId(() => randomBytes(20).toString('hex').toUpperCase());
    this.txns.set(txRefNum, { txRefNum, orderId: txn.orderId, messageType: 'R', amount, currencyCode: txn.currencyCode, captured: null, refunded: 0, voided: false });
    return xml('NewOrderResp', { MessageType: 'R', MerchantID: fields.MerchantID ?? '', TerminalID: fields.TerminalID ?? '', CardBrand: 'VI', OrderID: txn.orderId, TxRefNum: txRefNum, TxRefIdx: '2', ProcStatus: '0', ApprovalStatus: '1', RespCode: '00', AuthCode: 'tst743', StatusMsg: 'Approved', HostRespCode: '100' });
  }

  private reversal(fields: Record<string, string>): FakeAnswer {
    const txn = this.original(fields);
    if (txn === null) return this.noMatch(fields);
    if (txn.voided) return quick('9810', 'The transaction has already been voided');
    txn.voided = true;
    return xml('ReversalResp', { MerchantID: fields.MerchantID ?? '', TerminalID: fields.TerminalID ?? '', OrderID: txn.orderId, TxRefNum: txn.txRefNum, TxRefIdx: '1', OutstandingAmt: '0', ProcStatus: '0', StatusMsg: '', RespTime: '01192013172049' });
  }
}
