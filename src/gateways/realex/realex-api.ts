import { z } from 'zod';
import {
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  gatewayMinorUnits,
  optionalCredential,
  parseXmlAnswer,
  readAnswer,
  requireCredential,
  scrubWith,
  scrubXmlElements,
  xmlDocument,
  type AdapterPaymentMethod,
  type GatewayCall,
  type GatewayRequest,
  type XmlValue,
} from '../kit/index.js';
import { hashMatches, realexHash } from './realex-signing.js';

/**
 * Global Payments' e-commerce XML API (formerly Realex Payments, "RealAuth Remote"): one XML
 * `<request type=… timestamp=…>` POSTed to epage-remote.cgi, answered by a signed `<response>`.
 * Facts from Global Payments' developer docs (XML API: Process a payment, Capture, Refund, Void,
 * Card verification, Card storage) and ActiveMerchant's Realex adapter.
 */

export const REALEX_TEST_BASE = 'https://api.sandbox.realexpayments.com';
export const REALEX_LIVE_BASE = 'https://api.realexpayments.com';
export const REALEX_PATH = '/epage-remote.cgi';

export function realexEndpoint(request: GatewayRequest): string {
  return request.testMode ? REALEX_TEST_BASE : REALEX_LIVE_BASE;
}

/** The card number, CVN, expiry and the hashes (a refundhash is a secret's digest) never reach a transcript. */
export const scrubRealex = scrubWith(scrubXmlElements('number', 'expdate', 'refundhash'));

/** Global Payments' `orderid`: letters, digits, `-` and `_`, at most 50; the order id, else Coffer's transaction token. */
export function realexOrderId(request: GatewayRequest): string {
  const fromOrder = (request.orderId ?? '').replace(/[^A-Za-z0-9_-]/g, '').slice(0, 50);
  return fromOrder === '' ? request.transactionToken.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 50) : fromOrder;
}

/** The amount in minor units (ISO 4217 exponent: 1001 EUR cents, 1500 yen) and its currency. */
export function realexAmount(request: GatewayRequest): { value: string; currency: string } {
  if (request.amount === null || request.currencyCode === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  return { value: String(gatewayMinorUnits(request.amount, request.currencyCode)), currency: request.currencyCode };
}

export function amountElement(amount: { value: string; currency: string }): XmlValue {
  return { '#text': amount.value, '@_currency': amount.currency };
}

/** Global Payments' card `type` for Coffer's card brands. */
const CARD_TYPES: Readonly<Record<string, string>> = { visa: 'VISA', master: 'MC', maestro: 'MC', american_express: 'AMEX', diners_club: 'DINERS', jcb: 'JCB' };

type Card = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;

export function holderName(card: Card): string {
  return [card.firstName, card.lastName].filter((part) => part !== null && part !== '').join(' ').slice(0, 100);
}

/** `<card>`: number, expdate MMYY, chname, type, and the CVN with presind 1 when the card has one. */
export function cardElement(card: Card): { [name: string]: XmlValue } {
  if (card.month === null || card.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const type = CARD_TYPES[card.cardType ?? ''];
  if (type === undefined) throw new GatewayInputError(`Global Payments does not take ${card.cardType ?? 'this'} cards.`, 'unsupported_feature');
  const cvn = card.verificationValue?.reveal();
  return {
    number: card.number.reveal(),
    expdate: `${String(card.month).padStart(2, '0')}${String(card.year % 100).padStart(2, '0')}`,
    chname: holderName(card) || undefined,
    type,
    cvn: cvn === undefined || cvn === '' ? undefined : { number: cvn, presind: 1 },
  };
}

/**
 * `<tssinfo>`: the buyer's IPv4 address and the billing address as Global Payments' AVS reads it
 * (`code` = postcode digits|street number digits, as its AVS page and ActiveMerchant build it).
 */
export function tssInfo(request: GatewayRequest, card: Card | null): XmlValue {
  const ip = request.ip !== null && /^\d{1,3}(\.\d{1,3}){3}$/.test(request.ip) ? request.ip : undefined;
  const address = card?.address;
  const code = address === undefined ? '' : [address.zip ?? '', `${address.address1 ?? ''}${address.address2 ?? ''}`].map((part) => part.replace(/\D/g, '')).filter((part) => part !== '').join('|');
  const billing = address?.country || code !== '' ? { '@_type': 'billing', code: code || undefined, country: address?.country || undefined } : undefined;
  if (ip === undefined && billing === undefined) return undefined;
  return { custipaddress: ip, address: billing };
}

/** `<comments>` with the transaction's description as comment 1. */
export function comments(request: GatewayRequest): XmlValue {
  return request.description === null || request.description === '' ? undefined : { comment: { '#text': request.description.slice(0, 255), '@_id': 1 } };
}

/**
 * A previous transaction as Coffer records it: `orderid;pasref;authcode` (ActiveMerchant's
 * authorization format), what settle, rebate and void refer to.
 */
export function referenceIds(request: GatewayRequest): { orderId: string; pasref: string; authcode: string } {
  const id = request.reference?.gatewayTransactionId;
  const [orderId, pasref, authcode] = (id ?? '').split(';');
  if (!orderId || !pasref) throw new GatewayFaultError('No Global Payments orderid and pasref to refer to.', 'reference without orderid;pasref');
  return { orderId, pasref, authcode: authcode ?? '' };
}

const responseSchema = z.object({
  '@_timestamp': z.string(),
  merchantid: z.string().optional(),
  account: z.string().optional(),
  orderid: z.string().optional(),
  result: z.string(),
  message: z.string().optional(),
  pasref: z.string().optional(),
  authcode: z.string().optional(),
  avspostcoderesponse: z.string().optional(),
  avsaddressresponse: z.string().optional(),
  cvnresult: z.string().optional(),
  sha1hash: z.string().optional(),
});
export type RealexAnswer = z.infer<typeof responseSchema>;

/** Results Global Payments signs: a success, a decline or a bank error must carry a hash that verifies. */
const SIGNED_RESULTS = /^(00|1\d\d|2\d\d)$/;

/**
 * Checks the answer's `sha1hash` over timestamp.merchantid.orderid.result.message.pasref.authcode
 * with the shared secret. A hash that does not verify, or a missing one where Global Payments
 * always signs, is a fault: nothing in the answer can be trusted.
 */
function verifyAnswer(answer: RealexAnswer, sharedSecret: string): void {
  const given = answer.sha1hash ?? '';
  if (given === '') {
    if (SIGNED_RESULTS.test(answer.result)) throw new GatewayFaultError('Global Payments returned an unsigned response.', `result ${answer.result} without sha1hash`);
    return;
  }
  const expected = realexHash([answer['@_timestamp'], answer.merchantid, answer.orderid, answer.result, answer.message, answer.pasref, answer.authcode], sharedSecret);
  if (!hashMatches(given, expected)) throw new GatewayFaultError('Global Payments returned a response whose signature does not verify.', 'sha1hash mismatch');
}

/**
 * Sends one `<request type=… timestamp=…>` with `fields` in the order given (the caller adds
 * `sha1hash` last) and returns the verified `<response>`. A 5xx, a body that is not XML, an answer
 * without `<response>`, without `result`, or whose signature fails is a fault.
 */
export async function realexPost(call: GatewayCall, type: string, timestamp: string, fields: Record<string, XmlValue>): Promise<RealexAnswer> {
  const document = xmlDocument('request', { '@_type': type, '@_timestamp': timestamp, ...fields });
  const response = await call.http.postXml(REALEX_PATH, document);
  faultOnServerError('Global Payments', response);
  const parsed = parseXmlAnswer('Global Payments', response);
  const answer = readAnswer('Global Payments', responseSchema, parsed.response);
  verifyAnswer(answer, requireCredential(call.request, 'password'));
  return answer;
}

/** merchantid and (when set) account, the first elements of every request. */
export function merchantFields(request: GatewayRequest): Record<string, XmlValue> {
  return { merchantid: requireCredential(request, 'login'), account: optionalCredential(request, 'account') };
}
