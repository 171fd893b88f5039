import { randomInt } from 'node:crypto';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';

/**
 * A fake NMI Payment API on 127.0.0.1 for e2e tests, on the shared FakeGatewayServer: POST
 * /api/transact.php with form-encoded variables (security_key, or username/password), `type`
 * sale | auth | capture | refund | void | validate and `customer_vault=add_customer`, answered
 * form-encoded (response 1/2/3, responsetext, transactionid, response_code, …).
 *
 * Test conventions: NMI's documented test-mode triggers (an amount below 1.00 is declined with
 * response_code 200; address1 "888" with zip "77777" gives AVS "Y"; an invalid card number is a
 * response=3) plus one of this fake's own: a last name of "NSF" is declined with 202 Insufficient
 * funds. State lives in memory for assertions.
 */

export interface FakeNmiTransaction {
  id: string;
  type: string;
  amount: number;
  currency: string;
  captured: number;
  refunded: number;
  voided: boolean;
  fields: Record<string, string>;
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

const answer = (fields: Record<string, string>): FakeAnswer => ({
  body: new URLSearchParams({ response: '1', responsetext: '', authcode: '', transactionid: '', avsresponse: '', cvvresponse: '', orderid: '', type: '', response_code: '100', ...fields }).toString(),
  contentType: 'text/html; charset=UTF-8',
});
const rejected = (text: string, type = ''): FakeAnswer => answer({ response: '3', responsetext: `${text} REFID:${randomInt(1e8, 1e9)}`, transactionid: '0', type, response_code: '300' });

export class FakeNmi {
  readonly transactions = new Map<string, FakeNmiTransaction>();
  /** customer_vault_id → the card variables it holds. */
  readonly vault = new Map<string, Record<string, string>>();

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly securityKey: string,
    private readonly users: Record<string, string>,
  ) {}

  static async start(options: { securityKey: string; users?: Record<string, string> }): Promise<FakeNmi> {
    let fake: FakeNmi | null = null;
    const server = await FakeGatewayServer.start([{ method: 'POST', path: '/api/transact.php', handle: (request) => (fake as FakeNmi).handle(request) }]);
    fake = new FakeNmi(server, options.securityKey, options.users ?? {});
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** The variables of a recorded request. */
  static fieldsOf(request: FakeRequest): Record<string, string> {
    return Object.fromEntries(new URLSearchParams(request.rawBody));
  }

  private handle(request: FakeRequest): FakeAnswer {
    const fields = FakeNmi.fieldsOf(request);
    const type = fields.type ?? '';
    const keyOk = fields.security_key !== undefined && fields.security_key === this.securityKey;
    const userOk = fields.username !== undefined && this.users[fields.username] === fields.password;
    if (!keyOk && !userOk) return answer({ response: '3', responsetext: 'Authentication Failed', transactionid: '0', type, response_code: '300' });
    if (fields.customer_vault === 'add_customer') return this.addCustomer(fields);
    switch (type) {
      case 'sale':
      case 'auth':
      case 'validate':
        return this.pay(type, fields);
      case 'capture':
      case 'refund':
      case 'void':
        return this.follow(type, fields);
      default:
        return rejected('Invalid Transaction Type');
    }
  }

  private pay(type: string, fields: Record<string, string>): FakeAnswer {
    let card = fields;
    if (fields.customer_vault_id !== undefined) {
      const stored = this.vault.get(fields.customer_vault_id);
      if (stored === undefined) return rejected('Invalid Customer Vault Id', type);
      card = { ...stored, ...fields };
    } else if (!luhn(fields.ccnumber ?? '')) {
      return rejected('Invalid Credit Card Number', type);
    } else if (!/^\d{4}$/.test(fields.ccexp ?? '')) {
      return rejected('Field required: ccexp', type);
    }
    const amount = type === 'validate' ? 0 : Number(fields.amount);
    if (type !== 'validate' && !(amount > 0)) return rejected('Invalid amount', type);
    const id = String(randomInt(1e9, 1e10));
    const avs = card.address1 === undefined ? '' : card.address1.startsWith('888') && card.zip === '77777' ? 'Y' : 'N';
    const cvv = fields.cvv === undefined ? 'P' : 'M';
    const common = { transactionid: id, avsresponse: avs, cvvresponse: cvv, orderid: fields.orderid ?? '', type };
    if (type !== 'validate' && amount < 1) return answer({ ...common, response: '2', responsetext: 'DECLINE', response_code: '200' });
    if ((card.last_name ?? '').toUpperCase() === 'NSF') return answer({ ...common, response: '2', responsetext: 'Insufficient funds', response_code: '202' });
    this.transactions.set(id, { id, type, amount, currency: fields.currency ?? 'USD', captured: type === 'sale' ? amount : 0, refunded: 0, voided: false, fields });
    return answer({ ...common, responsetext: 'SUCCESS', authcode: String(randomInt(100000, 999999)), response_code: '100' });
  }

  private follow(type: string, fields: Record<string, string>): FakeAnswer {
    const original = this.transactions.get(fields.transactionid ?? '');
    if (original === undefined) return rejected(`Transaction not found`, type);
    const amount = Number(fields.amount ?? original.amount);
    const ok = (transactionid: string) => answer({ responsetext: 'SUCCESS', transactionid, type, response_code: '100' });
    if (original.voided) return rejected('Transaction already voided', type);
    if (type === 'void') {
      original.voided = true;
      return ok(original.id);
    }
    if (type === 'capture') {
      if (original.type !== 'auth' || original.captured > 0) return rejected('A capture requires that the existing transaction be an AUTH', type);
      if (amount > original.amount) return rejected('The specified amount exceeds the authorization amount', type);
      original.captured = amount;
      return ok(original.id);
    }
    if (amount > original.captured - original.refunded) return rejected('Refund amount may not exceed the transaction balance', type);
    original.refunded += amount;
    return ok(String(randomInt(1e9, 1e10)));
  }

  private addCustomer(fields: Record<string, string>): FakeAnswer {
    if (!luhn(fields.ccnumber ?? '')) return rejected('Invalid Credit Card Number');
    const id = String(randomInt(1e9, 1e10));
    this.vault.set(id, fields);
    return answer({ responsetext: 'Customer Added', customer_vault_id: id });
  }
}
