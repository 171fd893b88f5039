import { randomBytes } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';

/**
 * A fake Worldpay eCommerce (Vantiv/Litle) cnpAPI online endpoint on 127.0.0.1 for e2e tests:
 * POST /sandbox|vap/communicator/online reading a litleOnlineRequest, the authentication check,
 * sale, authorization, capture, credit, authReversal, void and registerTokenRequest over an
 * in-memory ledger, and Vantiv's duplicate detection: a repeated transaction `id` of the same kind
 * is answered with the first answer, marked duplicate="true", and nothing is processed again.
 * Every litleTxnId it hands out passes the Luhn check on purpose (about one real id in ten does),
 * as are its tokens, so the e2e tests prove Coffer's ids and tokens survive its card-number scrubbing. Declines are picked by the
 * billToAddress name's last word (DECLINE → 349 Do Not Honor, NSF → 110 Insufficient Funds, CVV →
 * 352 Decline CVV2/CID Fail).
 */

export interface FakeLitleTxn {
  litleTxnId: string;
  kind: string;
  amount: number;
  /** For an authorization: what was captured; for a sale or capture: what is refundable. */
  captured: number | null;
  refunded: number;
  voided: boolean;
  original: string | null;
}

const DECLINES: Record<string, [string, string]> = {
  DECLINE: ['349', 'Do Not Honor'],
  NSF: ['110', 'Insufficient Funds'],
  CVV: ['352', 'Decline CVV2/CID Fail'],
};

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false });

function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i += 1) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

function digits(length: number): string {
  return Array.from(randomBytes(length), (byte, index) => String(index === 0 ? (byte % 9) + 1 : byte % 10)).join('');
}

/** An 18-digit litleTxnId that passes Luhn (the case Coffer must not mask). */
function luhnValidId(): string {
  for (;;) {
    const id = digits(18);
    if (luhn(id)) return id;
  }
}

function respond(kind: string, id: string, fields: Record<string, string | Record<string, string>>, duplicate = false): string {
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  const inner = Object.entries(fields)
    .map(([name, value]) => (typeof value === 'string' ? `<${name}>${escape(value)}</${name}>` : `<${name}>${Object.entries(value).map(([n, v]) => `<${n}>${escape(v)}</${n}>`).join('')}</${name}>`))
    .join('');
  return `<litleOnlineResponse version="9.14" xmlns="http://www.litle.com/schema" response="0" message="Valid Format"><${kind} id="${escape(id)}" reportGroup="Default Report Group"${duplicate ? ' duplicate="true"' : ''}>${inner}</${kind}></litleOnlineResponse>`;
}

const rootError = (message: string): FakeAnswer => ({ contentType: 'text/xml', body: `<litleOnlineResponse version="9.14" xmlns="http://www.litle.com/schema" response="1" message="${message}"/>` });

export class FakeLitle {
  readonly txns = new Map<string, FakeLitleTxn>();
  readonly tokens = new Map<string, string>();
  /** Every transaction element received: its name, attributes and children. */
  readonly received: Array<{ kind: string; id: string; fields: Record<string, unknown> }> = [];
  duplicates = 0;
  private readonly answers = new Map<string, { kind: string; fields: Record<string, string | Record<string, string>> }>();

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly account: { merchantId: string; user: string; password: string },
  ) {}

  static async start(account: { merchantId: string; user: string; password: string }): Promise<FakeLitle> {
    let fake: FakeLitle | null = null;
    const server = await FakeGatewayServer.start([{ method: 'POST', path: /^\/(?:sandbox|vap)\/communicator\/online$/, handle: (request) => (fake as FakeLitle).handle(request) }]);
    fake = new FakeLitle(server, account);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private handle(request: FakeRequest): FakeAnswer {
    if (!(request.headers['content-type'] ?? '').startsWith('text/xml')) return rootError('Content-Type must be text/xml');
    const root = (parser.parse(request.rawBody) as { litleOnlineRequest?: Record<string, unknown> }).litleOnlineRequest;
    if (root === undefined || root['@_version'] === undefined || root['@_xmlns'] !== 'http://www.litle.com/schema') return rootError('Error validating xml data against the schema');
    const auth = root.authentication as { user?: string; password?: string } | undefined;
    if (root['@_merchantId'] !== this.account.merchantId || auth?.user !== this.account.user || auth.password !== this.account.password) {
      return rootError('System Error - Call Vantiv: authentication failed for user');
    }
    const entry = Object.entries(root).find(([name]) => !name.startsWith('@_') && name !== 'authentication');
    if (entry === undefined) return rootError('Error validating xml data against the schema');
    const [kind, body] = entry as [string, Record<string, unknown>];
    const id = String(body['@_id'] ?? '');
    if (id.length > 25) return rootError(`Error validating xml data against the schema: id too long [${id}]`);
    this.received.push({ kind, id, fields: body });
    const key = `${kind}:${id}`;
    const seen = this.answers.get(key);
    if (seen !== undefined) {
      this.duplicates += 1;
      return { contentType: 'text/xml', body: respond(seen.kind, id, seen.fields, true) };
    }
    const result = this.process(kind, body);
    if (id !== '') this.answers.set(key, result);
    return { contentType: 'text/xml', body: respond(result.kind, id, result.fields) };
  }

  private process(kind: string, body: Record<string, unknown>): { kind: string; fields: Record<string, string | Record<string, string>> } {
    const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : undefined);
    const reply = (fields: Record<string, string | Record<string, string>>) => ({ kind: `${kind}Response`, fields: { ...fields, responseTime: '2026-01-01T00:00:00' } });
    const amount = Number(text('amount') ?? 'NaN');
    const original = this.txns.get(text('litleTxnId') ?? '');
    const notFound = () => reply({ litleTxnId: luhnValidId(), response: '360', message: 'No transaction found with specified litleTxnId' });
    const record = (txn: Omit<FakeLitleTxn, 'litleTxnId' | 'refunded' | 'voided'>) => {
      const litleTxnId = luhnValidId();
      this.txns.set(litleTxnId, { ...txn, litleTxnId, refunded: 0, voided: false });
      return litleTxnId;
    };
    switch (kind) {
      case 'sale':
      case 'authorization': {
        if (!/^\d{1,12}$/.test(text('amount') ?? '') || text('orderSource') !== 'ecommerce') return reply({ litleTxnId: luhnValidId(), response: '340', message: 'Invalid Amount' });
        const card = body.card as Record<string, string> | undefined;
        const token = body.token as Record<string, string> | undefined;
        if (card === undefined && (token === undefined || !this.tokens.has(token.litleToken ?? ''))) return reply({ litleTxnId: luhnValidId(), response: '822', message: 'Token was not found' });
        if (card !== undefined && (!luhn(card.number ?? '') || !/^\d{4}$/.test(card.expDate ?? ''))) return reply({ litleTxnId: luhnValidId(), response: '301', message: 'Invalid Account Number' });
        const name = ((body.billToAddress as Record<string, string> | undefined)?.name ?? '').split(' ').at(-1)?.toUpperCase() ?? '';
        const decline = DECLINES[name];
        const fraudResult = { avsResult: (body.billToAddress as Record<string, string> | undefined)?.zip === undefined ? '34' : '00', cardValidationResult: card?.cardValidationNum === undefined ? 'P' : decline?.[0] === '352' ? 'N' : 'M' };
        if (decline !== undefined) return reply({ litleTxnId: luhnValidId(), orderId: text('orderId') ?? '', response: decline[0], message: decline[1], fraudResult });
        const litleTxnId = record({ kind, amount, captured: kind === 'sale' ? amount : null, original: null });
        return reply({ litleTxnId, orderId: text('orderId') ?? '', response: '000', message: 'Approved', authCode: '11111', fraudResult, networkTransactionId: '63225578415568556365452427825' });
      }
      case 'capture': {
        if (original === undefined) return notFound();
        if (original.kind !== 'authorization' || original.captured !== null || original.voided) return reply({ litleTxnId: luhnValidId(), response: '361', message: 'Authorization no longer available' });
        if (!(amount <= original.amount)) return reply({ litleTxnId: luhnValidId(), response: '340', message: 'Invalid Amount' });
        original.captured = amount;
        return reply({ litleTxnId: record({ kind, amount, captured: amount, original: original.litleTxnId }), response: '000', message: 'Approved' });
      }
      case 'credit': {
        if (original === undefined) return notFound();
        if ((original.kind !== 'sale' && original.kind !== 'capture') || original.voided) return reply({ litleTxnId: luhnValidId(), response: '322', message: 'Invalid Transaction' });
        if (original.refunded + amount > (original.captured ?? 0)) return reply({ litleTxnId: luhnValidId(), response: '365', message: 'Total credit amount exceeds capture amount' });
        original.refunded += amount;
        return reply({ litleTxnId: record({ kind, amount, captured: null, original: original.litleTxnId }), response: '000', message: 'Approved' });
      }
      case 'authReversal':
      case 'void': {
        if (original === undefined) return notFound();
        const allowed = kind === 'authReversal' ? original.kind === 'authorization' && original.captured === null : original.kind !== 'authorization';
        if (!allowed || original.voided) return reply({ litleTxnId: luhnValidId(), response: '362', message: 'Transaction Not Voided - Already Settled' });
        original.voided = true;
        return reply({ litleTxnId: luhnValidId(), response: '000', message: 'Approved' });
      }
      case 'registerTokenRequest': {
        const number = text('accountNumber') ?? '';
        if (!luhn(number) || number.length < 13) return { kind: 'registerTokenResponse', fields: { litleTxnId: luhnValidId(), response: '820', message: 'Credit card number was invalid' } };
        const existing = [...this.tokens.entries()].find(([, pan]) => pan === number)?.[0];
        let token = existing ?? '';
        while (token === '' || !luhn(token) || token.startsWith('1')) token = digits(16);
        this.tokens.set(token, number);
        return { kind: 'registerTokenResponse', fields: { litleTxnId: luhnValidId(), litleToken: token, response: existing === undefined ? '801' : '802', message: existing === undefined ? 'Account number was successfully registered' : 'Account number was previously registered' } };
      }
      default:
        return { kind: `${kind}Response`, fields: { response: '322', message: 'Invalid Transaction' } };
    }
  }
}
