import { randomBytes, randomUUID } from 'node:crypto';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';
import { cardFreeId } from './gateway-ids.js';

/**
 * A fake Paysafe Card Payments API v1 and Customer Vault API v1 on 127.0.0.1 for e2e tests. It
 * checks HTTP Basic credentials on its own (401 / 5279 otherwise) and the account id in the path
 * (403 / 5270), refuses a repeated merchantRefNum when dupCheck is on (409 / 5031), and keeps
 * authorizations, settlements, refunds and profiles in memory with Paysafe's rules (settle up to
 * the authorized amount, refund up to the settlement, cancel only what is pending). Test
 * convention of its own: the profile's last name picks the decline (DECLINE → 3009, NSF → 3022,
 * CVV → 3019, EXPIRED → 3006).
 */

const DECLINES: Record<string, { code: string; message: string; cvv?: string }> = {
  DECLINE: { code: '3009', message: 'Your request has been declined by the issuing bank.' },
  NSF: { code: '3022', message: 'The card has been declined due to insufficient funds.' },
  CVV: { code: '3019', message: 'Your request has failed the CVV check.', cvv: 'NO_MATCH' },
  EXPIRED: { code: '3006', message: 'You submitted an expired credit card number with your request.' },
};

type Json = Record<string, any>;

export interface FakePaysafeRecord {
  id: string;
  kind: 'auth' | 'settlement' | 'refund' | 'voidauth' | 'standalonecredit' | 'verification';
  amount: number;
  status: string;
  /** Authorizations: what may still be settled. Settlements: what may still be refunded. */
  available: number;
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

const error = (status: number, code: string, message: string, extra: Json = {}): FakeAnswer => ({ status, json: { ...extra, error: { code, message, links: [{ rel: 'errorinfo', href: `https://developer.paysafe.com/en/rest-api/cards/test-and-go-live/card-errors/#ErrorCode${code}` }] } } });

const newId = () => cardFreeId(() => randomUUID());
const paymentToken = () => cardFreeId(() => randomBytes(12).toString('base64url').slice(0, 15));

export class FakePaysafe {
  readonly records = new Map<string, FakePaysafeRecord>();
  readonly profiles = new Map<string, { id: string; card: Json; lastName: string | undefined }>();
  /** Every request body, with its method and path, in arrival order. */
  readonly received: Array<{ method: string; path: string; body: Json }> = [];
  private readonly refNums = new Set<string>();

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly credentials: { username: string; password: string; accountId: string },
  ) {}

  static async start(credentials: { username: string; password: string; accountId: string }): Promise<FakePaysafe> {
    let fake: FakePaysafe | null = null;
    const server = await FakeGatewayServer.start([{ method: '*', path: /^\/(cardpayments|customervault)\/v1\/.*$/, handle: (request) => (fake as FakePaysafe).handle(request) }]);
    fake = new FakePaysafe(server, credentials);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  private handle(request: FakeRequest): FakeAnswer {
    const { username, password, accountId } = this.credentials;
    const expected = `Basic ${Buffer.from(`${username}:${password}`).toString('base64')}`;
    if (request.headers.authorization !== expected) return error(401, '5279', 'The authentication credentials are invalid.');
    let body: Json;
    try {
      body = JSON.parse(request.rawBody) as Json;
    } catch {
      return error(400, '5068', 'Either you submitted a request that is missing a mandatory field or the value of a field does not match the format expected.');
    }
    this.received.push({ method: request.method, path: request.path, body });
    if (request.path === '/customervault/v1/profiles' && request.method === 'POST') return this.store(body);
    const match = /^\/cardpayments\/v1\/accounts\/([^/]+)\/(.+)$/.exec(request.path);
    if (match === null) return error(404, '5269', 'The ID(s) specified in the URL do not correspond to the values in the system.');
    if (match[1] !== accountId) return error(403, '5270', 'The credentials provided with the request do not have permission to access the requested data.');
    const resource = match[2] as string;
    if (request.method === 'POST' && body.dupCheck === true) {
      if (typeof body.merchantRefNum !== 'string' || this.refNums.has(body.merchantRefNum)) return error(409, '5031', 'The transaction you have submitted has already been processed.');
      this.refNums.add(body.merchantRefNum);
    }
    let parts: RegExpExecArray | null;
    if (request.method === 'POST' && resource === 'auths') return this.authorize(body);
    if (request.method === 'POST' && resource === 'verifications') return this.verify(body);
    if (request.method === 'POST' && resource === 'standalonecredits') return this.standaloneCredit(body);
    if (request.method === 'POST' && (parts = /^auths\/([^/]+)\/settlements$/.exec(resource)) !== null) return this.settle(parts[1] as string, body);
    if (request.method === 'POST' && (parts = /^auths\/([^/]+)\/voidauths$/.exec(resource)) !== null) return this.reverse(parts[1] as string, body);
    if (request.method === 'POST' && (parts = /^settlements\/([^/]+)\/refunds$/.exec(resource)) !== null) return this.refund(parts[1] as string, body);
    if (request.method === 'PUT' && (parts = /^(settlements|refunds|standalonecredits)\/([^/]+)$/.exec(resource)) !== null) return this.cancel(parts[2] as string, body);
    return error(404, '5269', 'The ID(s) specified in the URL do not correspond to the values in the system.');
  }

  /** The card of a request (or of the stored card its paymentToken names) and its holder's last name, or the refusal. */
  private card(body: Json): { card: Json; lastName: string | undefined } | { refused: FakeAnswer } {
    const card = body.card as Json | undefined;
    if (card?.paymentToken !== undefined) {
      const stored = [...this.profiles.values()].find((profile) => profile.card.paymentToken === card.paymentToken);
      return stored === undefined ? { refused: error(400, '5269', 'The ID(s) specified in the URL do not correspond to the values in the system.') } : { card: stored.card, lastName: stored.lastName };
    }
    if (!luhn(String(card?.cardNum ?? ''))) return { refused: error(400, '3017', 'You submitted an invalid credit card number with your request.') };
    if (!Number.isInteger(card?.cardExpiry?.month) || !Number.isInteger(card?.cardExpiry?.year)) return { refused: error(400, '3045', 'You submitted an invalid date format for this request.') };
    return { card: card as Json, lastName: body.profile?.lastName };
  }

  private answerCard(card: Json): Json {
    return { type: 'VI', lastDigits: String(card.cardNum ?? '0000').slice(-4), cardExpiry: card.cardExpiry };
  }

  private authorize(body: Json): FakeAnswer {
    if (!Number.isInteger(body.amount) || body.amount <= 0) return error(400, '5068', 'Field error(s)', { fieldErrors: [{ field: 'amount', error: 'must be greater than 0' }] });
    const found = this.card(body);
    if ('refused' in found) return found.refused;
    const id = newId();
    const decline = DECLINES[String(found.lastName ?? '').toUpperCase()];
    const common = { id, merchantRefNum: body.merchantRefNum, txnTime: new Date().toISOString(), settleWithAuth: body.settleWithAuth === true };
    const checks = { avsResponse: body.billingDetails?.zip === undefined ? 'NOT_PROCESSED' : 'MATCH', cvvVerification: found.card.cvv === undefined && body.card?.paymentToken === undefined ? 'NOT_PROCESSED' : (decline?.cvv ?? 'MATCH') };
    if (decline !== undefined) return { status: 402, json: { ...common, ...checks, riskReasonCode: [1059], error: { code: decline.code, message: decline.message } } };
    const settle = body.settleWithAuth === true;
    this.records.set(id, { id, kind: 'auth', amount: body.amount, status: 'COMPLETED', available: settle ? 0 : body.amount });
    if (settle) this.records.set(`settlement:${id}`, { id, kind: 'settlement', amount: body.amount, status: 'PENDING', available: body.amount });
    return {
      json: {
        ...common,
        status: 'COMPLETED',
        amount: body.amount,
        availableToSettle: settle ? 0 : body.amount,
        card: this.answerCard(found.card),
        authCode: String(100000 + (randomBytes(3).readUIntBE(0, 3) % 899999)),
        currencyCode: 'USD',
        ...checks,
        ...(settle ? { settlements: [{ id, merchantRefNum: body.merchantRefNum, status: 'PENDING', amount: body.amount, availableToRefund: body.amount }] } : {}),
      },
    };
  }

  private verify(body: Json): FakeAnswer {
    const found = this.card(body);
    if ('refused' in found) return found.refused;
    const decline = DECLINES[String(found.lastName ?? '').toUpperCase()];
    if (decline !== undefined) return { status: 402, json: { id: newId(), merchantRefNum: body.merchantRefNum, error: { code: decline.code, message: decline.message } } };
    const id = newId();
    this.records.set(id, { id, kind: 'verification', amount: 0, status: 'COMPLETED', available: 0 });
    return { json: { id, merchantRefNum: body.merchantRefNum, status: 'COMPLETED', card: this.answerCard(found.card), authCode: '493936', currencyCode: 'USD', avsResponse: body.billingDetails?.zip === undefined ? 'NOT_PROCESSED' : 'MATCH', cvvVerification: found.card.cvv === undefined ? 'NOT_PROCESSED' : 'MATCH' } };
  }

  private standaloneCredit(body: Json): FakeAnswer {
    const found = this.card(body);
    if ('refused' in found) return found.refused;
    const id = newId();
    this.records.set(`standalonecredit:${id}`, { id, kind: 'standalonecredit', amount: body.amount, status: 'PENDING', available: 0 });
    return { json: { id, merchantRefNum: body.merchantRefNum, status: 'PENDING', amount: body.amount, card: this.answerCard(found.card), currencyCode: 'USD' } };
  }

  private settle(authId: string, body: Json): FakeAnswer {
    const auth = this.records.get(authId);
    if (auth?.kind !== 'auth') return error(404, '3201', 'The authorization ID included in this settlement request could not be found.');
    if (auth.status === 'CANCELLED' || auth.available === 0) return error(400, '3203', 'The authorization is either fully settled or cancelled.');
    if (body.amount > auth.available) return error(400, '3204', 'The requested settlement amount exceeds the remaining authorization amount.');
    auth.available -= body.amount;
    const id = newId();
    this.records.set(`settlement:${id}`, { id, kind: 'settlement', amount: body.amount, status: 'PENDING', available: body.amount });
    return { json: { id, merchantRefNum: body.merchantRefNum, txnTime: new Date().toISOString(), status: 'PENDING', amount: body.amount, availableToRefund: body.amount } };
  }

  private reverse(authId: string, body: Json): FakeAnswer {
    const auth = this.records.get(authId);
    if (auth?.kind !== 'auth') return error(404, '3201', 'The authorization ID included in this request could not be found.');
    if (auth.available !== auth.amount || auth.status === 'CANCELLED') return error(400, '3502', 'The authorization has already been settled. You cannot process an authorization reversal transaction against an authorization that has been settled.');
    if (body.amount !== undefined && body.amount > auth.available) return error(400, '3204', 'The requested amount exceeds the remaining authorization amount.');
    auth.available -= body.amount ?? auth.available;
    if (auth.available === 0) auth.status = 'CANCELLED';
    const id = newId();
    return { json: { id, merchantRefNum: body.merchantRefNum, txnTime: new Date().toISOString(), status: 'COMPLETED', amount: body.amount ?? auth.amount } };
  }

  private refund(settlementId: string, body: Json): FakeAnswer {
    const settlement = this.records.get(`settlement:${settlementId}`);
    if (settlement === undefined) return error(404, '3407', 'The settlement referred to by the transaction response ID you provided cannot be found.');
    if (settlement.status === 'CANCELLED') return error(400, '3407', 'The settlement referred to by the transaction response ID you provided cannot be found.');
    if (body.amount > settlement.available) return error(400, '3402', 'The requested credit amount exceeds the remaining settlement amount.');
    settlement.available -= body.amount;
    const id = newId();
    this.records.set(`refund:${id}`, { id, kind: 'refund', amount: body.amount, status: 'PENDING', available: 0 });
    return { json: { id, merchantRefNum: body.merchantRefNum, txnTime: new Date().toISOString(), status: 'PENDING', amount: body.amount } };
  }

  private cancel(id: string, body: Json): FakeAnswer {
    if (body.status !== 'CANCELLED') return error(400, '5068', 'Field error(s)', { fieldErrors: [{ field: 'status', error: 'must be CANCELLED' }] });
    const record = this.records.get(`settlement:${id}`) ?? this.records.get(`refund:${id}`) ?? this.records.get(`standalonecredit:${id}`);
    if (record === undefined) return error(404, '5269', 'The ID(s) specified in the URL do not correspond to the values in the system.');
    if (record.status !== 'PENDING') return error(400, '3415', 'You cannot cancel this transaction. It is not in a state that can be cancelled.');
    record.status = 'CANCELLED';
    return { json: { id: record.id, status: 'CANCELLED', amount: record.amount } };
  }

  private store(body: Json): FakeAnswer {
    if (typeof body.merchantCustomerId !== 'string' || typeof body.locale !== 'string') return error(400, '5068', 'Field error(s)', { fieldErrors: [{ field: 'merchantCustomerId', error: 'may not be null' }] });
    if ([...this.profiles.values()].some((profile) => profile.id === body.merchantCustomerId)) return error(409, '7505', 'The merchant customer ID you provided has already been used.');
    const found = this.card(body);
    if ('refused' in found) return found.refused;
    if (body.card.cvv !== undefined) return error(400, '5068', 'Field error(s)', { fieldErrors: [{ field: 'card.cvv', error: 'not allowed' }] });
    const id = newId();
    const token = paymentToken();
    this.profiles.set(id, { id, card: { ...found.card, paymentToken: token }, lastName: body.lastName });
    return {
      status: 201,
      json: {
        id,
        status: 'ACTIVE',
        merchantCustomerId: body.merchantCustomerId,
        locale: body.locale,
        firstName: body.firstName,
        lastName: body.lastName,
        cards: [{ status: 'ACTIVE', id: newId(), lastDigits: String(body.card.cardNum).slice(-4), cardExpiry: body.card.cardExpiry, holderName: body.card.holderName, cardType: 'VI', paymentToken: token, defaultCardIndicator: true }],
      },
    };
  }
}
