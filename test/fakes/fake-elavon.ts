import { randomBytes, randomUUID } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from './fake-gateway-server.js';
import { cardFreeId } from './gateway-ids.js';

/**
 * A fake Elavon Converge XML API on 127.0.0.1 for e2e tests: processxml.do (demo and live paths)
 * reading the `xmldata` form field, the credential check (errorCode 4025), the transaction types
 * Coffer sends, and a test convention of its own: the card holder's last name picks the decline
 * (DECLINE → 05 DECLINED, NSF → 51, CVV → N7 DECLINED CVV2). State lives in memory for assertions.
 */

export interface FakeElavonTxn {
  id: string;
  type: string;
  /** In the major unit, as sent ("10.00"). */
  amount: string;
  currency: string | null;
  completed: string | null;
  returned: number;
  voided: boolean;
}

const DECLINES: Record<string, [string, string]> = {
  DECLINE: ['05', 'DECLINED'],
  NSF: ['51', 'DECLINED'],
  CVV: ['N7', 'DECLINED CVV2'],
};

const parser = new XMLParser({ parseTagValue: false, processEntities: true });

function txnXml(fields: Record<string, string>): FakeAnswer {
  const escape = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;');
  return { contentType: 'application/xml', body: `<?xml version="1.0" encoding="UTF-8"?>\n<txn>${Object.entries(fields).map(([name, value]) => `<${name}>${escape(value)}</${name}>`).join('')}</txn>` };
}

const error = (code: string, name: string, message: string) => txnXml({ errorCode: code, errorName: name, errorMessage: message });

/** A token shaped like Converge's (16 digits) that is not a valid card number. */
function token(): string {
  for (;;) {
    const digits = Array.from(randomBytes(16), (byte) => String(byte % 10)).join('');
    if (!luhn(digits)) return digits;
  }
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

export class FakeElavon {
  readonly txns = new Map<string, FakeElavonTxn>();
  readonly tokens = new Map<string, Record<string, string>>();
  /** The `<txn>` fields of every request, in arrival order. */
  readonly received: Array<Record<string, string>> = [];

  private constructor(
    readonly server: FakeGatewayServer,
    private readonly credentials: { merchantId: string; user: string; pin: string },
  ) {}

  static async start(credentials: { merchantId: string; user: string; pin: string }): Promise<FakeElavon> {
    let fake: FakeElavon | null = null;
    const server = await FakeGatewayServer.start([{ method: 'POST', path: /^\/VirtualMerchant(?:Demo)?\/processxml\.do$/, handle: (request) => (fake as FakeElavon).handle(request) }]);
    fake = new FakeElavon(server, credentials);
    return fake;
  }

  get url(): string {
    return this.server.url;
  }

  close(): Promise<void> {
    return this.server.close();
  }

  /** The request with this field value (e.g. ssl_invoice_number). */
  find(name: string, value: string): Record<string, string> | undefined {
    return this.received.find((fields) => fields[name] === value);
  }

  private handle(request: FakeRequest): FakeAnswer {
    const data = new URLSearchParams(request.rawBody).get('xmldata');
    if (data === null) return error('4000', 'VID Not Supplied', 'The Converge ID was not supplied in the authorization request.');
    const fields = (parser.parse(data) as { txn?: Record<string, unknown> }).txn;
    if (fields === undefined || typeof fields !== 'object') return error('4009', 'Required Field Not Supplied', 'One or more required fields were not included.');
    const txn = Object.fromEntries(Object.entries(fields).map(([name, value]) => [name, String(value)]));
    this.received.push(txn);
    const { merchantId, user, pin } = this.credentials;
    if (txn.ssl_merchant_id !== merchantId || txn.ssl_user_id !== user || txn.ssl_pin !== pin) {
      return error('4025', 'Invalid Credentials', 'The credentials supplied in the authorization request are invalid.');
    }
    switch (txn.ssl_transaction_type) {
      case 'ccsale':
      case 'ccauthonly':
      case 'ccverify':
        return this.authorize(txn);
      case 'cccomplete':
        return this.reference(txn, (original) => {
          if (original.type !== 'ccauthonly' || original.completed !== null || original.voided) return 'not completable';
          if (Number(txn.ssl_amount) > Number(original.amount)) return 'amount';
          original.completed = txn.ssl_amount ?? original.amount;
          return null;
        });
      case 'ccreturn':
        return this.reference(txn, (original) => {
          const settled = original.type === 'ccsale' ? original.amount : original.completed;
          if (settled === null || original.voided) return 'not returnable';
          if (original.returned + Number(txn.ssl_amount) > Number(settled) + 1e-9) return 'amount';
          original.returned += Number(txn.ssl_amount);
          return null;
        });
      case 'ccdelete':
      case 'ccvoid':
        return this.reference(txn, (original) => {
          const deletable = txn.ssl_transaction_type === 'ccdelete' ? original.type === 'ccauthonly' : original.type !== 'ccauthonly';
          if (!deletable || original.voided) return 'wrong type';
          original.voided = true;
          return null;
        });
      case 'ccgettoken':
        return this.store(txn);
      default:
        return error('4010', 'Invalid Transaction Type', 'The authorization request included an invalid Transaction Type');
    }
  }

  /** The card fields of a request (or of the stored card its ssl_token names), or the refusal. */
  private card(txn: Record<string, string>): { card: Record<string, string> } | { refused: FakeAnswer } {
    if (txn.ssl_token !== undefined) {
      const stored = this.tokens.get(txn.ssl_token);
      return stored === undefined ? { refused: error('5085', 'Invalid Token', 'The token supplied in the authorization request appears to be invalid.') } : { card: stored };
    }
    if (!luhn(txn.ssl_card_number ?? '')) return { refused: error('5000', 'Credit Card Number Invalid', 'The Credit Card Number supplied in the authorization request appears to be invalid.') };
    if (!/^\d{4}$/.test(txn.ssl_exp_date ?? '')) return { refused: error('5001', 'Exp Date Invalid', 'The Credit Card Expiration Date supplied in the authorization request appears to be invalid.') };
    return { card: txn };
  }

  private authorize(txn: Record<string, string>): FakeAnswer {
    const found = this.card(txn);
    if ('refused' in found) return found.refused;
    const { card } = found;
    const amount = txn.ssl_transaction_type === 'ccverify' ? '0.00' : txn.ssl_amount;
    if (amount === undefined || !/^\d+(\.\d{1,3})?$/.test(amount)) return error('5002', 'Amount Invalid', 'The amount supplied in the authorization request appears to be invalid.');
    const id = cardFreeId(() => `${new Date().toISOString().slice(2, 10).replace(/-/g, '')}ED3-${randomUUID().toUpperCase()}`);
    const decline = DECLINES[(card.ssl_last_name ?? '').toUpperCase()];
    const common = {
      ssl_card_number: `${(card.ssl_card_number ?? '').slice(0, 2)}**********${(card.ssl_card_number ?? '').slice(-4)}`,
      ssl_txn_id: id,
      ssl_amount: amount,
      ssl_avs_response: txn.ssl_avs_zip === undefined ? '' : 'Y',
      ssl_cvv2_response: txn.ssl_cvv2cvc2 === undefined ? '' : decline?.[0] === 'N7' ? 'N' : 'M',
      ssl_txn_time: '11/23/2026 09:00:00 PM',
    };
    if (decline !== undefined) return txnXml({ ssl_issuer_response: decline[0], ssl_result: '1', ssl_result_message: decline[1], ssl_approval_code: '', ...common });
    this.txns.set(id, { id, type: txn.ssl_transaction_type as string, amount, currency: txn.ssl_transaction_currency ?? null, completed: null, returned: 0, voided: false });
    return txnXml({ ssl_issuer_response: '00', ssl_result: '0', ssl_result_message: 'APPROVAL', ssl_approval_code: String(100000 + (randomBytes(3).readUIntBE(0, 3) % 899999)), ssl_ps2000_data: 'A8181831435010530042VE', ...common });
  }

  private reference(txn: Record<string, string>, apply: (original: FakeElavonTxn) => string | null): FakeAnswer {
    const original = this.txns.get(txn.ssl_txn_id ?? '');
    if (original === undefined) return error('5040', 'Invalid Transaction ID', 'The transaction ID is invalid for this transaction type');
    const refused = apply(original);
    if (refused === 'amount') return error('5091', 'Invalid amount', 'The amount exceeded the original transaction amount. Amount must be equal or lower than the original transaction amount.');
    if (refused !== null) return error('5040', 'Invalid Transaction ID', 'The transaction ID is invalid for this transaction type');
    const id = txn.ssl_transaction_type === 'cccomplete' ? original.id : cardFreeId(() => `${original.id.slice(0, 9)}-${randomUUID().toUpperCase()}`);
    if (txn.ssl_transaction_type === 'ccreturn') this.txns.set(id, { ...original, id, type: 'ccreturn', amount: txn.ssl_amount ?? '0', returned: 0 });
    return txnXml({ ssl_result: '0', ssl_result_message: 'APPROVAL', ssl_txn_id: id, ssl_amount: txn.ssl_amount ?? original.amount, ssl_approval_code: '' });
  }

  private store(txn: Record<string, string>): FakeAnswer {
    if (txn.ssl_add_token !== 'Y') return error('4009', 'Required Field Not Supplied', 'ssl_add_token');
    const found = this.card(txn);
    if ('refused' in found) return found.refused;
    const id = token();
    this.tokens.set(id, found.card);
    return txnXml({ ssl_result: '0', ssl_result_message: '', ssl_txn_id: '', ssl_token: id, ssl_token_response: 'SUCCESS', ssl_add_token_response: 'Card Added', ssl_transaction_type: 'GETTOKEN' });
  }
}
