import {
  cryptogramFor,
  networkTokenOf,
  walletOf,
  type WalletPaymentMethod,
  decimalAmount,
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  parseXmlAnswer,
  requireCredential,
  type AdapterPaymentMethod,
  type GatewayCall,
  type GatewayRequest,
  type XmlValue,
} from '../kit/index.js';
import { SOAP_ACTION, soapEnvelope } from './soap-envelope.js';

/**
 * Building and sending Simple Order API requests (CyberSource SOAP Toolkit). Element names and
 * their order follow CyberSourceTransaction_1.201.xsd; facts from CyberSource's "Credit Card
 * Services Using the SOAP Toolkit API" and "Token Management (Payment Tokenization) Using the Simple
 * Order API" guides and ActiveMerchant's CyberSource adapter.
 */

export const CYBERSOURCE_TEST_BASE = 'https://ics2wstesta.ic3.com';
export const CYBERSOURCE_LIVE_BASE = 'https://ics2wsa.ic3.com';
export const CYBERSOURCE_PATH = '/commerce/1.x/transactionProcessor';

export function cyberSourceEndpoint(request: GatewayRequest): string {
  return request.testMode ? CYBERSOURCE_TEST_BASE : CYBERSOURCE_LIVE_BASE;
}

/** Verify and store run in the request's currency, or US dollars when it has none. */
export const DEFAULT_CURRENCY = 'USD';

/** The three-digit `card/cardType` codes of the SOAP guide ("Card types"), by Coffer's card type. */
const CARD_TYPES: Readonly<Record<string, string>> = {
  visa: '001',
  master: '002',
  american_express: '003',
  discover: '004',
  diners_club: '005',
  jcb: '007',
  dankort: '034',
  maestro: '042',
  elo: '054',
};

type Card = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;

function text(value: string | null | undefined, length: number): string | undefined {
  if (value === null || value === undefined || value.trim() === '') return undefined;
  return value.trim().slice(0, length);
}

/** ISO 3166 alpha-2, the only form CyberSource takes; anything else is left out rather than cut. */
function countryCode(value: string | null | undefined): string | undefined {
  const code = value?.trim() ?? '';
  return /^[A-Za-z]{2}$/.test(code) ? code.toUpperCase() : undefined;
}

/**
 * `merchantReferenceCode`: the order id, else Coffer's transaction token. CyberSource refuses a
 * second authorization with the same code and amount within 15 minutes (reason 104), which is its
 * only duplicate protection on this API.
 */
export function merchantReference(request: GatewayRequest): string {
  return text(request.orderId, 50) ?? request.transactionToken;
}

/** `purchaseTotals`: the currency and `grandTotalAmount` in major units with the currency's decimals. */
export function purchaseTotals(amount: number, currency: string): Record<string, XmlValue> {
  return { currency, grandTotalAmount: decimalAmount(amount, currency) };
}

export function requestAmount(request: GatewayRequest): { amount: number; currency: string } {
  if (request.amount === null || request.currencyCode === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  return { amount: request.amount, currency: request.currencyCode };
}

/**
 * `billTo`: what the card holds, nothing invented. CyberSource asks for name, street, city,
 * country and email on an authorization (state and postal code in the US and Canada) unless the
 * account has relaxed address requirements; a missing one comes back as reason 101 naming it.
 */
export function billTo(request: GatewayRequest, card: Card): Record<string, XmlValue> {
  const { address } = card;
  return {
    firstName: text(card.firstName, 60),
    lastName: text(card.lastName, 60),
    street1: text(address.address1, 60),
    street2: text(address.address2, 60),
    city: text(address.city, 50),
    state: text(address.state, 20),
    postalCode: text(address.zip, 10),
    country: countryCode(address.country),
    phoneNumber: text(address.phone_number, 15),
    email: text(card.email ?? request.email, 255),
    ipAddress: text(request.ip, 48),
  };
}

/** `shipTo`, only when the transaction carries a shipping address. */
export function shipTo(request: GatewayRequest): Record<string, XmlValue> | undefined {
  const ship = request.shippingAddress;
  if (ship === null || (ship.address1 === null && ship.city === null && ship.country === null)) return undefined;
  const [firstName, ...rest] = (ship.name ?? '').trim().split(/\s+/);
  return {
    firstName: text(firstName, 60),
    lastName: text(rest.join(' '), 60),
    street1: text(ship.address1, 60),
    street2: text(ship.address2, 60),
    city: text(ship.city, 50),
    state: text(ship.state, 20),
    postalCode: text(ship.zip, 10),
    country: countryCode(ship.country),
    phoneNumber: text(ship.phone_number, 15),
  };
}

/** `card`: number, two-digit month, four-digit year, CVN when there is one, the card type code. */
export function cardElement(card: Card): Record<string, XmlValue> {
  if (card.month === null || card.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const cvn = card.verificationValue?.reveal();
  return {
    accountNumber: card.number.reveal(),
    expirationMonth: String(card.month).padStart(2, '0'),
    expirationYear: String(card.year).padStart(4, '20'),
    cvNumber: cvn === undefined || cvn === '' ? undefined : cvn,
    cardType: card.cardType === null ? undefined : CARD_TYPES[card.cardType],
  };
}

/** CyberSource's `paymentSolution` codes of the wallets (SOAP guide, "Payment Network Tokenization"). */
const PAYMENT_SOLUTION = { apple_pay: '001', google_pay: '012' } as const;

/** The commerce indicator of an authenticated wallet payment, by card brand (ActiveMerchant's cyber_source ECI_BRAND_MAPPING). */
const WALLET_COMMERCE_INDICATOR: Record<string, string> = { visa: 'vbv', master: 'spa', maestro: 'spa', american_express: 'aesk', jcb: 'js', discover: 'dipb', diners_club: 'pb' };

/** A wallet token as the card it stands for (no CVN: a wallet has none). */
function walletCard(wallet: WalletPaymentMethod): Card {
  return { ...wallet, type: 'credit_card', verificationValue: null, address: {} };
}

/**
 * What a decrypted wallet token adds to an authorization (docs/wallets.md; CyberSource SOAP guide,
 * "Apple Pay / Google Pay using the decrypted payment data"; ActiveMerchant's cyber_source as a
 * cross-check): the cryptogram as `ccAuthService/cavv` (Mastercard: `ucaf/authenticationData` with
 * collection indicator 2), split into cavv and xid for American Express, with the brand's
 * authenticated commerce indicator; `paymentNetworkToken/transactionType` 1 and the wallet's
 * `paymentSolution`. A merchant-initiated charge sends no cryptogram and the commerce indicator of
 * its stored credentials. A Google Pay PAN_ONLY card is a plain card and adds nothing.
 */
export function walletAuthFields(request: GatewayRequest): { ucaf?: Record<string, XmlValue>; auth: Record<string, XmlValue>; trailing: Record<string, XmlValue> } {
  const wallet = networkTokenOf(request.paymentMethod);
  if (wallet === null) return { auth: {}, trailing: {} };
  const trailing = { paymentNetworkToken: { transactionType: '1' }, paymentSolution: PAYMENT_SOLUTION[wallet.type] };
  const cryptogram = cryptogramFor(request, wallet);
  const brand = wallet.cardType ?? '';
  if (cryptogram === null) return { ...(brand === 'master' ? { ucaf: { collectionIndicator: '2' } } : {}), auth: {}, trailing };
  const commerceIndicator = WALLET_COMMERCE_INDICATOR[brand] ?? 'internet';
  if (brand === 'master') return { ucaf: { authenticationData: cryptogram, collectionIndicator: '2' }, auth: { commerceIndicator }, trailing };
  if (brand === 'american_express') {
    const bytes = Buffer.from(cryptogram, 'base64');
    return { auth: { cavv: bytes.subarray(0, 20).toString('base64'), commerceIndicator, xid: bytes.length > 20 ? bytes.subarray(20, 40).toString('base64') : undefined }, trailing };
  }
  return { auth: { cavv: cryptogram, commerceIndicator, xid: cryptogram }, trailing };
}

/** The card, or a stored profile (`recurringSubscriptionInfo/subscriptionID`, from store). */
export function paymentElements(request: GatewayRequest, amount: number, currency: string): Record<string, XmlValue> {
  const method = request.paymentMethod;
  const wallet = walletOf(method);
  if (wallet !== null) {
    const card = walletCard(wallet);
    return { billTo: billTo(request, card), shipTo: shipTo(request), purchaseTotals: purchaseTotals(amount, currency), card: cardElement(card), ucaf: walletAuthFields(request).ucaf };
  }
  if (method?.type === 'credit_card') {
    return { billTo: billTo(request, method), shipTo: shipTo(request), purchaseTotals: purchaseTotals(amount, currency), card: cardElement(method) };
  }
  if (method?.type === 'third_party_token') {
    return { shipTo: shipTo(request), purchaseTotals: purchaseTotals(amount, currency), recurringSubscriptionInfo: { subscriptionID: method.token } };
  }
  throw new GatewayInputError('CyberSource takes credit cards and cards it stored (third_party_token).', 'unsupported_feature');
}

/** Coffer keeps `requestID;requestToken` as the gateway transaction id: follow-on requests send both. */
export function referenceIds(request: GatewayRequest): { requestId: string; requestToken: string | undefined } {
  const id = request.reference?.gatewayTransactionId;
  if (id === null || id === undefined || id === '') throw new GatewayFaultError('No CyberSource requestID to refer to.', 'reference without gateway_transaction_id');
  const [requestId = '', requestToken] = id.split(';');
  return { requestId, requestToken: requestToken === '' ? undefined : requestToken };
}

/**
 * Stored credentials (SOAP guide, "Merchant-Initiated Transactions and Credentials-on-File"): the
 * cardholder-initiated transaction that stores the card says `subsequentAuthFirst`; a
 * merchant-initiated one says `subsequentAuth` and names the network transaction id of the first,
 * with `subsequentAuthStoredCredential` when it is unscheduled. The commerce indicator names the
 * reason (`recurring`, `install`, else `internet`), inside `ccAuthService`.
 */
export function storedCredentialFields(request: GatewayRequest): { commerceIndicator: string | undefined; trailing: Record<string, XmlValue> } {
  const stored = request.storedCredential;
  if (stored === null || stored === undefined) return { commerceIndicator: undefined, trailing: {} };
  const commerceIndicator = stored.reasonType === 'recurring' ? 'recurring' : stored.reasonType === 'installment' ? 'install' : 'internet';
  if (stored.initiator === 'cardholder') return { commerceIndicator, trailing: { subsequentAuthFirst: 'true' } };
  return {
    commerceIndicator,
    trailing: {
      subsequentAuth: 'true',
      subsequentAuthTransactionID: stored.networkTransactionId ?? undefined,
      subsequentAuthStoredCredential: stored.reasonType === 'unscheduled' ? 'true' : undefined,
    },
  };
}

/** A parsed `replyMessage` (namespace prefixes dropped, values as strings) or the SOAP fault. */
export type SoapAnswer = { kind: 'reply'; reply: Record<string, unknown> } | { kind: 'fault'; code: string; message: string };

function asObject(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/**
 * Sends one request: the envelope to the transaction processor with the SOAP action header. The
 * answer is a `replyMessage`, or a SOAP fault (which CyberSource sends with HTTP 500, e.g.
 * `wsse:FailedCheck` for a wrong transaction key); a 5xx without a fault, or anything that is
 * not SOAP, is a fault of the gateway.
 */
export async function cyberSourcePost(call: GatewayCall, message: { [name: string]: XmlValue }): Promise<SoapAnswer> {
  const { request } = call;
  const envelope = soapEnvelope(requireCredential(request, 'user_name'), requireCredential(request, 'transaction_key'), {
    merchantReferenceCode: merchantReference(request),
    ...message,
  });
  const response = await call.http.send({
    method: 'POST',
    path: CYBERSOURCE_PATH,
    headers: { 'content-type': 'text/xml; charset=utf-8', accept: 'text/xml', soapaction: SOAP_ACTION },
    body: envelope,
  });
  let body: Record<string, unknown> | undefined;
  try {
    body = asObject(asObject(parseXmlAnswer('CyberSource', response).Envelope)?.Body);
  } catch (error) {
    faultOnServerError('CyberSource', response);
    throw error;
  }
  const fault = asObject(body?.Fault);
  if (fault !== undefined) return { kind: 'fault', code: String(fault.faultcode ?? ''), message: String(fault.faultstring ?? 'SOAP fault') };
  faultOnServerError('CyberSource', response);
  const reply = asObject(body?.replyMessage);
  if (reply === undefined) throw new GatewayFaultError('CyberSource returned an unexpected response.', `HTTP ${response.status}, no replyMessage`);
  return { kind: 'reply', reply };
}
