import { createHash, randomBytes } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';

/**
 * A fake Global Payments (Realex) e-commerce XML API on 127.0.0.1 for e2e tests: epage-remote.cgi,
 * the request sha1hash checked per request type with its own hash code (an unsigned 505 when it
 * does not verify, as request errors are), signed responses, auth / settle / rebate (with the
 * refundhash) / void / otb / payer-new / card-new / receipt-in, unique order ids, and a test
 * convention of its own: the card holder's last name DECLINE → 101, REFERRAL → 102.
 */

export interface FakeRealexOrder {
  orderId: string;
  pasref: string;
  authcode: string;
  amount: number;
  currency: string;
  autosettle: boolean;
  settled: number;
  rebated: number;
  voided: boolean;
}

type Fields = Record<string, any>;

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
const sign = (joined: string, secret: string) => sha1(`${sha1(joined)}.${secret}`);
const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false });

/** A pasref shaped like Global Payments' (17 digits) that is not a valid card number. */
function pasref(): string {
  for (;;) {
    const digits = Array.from(randomBytes(17), (byte) => String(byte % 10)).join('');
    let sum = 0;
    for (let i = 0; i < digits.length; i += 1) {
      let digit = Number(digits[digits.length - 1 - i]);
      if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
      sum += digit;
    }
    if (sum % 10 !== 0 && digits[0] !== '0') return digits;
  }
}

export class FakeRealex {
  readonly orders = new Map<string, FakeRealexOrder>();
  readonly payers = new Set<string>();
  readonly cards = new Map<string, Fields>();
  /** Every parsed request, in arrival order. */
  readonly received: Fields[] = [];

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly merchantId: string,
    private readonly secret: string,
    private readonly rebatePassword: string,
  ) {}

  static async start(options: { merchantId: string; secret: string; rebatePassword: string }): Promise<FakeRealex> {
    let fake: FakeRealex | null = null;
    const server = await FakeGatewayServer.start([{ method: 'POST', path: '/epage-remote.cgi', handle: (request) => (fake as FakeRealex).handle(request) }]);
    fake = new FakeRealex(server, options.merchantId, options.secret, options.rebatePassword);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  last(): Fields {
    return this.received[this.received.length - 1] as Fields;
  }

  private answer(orderId: string, result: string, message: string, extra: { pasref?: string; authcode?: string; cvn?: string; avs?: string } = {}): FakeAnswer {
    const timestamp = new Date().toISOString().replace(/[-:T]/g, '').slice(0, 14);
    const ref = extra.pasref ?? '';
    const authcode = extra.authcode ?? '';
    const hash = sign([timestamp, this.merchantId, orderId, result, message, ref, authcode].join('.'), this.secret);
    return {
      contentType: 'text/xml',
      body: `<?xml version="1.0" encoding="UTF-8"?><response timestamp="${timestamp}"><merchantid>${this.merchantId}</merchantid><account>internet</account><orderid>${orderId}</orderid><authcode>${authcode}</authcode><result>${result}</result><cvnresult>${extra.cvn ?? ''}</cvnresult><avspostcoderesponse>${extra.avs ?? ''}</avspostcoderesponse><avsaddressresponse>${extra.avs ?? ''}</avsaddressresponse><message>${message}</message><pasref>${ref}</pasref><timetaken>0</timetaken><sha1hash>${hash}</sha1hash></response>`,
    };
  }

  /** A request error: unsigned, as Global Payments answers them. */
  private invalid(result: string, message: string): FakeAnswer {
    return { contentType: 'text/xml', body: `<?xml version="1.0" encoding="UTF-8"?><response timestamp="20260101000000"><result>${result}</result><message>${message}</message></response>` };
  }

  private handle(request: FakeRequest): FakeAnswer {
    const r = (parser.parse(request.rawBody) as { request?: Fields }).request;
    if (r === undefined) return this.invalid('506', 'XML does not conform to schema');
    this.received.push(r);
    if (r.merchantid !== this.merchantId) return this.invalid('504', 'There is no such merchant id.');
    const orderId = String(r.orderid ?? '');
    const amount = r.amount?.['#text'] ?? '';
    const currency = r.amount?.['@_currency'] ?? '';
    const base = [r['@_timestamp'], r.merchantid, orderId];
    const expected: Record<string, string[]> = {
      auth: [...base, amount, currency, r.card?.number ?? ''],
      'receipt-in': [...base, amount, currency, r.payerref ?? ''],
      settle: [...base, amount, currency, ''],
      rebate: [...base, amount, currency, ''],
      void: [...base, '', '', ''],
      otb: [...base, r.card?.number ?? ''],
      'payer-new': [...base, '', '', r.payer?.['@_ref'] ?? ''],
      'card-new': [...base, '', '', r.card?.payerref ?? '', r.card?.chname ?? '', r.card?.number ?? ''],
    };
    const fields = expected[r['@_type']];
    if (fields === undefined) return this.invalid('501', 'Unknown request type');
    if (r.sha1hash !== sign(fields.join('.'), this.secret)) return this.invalid('505', 'SHA1 hash incorrect');
    switch (r['@_type']) {
      case 'auth':
      case 'receipt-in':
        return this.authorize(r, orderId, Number(amount), currency);
      case 'otb':
        return this.answer(orderId, '00', 'Successful', { pasref: pasref(), cvn: r.card?.cvn ? 'M' : '' });
      case 'settle':
      case 'rebate':
      case 'void':
        return this.modify(r, orderId, Number(amount));
      case 'payer-new':
        this.payers.add(r.payer['@_ref']);
        return this.answer(orderId, '00', 'Successful', { pasref: pasref() });
      default:
        if (!this.payers.has(r.card.payerref)) return this.invalid('501', 'The Payer Ref does not exist');
        this.cards.set(`${r.card.payerref}|${r.card.ref}`, r.card);
        return this.answer(orderId, '00', 'Successful', { pasref: pasref() });
    }
  }

  private authorize(r: Fields, orderId: string, amount: number, currency: string): FakeAnswer {
    if (this.orders.has(orderId)) return this.invalid('501', 'This transaction has already been processed');
    const card = r['@_type'] === 'auth' ? r.card : this.cards.get(`${r.payerref}|${r.paymentmethod}`);
    if (card === undefined) return this.invalid('501', 'The payment method does not exist');
    const lastName = String(card.chname ?? '').split(' ').pop()?.toUpperCase();
    const ref = pasref();
    if (lastName === 'DECLINE') return this.answer(orderId, '101', '[ test system ] DECLINED', { pasref: ref });
    if (lastName === 'REFERRAL') return this.answer(orderId, '102', '[ test system ] REFERRAL B', { pasref: ref });
    const autosettle = r.autosettle?.['@_flag'] === '1';
    const authcode = String(100000 + (randomBytes(3).readUIntBE(0, 3) % 899999));
    this.orders.set(orderId, { orderId, pasref: ref, authcode, amount, currency, autosettle, settled: autosettle ? amount : 0, rebated: 0, voided: false });
    return this.answer(orderId, '00', '[ test system ] AUTHORISED', { pasref: ref, authcode, cvn: r.card?.cvn ? 'M' : '', avs: r.tssinfo?.address ? 'M' : '' });
  }

  private modify(r: Fields, orderId: string, amount: number): FakeAnswer {
    const order = this.orders.get(orderId);
    if (order === undefined || order.pasref !== r.pasref) return this.invalid('508', 'Original transaction not found');
    if (order.voided) return this.answer(orderId, '509', 'Transaction already voided');
    const type = r['@_type'];
    if (type === 'settle') {
      if (order.autosettle || order.settled > 0 || amount > order.amount) return this.answer(orderId, '508', 'Settle not allowed');
      order.settled = amount;
    } else if (type === 'rebate') {
      if (r.refundhash !== sha1(this.rebatePassword)) return this.invalid('508', 'Invalid refund hash');
      if (order.rebated + amount > order.settled) return this.answer(orderId, '508', 'Rebate amount exceeds the settled amount');
      order.rebated += amount;
    } else {
      order.voided = true;
    }
    return this.answer(orderId, '00', type === 'void' ? 'Voided Successfully' : type === 'settle' ? 'Settled Successfully' : 'Rebated Successfully', { pasref: pasref(), authcode: order.authcode });
  }
}
