import { randomBytes } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';
import { cardFreeId } from './gateway-ids.js';

/**
 * A fake CyberSource Simple Order API (SOAP Toolkit) on 127.0.0.1 for e2e tests. It checks what the
 * real service checks before anything else: the SOAP action, the WS-Security UsernameToken
 * (Username = merchantID, Password = the transaction key, Type = PasswordText; a mismatch is the
 * HTTP 500 `wsse:FailedCheck` fault), the transaction-data namespace, and the order of the
 * requestMessage elements Coffer uses (the XSD's sequence). Then it runs the services Coffer sends
 * with state in memory. Test convention of its own: the billTo last name picks the decline
 * (DECLINE → 203, NSF → 204, CVV → 230 with cvCode N, EXPIRED → 202).
 */

export const FAKE_NAMESPACE = 'urn:schemas-cybersource-com:transaction-data-1.201';
const PASSWORD_TEXT = 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText';

/** The XSD's order of the requestMessage elements a Coffer request may hold. */
const SCHEMA_ORDER = [
  'merchantID',
  'merchantReferenceCode',
  'billTo',
  'shipTo',
  'purchaseTotals',
  'card',
  'ucaf',
  'subscription',
  'recurringSubscriptionInfo',
  'ccAuthService',
  'ccCaptureService',
  'ccCreditService',
  'ccAuthReversalService',
  'voidService',
  'paySubscriptionCreateService',
  'paymentNetworkToken',
  'paymentSolution',
  'subsequentAuth',
  'subsequentAuthFirst',
  'subsequentAuthTransactionID',
  'subsequentAuthStoredCredential',
];

const DECLINES: Record<string, { reason: string; cvCode?: string }> = {
  DECLINE: { reason: '203' },
  NSF: { reason: '204' },
  CVV: { reason: '230', cvCode: 'N' },
  EXPIRED: { reason: '202' },
};

export interface FakeCyberSourceRequest {
  id: string;
  kind: 'sale' | 'authorization' | 'capture' | 'credit' | 'reversal' | 'void';
  amount: string;
  currency: string;
  captured: number;
  credited: number;
  voided: boolean;
}

type Node = Record<string, unknown>;

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', removeNSPrefix: true, parseTagValue: false });
const orderedParser = new XMLParser({ preserveOrder: true, removeNSPrefix: true, ignoreAttributes: true });

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}

function element(name: string, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return `<c:${name}>${Object.entries(value as Node).map(([inner, v]) => element(inner, v)).join('')}</c:${name}>`;
  return `<c:${name}>${escape(String(value))}</c:${name}>`;
}

function soapReply(fields: Node): FakeAnswer {
  const header = `<soap:Header><wsse:Security xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"><wsu:Timestamp xmlns:wsu="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd" wsu:Id="Timestamp-1"><wsu:Created>${new Date().toISOString()}</wsu:Created></wsu:Timestamp></wsse:Security></soap:Header>`;
  const body = Object.entries(fields).map(([name, value]) => element(name, value)).join('');
  return {
    contentType: 'text/xml',
    body: `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/">${header}<soap:Body><c:replyMessage xmlns:c="${FAKE_NAMESPACE}">${body}</c:replyMessage></soap:Body></soap:Envelope>`,
  };
}

export function soapFault(code: string, message: string): FakeAnswer {
  return {
    status: 500,
    contentType: 'text/xml',
    body: `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header/><soap:Body><soap:Fault xmlns:c="${FAKE_NAMESPACE}"><faultcode xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd">${code}</faultcode><faultstring>${escape(message)}</faultstring></soap:Fault></soap:Body></soap:Envelope>`,
  };
}

function text(node: unknown): string | undefined {
  if (typeof node === 'string') return node;
  if (node !== null && typeof node === 'object' && '#text' in node) return String((node as Node)['#text']);
  return undefined;
}

/** A requestID as CyberSource writes them: 22 digits (never card-like as a whole, checked anyway). */
function requestId(): string {
  return cardFreeId(() => Array.from(randomBytes(22), (byte) => String(byte % 10)).join('').replace(/^0/, '7'));
}

export class FakeCyberSourceSoap {
  readonly requests = new Map<string, FakeCyberSourceRequest>();
  readonly profiles = new Map<string, Node>();
  /** Every requestMessage received, in arrival order. */
  readonly received: Node[] = [];

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly credentials: { merchantId: string; transactionKey: string },
  ) {}

  static async start(credentials: { merchantId: string; transactionKey: string }): Promise<FakeCyberSourceSoap> {
    let fake: FakeCyberSourceSoap | null = null;
    const server = await FakeGatewayServer.start([{ method: 'POST', path: '/commerce/1.x/transactionProcessor', handle: (request) => (fake as FakeCyberSourceSoap).handle(request) }]);
    fake = new FakeCyberSourceSoap(server, credentials);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private handle(request: FakeRequest): FakeAnswer {
    if (request.headers.soapaction?.replace(/"/g, '') !== 'runTransaction') return soapFault('soap:Client', 'No SOAPAction header');
    let envelope: Node;
    try {
      envelope = (parser.parse(request.rawBody) as Node).Envelope as Node;
    } catch {
      return soapFault('soap:Client', 'XML parse error');
    }
    const token = ((((envelope.Header as Node | undefined)?.Security as Node | undefined)?.UsernameToken ?? {}) as Node);
    const password = token.Password as Node | string | undefined;
    const message = (envelope.Body as Node | undefined)?.requestMessage as Node | undefined;
    if (message === undefined) return soapFault('soap:Client', 'No requestMessage');
    const { merchantId, transactionKey } = this.credentials;
    const passwordType = typeof password === 'object' ? password['@_Type'] : undefined;
    if (text(token.Username) !== merchantId || text(password) !== transactionKey || passwordType !== PASSWORD_TEXT || message.merchantID !== merchantId) {
      return soapFault('wsse:FailedCheck', 'Security Data : UsernameToken authentication failed.');
    }
    if (!request.rawBody.includes(`<requestMessage xmlns="${FAKE_NAMESPACE}">`)) return soapFault('soap:Client', 'Element requestMessage is not in the transaction-data namespace');
    const outOfOrder = this.outOfOrder(request.rawBody);
    if (outOfOrder !== null) return soapFault('soap:Client', `XML parse error: element ${outOfOrder} is out of schema order`);
    this.received.push(message);
    const common = { merchantReferenceCode: String(message.merchantReferenceCode ?? '') };
    if (message.paySubscriptionCreateService !== undefined) return this.store(message, common);
    if (message.ccAuthService !== undefined) return this.authorize(message, common);
    if (message.ccCaptureService !== undefined) return this.capture(message, common);
    if (message.ccCreditService !== undefined) return this.credit(message, common);
    if (message.ccAuthReversalService !== undefined) return this.reverse(message, common);
    if (message.voidService !== undefined) return this.void(message, common);
    return soapReply({ ...common, requestID: requestId(), decision: 'REJECT', reasonCode: '101', missingField: 'c:ccAuthService' });
  }

  /** The first requestMessage child out of the XSD's order, or null. */
  private outOfOrder(raw: string): string | null {
    const find = (nodes: Node[], name: string): Node[] | undefined => {
      for (const node of nodes) {
        if (name in node) return node[name] as Node[];
        for (const value of Object.values(node)) if (Array.isArray(value)) {
          const inner = find(value as Node[], name);
          if (inner !== undefined) return inner;
        }
      }
      return undefined;
    };
    const children = (find(orderedParser.parse(raw) as Node[], 'requestMessage') ?? []).map((node) => Object.keys(node).find((key) => key !== ':@') ?? '');
    let last = -1;
    for (const child of children) {
      const index = SCHEMA_ORDER.indexOf(child);
      if (index < last || index === -1) return child;
      last = index;
    }
    return null;
  }

  private reject(common: Node, reason: string, extra: Node = {}): FakeAnswer {
    return soapReply({ ...common, requestID: requestId(), decision: 'REJECT', reasonCode: reason, requestToken: 'AhjzbwSTDECLINED', ...extra });
  }

  private authorize(message: Node, common: Node): FakeAnswer {
    let card = message.card as Node | undefined;
    let bill = message.billTo as Node | undefined;
    const subscription = (message.recurringSubscriptionInfo as Node | undefined)?.subscriptionID;
    if (subscription !== undefined) {
      const profile = this.profiles.get(String(subscription));
      if (profile === undefined) return this.reject(common, '102', { invalidField: 'c:recurringSubscriptionInfo/c:subscriptionID' });
      card = profile.card as Node;
      bill = profile.billTo as Node;
    }
    if (card === undefined) return this.reject(common, '101', { missingField: 'c:card/c:accountNumber' });
    if (!/^\d{13,19}$/.test(String(card.accountNumber))) return this.reject(common, '102', { invalidField: 'c:card/c:accountNumber' });
    const totals = message.purchaseTotals as Node;
    const amount = String(totals.grandTotalAmount ?? '');
    if (!/^\d+(\.\d{1,3})?$/.test(amount)) return this.reject(common, '102', { invalidField: 'c:purchaseTotals/c:grandTotalAmount' });
    const sale = message.ccCaptureService !== undefined;
    const decline = DECLINES[String(bill?.lastName ?? '').toUpperCase()];
    const id = requestId();
    const authReply = {
      reasonCode: decline?.reason ?? '100',
      amount,
      authorizationCode: decline === undefined ? '831000' : undefined,
      avsCode: bill?.postalCode === undefined ? 'U' : 'Y',
      avsCodeRaw: bill?.postalCode === undefined ? 'U' : 'Y',
      cvCode: card.cvNumber === undefined ? undefined : (decline?.cvCode ?? 'M'),
      processorResponse: decline === undefined ? '00' : '05',
      reconciliationID: `R${id.slice(-10)}`,
      paymentNetworkTransactionID: '016153570198200',
    };
    if (decline !== undefined) return soapReply({ ...common, requestID: id, decision: 'REJECT', reasonCode: decline.reason, requestToken: `Axj/${id.slice(-8)}`, ccAuthReply: authReply });
    this.requests.set(id, { id, kind: sale ? 'sale' : 'authorization', amount, currency: String(totals.currency), captured: sale ? Number(amount) : 0, credited: 0, voided: false });
    return soapReply({
      ...common,
      requestID: id,
      decision: 'ACCEPT',
      reasonCode: '100',
      requestToken: `Axj/${id.slice(-8)}`,
      purchaseTotals: { currency: totals.currency },
      ccAuthReply: authReply,
      ccCaptureReply: sale ? { reasonCode: '100', requestDateTime: new Date().toISOString(), amount, reconciliationID: `R${id.slice(-10)}` } : undefined,
    });
  }

  /** The request a follow-on names, when its token matches what was handed out. */
  private original(id: unknown, token: unknown): FakeCyberSourceRequest | undefined {
    const found = this.requests.get(String(id));
    if (found === undefined || (token !== undefined && token !== `Axj/${found.id.slice(-8)}`)) return undefined;
    return found;
  }

  private capture(message: Node, common: Node): FakeAnswer {
    const service = message.ccCaptureService as Node;
    const auth = this.original(service.authRequestID, service.authRequestToken);
    if (auth === undefined || auth.kind !== 'authorization') return this.reject(common, '241');
    if (auth.voided || auth.captured > 0) return this.reject(common, '242');
    const amount = String((message.purchaseTotals as Node).grandTotalAmount);
    if (Number(amount) > Number(auth.amount)) return this.reject(common, '235');
    auth.captured = Number(amount);
    const id = requestId();
    this.requests.set(id, { id, kind: 'capture', amount, currency: auth.currency, captured: Number(amount), credited: 0, voided: false });
    return soapReply({ ...common, requestID: id, decision: 'ACCEPT', reasonCode: '100', requestToken: `Axj/${id.slice(-8)}`, purchaseTotals: { currency: auth.currency }, ccCaptureReply: { reasonCode: '100', amount, reconciliationID: `R${id.slice(-10)}` } });
  }

  private credit(message: Node, common: Node): FakeAnswer {
    const service = message.ccCreditService as Node;
    const amount = String((message.purchaseTotals as Node).grandTotalAmount);
    const id = requestId();
    if (service.captureRequestID === undefined) {
      if ((message.card as Node | undefined)?.accountNumber === undefined) return this.reject(common, '101', { missingField: 'c:card/c:accountNumber' });
    } else {
      const captured = this.original(service.captureRequestID, service.captureRequestToken);
      if (captured === undefined || (captured.kind !== 'sale' && captured.kind !== 'capture')) return this.reject(common, '241');
      if (captured.voided) return this.reject(common, '247');
      if (captured.credited + Number(amount) > captured.captured + 1e-9) return this.reject(common, '235');
      captured.credited += Number(amount);
    }
    this.requests.set(id, { id, kind: 'credit', amount, currency: String((message.purchaseTotals as Node).currency), captured: 0, credited: 0, voided: false });
    return soapReply({ ...common, requestID: id, decision: 'ACCEPT', reasonCode: '100', requestToken: `Axj/${id.slice(-8)}`, ccCreditReply: { reasonCode: '100', amount, reconciliationID: `R${id.slice(-10)}` } });
  }

  private reverse(message: Node, common: Node): FakeAnswer {
    const service = message.ccAuthReversalService as Node;
    const auth = this.original(service.authRequestID, service.authRequestToken);
    if (auth === undefined || auth.kind !== 'authorization') return this.reject(common, '241');
    if (auth.voided || auth.captured > 0) return this.reject(common, '243');
    // The reversal must name the full authorized amount.
    if ((message.purchaseTotals as Node).grandTotalAmount !== auth.amount) return this.reject(common, '239');
    auth.voided = true;
    return soapReply({ ...common, requestID: requestId(), decision: 'ACCEPT', reasonCode: '100', requestToken: 'AhjzbwREVERSED', ccAuthReversalReply: { reasonCode: '100', amount: auth.amount, processorResponse: '100' } });
  }

  private void(message: Node, common: Node): FakeAnswer {
    const service = message.voidService as Node;
    const original = this.original(service.voidRequestID, service.voidRequestToken);
    if (original === undefined || original.kind === 'authorization') return this.reject(common, '241');
    if (original.voided) return this.reject(common, '246');
    original.voided = true;
    return soapReply({ ...common, requestID: requestId(), decision: 'ACCEPT', reasonCode: '100', requestToken: 'AhjzbwVOIDED', voidReply: { reasonCode: '100', amount: original.amount, currency: original.currency.toLowerCase() } });
  }

  private store(message: Node, common: Node): FakeAnswer {
    const card = message.card as Node | undefined;
    if (card === undefined) return this.reject(common, '101', { missingField: 'c:card/c:accountNumber' });
    if ((message.recurringSubscriptionInfo as Node | undefined)?.frequency !== 'on-demand') return this.reject(common, '102', { invalidField: 'c:recurringSubscriptionInfo/c:frequency' });
    const id = requestId();
    this.profiles.set(id, { card, billTo: message.billTo });
    return soapReply({ ...common, requestID: id, decision: 'ACCEPT', reasonCode: '100', requestToken: `Axj/${id.slice(-8)}`, paySubscriptionCreateReply: { reasonCode: '100', subscriptionID: id } });
  }
}
