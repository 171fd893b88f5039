import {
  decimalAmount,
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  parseJsonAnswer,
  requireCredential,
  scrubHeaders,
  scrubJsonKeys,
  scrubWith,
  type AdapterPaymentMethod,
  type GatewayCall,
  type GatewayRequest,
} from '../kit/index.js';
import { signedHeaders } from './http-signature.js';

export const TEST_BASE = 'https://apitest.cybersource.com';
export const LIVE_BASE = 'https://api.cybersource.com';

/** One CyberSource answer: HTTP status and its JSON object. */
export interface CyberSourceReply {
  status: number;
  json: Record<string, unknown>;
}

/**
 * CyberSource-specific scrubbing on top of the shared rules: the card's `securityCode` and
 * `number` at any depth, and the signature and digest headers (the digest is a hash of a body
 * holding the card number; the signature names the key id).
 */
export const scrubCyberSource = scrubWith(scrubJsonKeys('number', 'securityCode'), scrubHeaders('signature', 'digest'));

/**
 * One signed POST to a documented path (`/pts/v2/payments`). The signature covers the Host the
 * request is sent to (the documented host, or an override's), so it verifies wherever it goes.
 * 5xx and answers that are not JSON objects are faults (a 401/403 without a JSON body is still a
 * 401); every other status is handed back to map.
 */
export async function cyberSourcePost(call: GatewayCall, path: string, body: Record<string, unknown>): Promise<CyberSourceReply> {
  const { request } = call;
  const merchantId = requireCredential(request, 'merchant_id');
  const keyId = requireCredential(request, 'public_key');
  const sharedSecret = requireCredential(request, 'private_key');
  const text = JSON.stringify(body);
  const headers = signedHeaders({ method: 'POST', path, host: new URL(call.http.url(path)).host, date: new Date().toUTCString(), merchantId, keyId, sharedSecret, body: text });
  const response = await call.http.send({
    method: 'POST',
    path,
    headers: { ...headers, 'content-type': 'application/json;charset=utf-8', accept: 'application/hal+json;charset=utf-8' },
    body: text,
  });
  faultOnServerError('CyberSource', response);
  // A refused signature is a credentials problem whatever its body holds (JSON or nothing).
  if ((response.status === 401 || response.status === 403) && !response.body.trimStart().startsWith('{')) return { status: response.status, json: {} };
  return { status: response.status, json: parseJsonAnswer('CyberSource', response) };
}

/** CyberSource's card type codes (`paymentInformation.card.type`) by Coffer's card brand. */
const CARD_TYPE_CODES: Readonly<Record<string, string>> = {
  visa: '001',
  master: '002',
  american_express: '003',
  discover: '004',
  diners_club: '005',
  jcb: '007',
  dankort: '034',
  cartes_bancaires: '036',
  maestro: '042',
  elo: '054',
  unionpay: '062',
};

/** The id of the transaction a capture, void or credit refers to, safe in a path. */
export function referenceId(request: GatewayRequest): string {
  const id = request.reference?.gatewayTransactionId;
  if (id === null || id === undefined) throw new GatewayFaultError('No CyberSource id to refer to.', 'reference without gateway_transaction_id');
  return encodeURIComponent(id);
}

/** `clientReferenceInformation`: the order id where the merchant gave one (required for authorizations), else Coffer's token. */
export function clientReference(request: GatewayRequest): Record<string, string> {
  return { code: request.orderId ?? request.transactionToken, transactionId: request.transactionToken };
}

/** `{ totalAmount: "10.00", currency: "USD" }` in the currency's ISO exponent. */
export function amountDetails(amount: number, currency: string): { totalAmount: string; currency: string } {
  return { totalAmount: decimalAmount(amount, currency), currency };
}

/** `paymentInformation` for a card (sent in full) or a card stored at CyberSource's TMS (`customer|paymentInstrument`). */
export function paymentInformation(method: AdapterPaymentMethod | null): Record<string, unknown> {
  if (method?.type === 'credit_card') {
    return {
      card: {
        number: method.number.reveal(),
        expirationMonth: method.month === null ? undefined : String(method.month).padStart(2, '0'),
        expirationYear: method.year === null ? undefined : String(method.year),
        securityCode: method.verificationValue?.reveal(),
        type: method.cardType === null ? undefined : CARD_TYPE_CODES[method.cardType],
      },
    };
  }
  if (method?.type === 'third_party_token') {
    const [customer, instrument] = method.token.split('|');
    if (customer === undefined || customer === '' || instrument === undefined || instrument === '') {
      throw new GatewayInputError('A CyberSource third_party_token is "<customer id>|<payment instrument id>".', 'invalid_number');
    }
    return { customer: { id: customer }, paymentInstrument: { id: instrument } };
  }
  throw new GatewayInputError('CyberSource REST takes credit cards and its own stored cards only.', 'unsupported_feature');
}

/**
 * `orderInformation.billTo` from the card. CyberSource requires names, address, city, state,
 * postal code, country and email for most processors: whatever the card holds is sent; the email
 * falls back to the transaction's, then to CyberSource's documented placeholder
 * `null@cybersource.com`; missing address parts are left out (CyberSource then answers
 * MISSING_FIELD naming them, when the processor needs them).
 */
export function billTo(request: GatewayRequest): Record<string, unknown> | undefined {
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') return undefined;
  const address = method.address;
  return {
    firstName: method.firstName ?? undefined,
    lastName: method.lastName ?? undefined,
    address1: address.address1 ?? undefined,
    address2: address.address2 ?? undefined,
    locality: address.city ?? undefined,
    administrativeArea: address.state ?? undefined,
    postalCode: address.zip ?? undefined,
    country: address.country ?? undefined,
    email: request.email ?? method.email ?? 'null@cybersource.com',
    phoneNumber: address.phone_number ?? undefined,
  };
}

/** `orderInformation.shipTo` from the transaction's shipping address, when it has one. */
export function shipTo(request: GatewayRequest): Record<string, unknown> | undefined {
  const address = request.shippingAddress;
  if (address === null || (address.name === null && address.address1 === null)) return undefined;
  const [firstName, ...rest] = (address.name ?? '').trim().split(/\s+/);
  return {
    firstName: firstName === '' ? undefined : firstName,
    lastName: rest.length === 0 ? undefined : rest.join(' '),
    address1: address.address1 ?? undefined,
    address2: address.address2 ?? undefined,
    locality: address.city ?? undefined,
    administrativeArea: address.state ?? undefined,
    postalCode: address.zip ?? undefined,
    country: address.country ?? undefined,
    phoneNumber: address.phone_number ?? undefined,
  };
}
