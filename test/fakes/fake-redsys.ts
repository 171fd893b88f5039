import { createCipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';

/**
 * A fake Redsys REST endpoint on 127.0.0.1 for e2e tests: POST /sis/rest/trataPeticionREST with the
 * JSON envelope (Ds_SignatureVersion, Base64 Ds_MerchantParameters, Ds_Signature). It checks the
 * merchant code and terminal and verifies the signature with its own implementation of Redsys's
 * recipe (3DES-CBC of the order under the merchant key, zero IV and padding; HMAC-SHA256 of the
 * Base64 parameters), refuses a repeated order (SIS0051) as Redsys does, and signs its answers in
 * Base64url the same way unless told to forge them. Refusals are `{"errorCode":"SIS…"}` answers.
 * The fake's own convention (not Redsys's): a card holder named "Reject <code>" is declined with
 * that Ds_Response. State lives in memory.
 */

export interface FakeRedsysOrder {
  order: string;
  status: 'paid' | 'authorized' | 'cancelled' | 'declined' | 'verified';
  amount: number;
  currency: string;
  captured: number;
  refunded: number;
}

export interface FakeRedsysCall {
  order: string;
  type: string;
  parameters: Record<string, unknown>;
  request: FakeRequest;
}

function orderKey(key: string, order: string): Buffer {
  const block = Buffer.alloc(Math.ceil(Buffer.byteLength(order) / 8) * 8);
  block.write(order, 'utf8');
  const cipher = createCipheriv('des-ede3-cbc', Buffer.from(key, 'base64'), Buffer.alloc(8)).setAutoPadding(false);
  return Buffer.concat([cipher.update(block), cipher.final()]);
}

function mac(key: string, order: string, encoded: string): Buffer {
  return createHmac('sha256', orderKey(key, order)).update(encoded).digest();
}

export class FakeRedsys {
  readonly orders = new Map<string, FakeRedsysOrder>();
  readonly calls: FakeRedsysCall[] = [];
  /** Sign answers with another key from now on (a forged or corrupted answer). */
  forgeSignatures = false;

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly credentials: { merchantId: string; terminal: string; secretKey: string },
  ) {}

  static async start(credentials: { merchantId: string; terminal: string; secretKey: string }): Promise<FakeRedsys> {
    let fake: FakeRedsys | null = null;
    const server = await FakeGatewayServer.start([{ method: 'POST', path: '/sis/rest/trataPeticionREST', handle: (request) => (fake as FakeRedsys).handle(request) }]);
    fake = new FakeRedsys(server, credentials);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** The calls made for an order, in order. */
  callsFor(order: string): FakeRedsysCall[] {
    return this.calls.filter((call) => call.order === order);
  }

  private handle(request: FakeRequest): FakeAnswer {
    const envelope = jsonOf(request);
    const encoded = String(envelope.Ds_MerchantParameters ?? '');
    let parameters: Record<string, unknown>;
    try {
      parameters = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8')) as Record<string, unknown>;
    } catch {
      return { json: { errorCode: 'SIS0261' } };
    }
    const order = String(parameters.DS_MERCHANT_ORDER ?? '');
    const type = String(parameters.DS_MERCHANT_TRANSACTIONTYPE ?? '');
    this.calls.push({ order, type, parameters, request });
    if (!/^\d{4}[A-Za-z0-9]{0,8}$/.test(order)) return { json: { errorCode: 'SIS0074' } };
    if (parameters.DS_MERCHANT_MERCHANTCODE !== this.credentials.merchantId || parameters.DS_MERCHANT_TERMINAL !== this.credentials.terminal) return { json: { errorCode: 'SIS0026' } };
    const given = Buffer.from(String(envelope.Ds_Signature ?? ''), 'base64');
    const expected = mac(this.credentials.secretKey, order, encoded);
    if (envelope.Ds_SignatureVersion !== 'HMAC_SHA256_V1' || given.length !== expected.length || !timingSafeEqual(given, expected)) return { json: { errorCode: 'SIS0042' } };
    const amount = Number(parameters.DS_MERCHANT_AMOUNT);
    const currency = String(parameters.DS_MERCHANT_CURRENCY);
    if (!Number.isInteger(amount) || amount < 0) return { json: { errorCode: 'SIS0018' } };
    switch (type) {
      case '0':
      case '1':
      case '7':
        return this.pay(order, type, amount, currency, parameters);
      case '2':
        return this.capture(order, amount);
      case '3':
        return this.refund(order, amount);
      case '9':
        return this.cancel(order, amount);
      default:
        return { json: { errorCode: 'SIS0023' } };
    }
  }

  private pay(order: string, type: string, amount: number, currency: string, parameters: Record<string, unknown>): FakeAnswer {
    if (this.orders.has(order)) return { json: { errorCode: 'SIS0051' } };
    if (!/^\d{12,19}$/.test(String(parameters.DS_MERCHANT_PAN ?? ''))) return { json: { errorCode: 'SIS0093' } };
    const rejected = /^Reject (\d{4})$/i.exec(String(parameters.DS_MERCHANT_TITULAR ?? ''));
    const status = rejected !== null ? 'declined' : type === '0' ? 'paid' : type === '1' ? 'authorized' : 'verified';
    this.orders.set(order, { order, status, amount, currency, captured: status === 'paid' ? amount : 0, refunded: 0 });
    const cof = parameters.DS_MERCHANT_COF_INI === 'S' ? { Ds_Merchant_Cof_Txnid: '2205022148020' } : {};
    return this.signed({ Ds_Amount: String(amount), Ds_Currency: currency, Ds_Order: order, Ds_Response: rejected?.[1] ?? '0000', Ds_AuthorisationCode: rejected === null ? '488185' : '', Ds_TransactionType: type, ...cof });
  }

  private capture(order: string, amount: number): FakeAnswer {
    const auth = this.orders.get(order);
    if (auth?.status !== 'authorized') return { json: { errorCode: 'SIS0062' } };
    if (amount > auth.amount) return { json: { errorCode: 'SIS0059' } };
    auth.status = 'paid';
    auth.captured = amount;
    return this.signed({ Ds_Amount: String(amount), Ds_Currency: auth.currency, Ds_Order: order, Ds_Response: '0900', Ds_TransactionType: '2' });
  }

  private refund(order: string, amount: number): FakeAnswer {
    const paid = this.orders.get(order);
    if (paid?.status !== 'paid') return { json: { errorCode: 'SIS0054' } };
    if (paid.refunded + amount > paid.captured) return { json: { errorCode: 'SIS0057' } };
    paid.refunded += amount;
    return this.signed({ Ds_Amount: String(amount), Ds_Currency: paid.currency, Ds_Order: order, Ds_Response: '0900', Ds_TransactionType: '3' });
  }

  private cancel(order: string, amount: number): FakeAnswer {
    const auth = this.orders.get(order);
    if (auth?.status !== 'authorized' || amount !== auth.amount) return { json: { errorCode: 'SIS0222' } };
    auth.status = 'cancelled';
    return this.signed({ Ds_Amount: String(amount), Ds_Currency: auth.currency, Ds_Order: order, Ds_Response: '0400', Ds_TransactionType: '9' });
  }

  private signed(parameters: Record<string, unknown>): FakeAnswer {
    const encoded = Buffer.from(JSON.stringify(parameters)).toString('base64');
    const key = this.forgeSignatures ? Buffer.from('NotTheMerchantKey24Bytes').toString('base64') : this.credentials.secretKey;
    return { json: { Ds_SignatureVersion: 'HMAC_SHA256_V1', Ds_MerchantParameters: encoded, Ds_Signature: mac(key, String(parameters.Ds_Order), encoded).toString('base64url') } };
  }
}
