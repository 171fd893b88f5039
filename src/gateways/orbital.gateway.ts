import { defineGateway, GatewayInputError, GatewayResultUnknownError, gatewayExponent, type AdapterPaymentMethod, type GatewayCall, type GatewayRequest, type GatewayResponse, type XmlValue } from './kit/index.js';
import { type OrbitalAnswer, connectionCredentials, merchantBlock, orbitalDocument, orbitalEndpoint, orbitalMoney, orbitalOrderId, orbitalPost, scrubOrbital } from './orbital/orbital-api.js';
import { CARD_SEC_VAL_IND_BRANDS } from './orbital/orbital-codes.js';
import { orbitalResponse, safetechToken, splitTransactionId } from './orbital/orbital-mapping.js';

type Card = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;

/** Countries Orbital verifies addresses for (the specification's AVS countries; UK as GB). */
const AVS_COUNTRIES = new Set(['US', 'CA', 'GB', 'UK']);

/** At most `bytes` UTF-8 bytes of `value` (Orbital limits fields by bytes), without `% | ^ \ /` which address fields refuse. */
function limited(value: string | null | undefined, bytes: number, address = true): string | undefined {
  if (value === null || value === undefined || value === '') return undefined;
  let out = '';
  for (const char of address ? value.replace(/[%|^\\/]/g, '') : value) {
    if (Buffer.byteLength(out + char) > bytes) break;
    out += char;
  }
  return out === '' ? undefined : out;
}

/** `AccountNum`, `Exp` (MMYY), currency, and the CVV with its indicator. */
function cardFields(card: Card, money: ReturnType<typeof orbitalMoney>): Record<string, XmlValue> {
  if (card.month === null || card.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const cvv = card.verificationValue?.reveal();
  return {
    AccountNum: card.number.reveal(),
    Exp: `${String(card.month).padStart(2, '0')}${String(card.year % 100).padStart(2, '0')}`,
    CurrencyCode: money.CurrencyCode,
    CurrencyExponent: money.CurrencyExponent,
    CardSecValInd: cvv !== undefined && CARD_SEC_VAL_IND_BRANDS.has(card.cardType ?? '') ? '1' : undefined,
    CardSecVal: cvv,
  };
}

/**
 * The AVS block of the card's billing address: street, city, state and phone only for countries
 * Orbital verifies (or none given), the name always, the country code blank outside them.
 */
function avsFields(card: Card): Record<string, XmlValue> {
  const { address } = card;
  const name = limited([card.firstName, card.lastName].filter((part) => part).join(' '), 30, false);
  const hasAddress = Object.values(address).some((value) => value !== null && value !== '');
  if (!hasAddress) return { AVSname: name };
  const country = (address.country ?? '').toUpperCase();
  const verified = country === '' || AVS_COUNTRIES.has(country);
  return {
    ...(verified
      ? {
          AVSzip: limited(address.zip, 10),
          AVSaddress1: limited(address.address1, 30),
          AVSaddress2: limited(address.address2, 30),
          AVScity: limited(address.city, 20),
          AVSstate: limited(address.state, 2),
        }
      : {}),
    AVSname: name,
    AVScountryCode: verified ? country : '',
  };
}

/**
 * A card Orbital stored: the CardBrand glued to the Safetech token (`VI4556761607723886`), as
 * `store` returns it. The brand is glued on purpose: a 16-digit token that happened to pass the
 * Luhn check would otherwise be masked as a card number by Coffer's response scrubbing, and a
 * digit run touching a letter never is.
 */
function storedCard(token: string): { token: string; cardBrand: string } {
  const match = /^([A-Z]{2})([0-9A-Za-z]{6,32})$/.exec(token);
  if (match === null) throw new GatewayInputError('The third_party_token is not an Orbital Safetech token (CardBrand then token).', 'invalid_number');
  return { cardBrand: match[1] as string, token: match[2] as string };
}

/**
 * A `NewOrder` authorization (MessageType A), authorization and capture (AC), or the zero-amount
 * authorization `store` asks a Safetech token of (TokenTxnType GT).
 */
async function newOrder(call: GatewayCall, messageType: 'A' | 'AC', amount: number | null, message: string, tokenTxnType?: 'GT'): Promise<GatewayResponse> {
  const { answer, orderId } = await sendNewOrder(call, messageType, amount, tokenTxnType);
  return orbitalResponse(answer, 'authorization', message, orderId);
}

async function sendNewOrder(call: GatewayCall, messageType: 'A' | 'AC', amount: number | null, tokenTxnType?: 'GT'): Promise<{ answer: OrbitalAnswer; orderId: string }> {
  const { request } = call;
  const method = request.paymentMethod;
  const money = orbitalMoney(amount, request.currencyCode ?? 'USD');
  let source: Record<string, XmlValue>;
  if (method?.type === 'credit_card') {
    source = { ...cardFields(method, money), ...avsFields(method) };
  } else if (method?.type === 'third_party_token' && tokenTxnType === undefined) {
    const stored = storedCard(method.token);
    source = { CardBrand: stored.cardBrand, AccountNum: stored.token, CurrencyCode: money.CurrencyCode, CurrencyExponent: money.CurrencyExponent };
  } else {
    throw new GatewayInputError('Orbital takes credit cards and its Safetech tokens (third_party_token).', 'unsupported_feature');
  }
  const orderId = orbitalOrderId(request);
  const document = orbitalDocument('NewOrder', {
    ...connectionCredentials(request),
    IndustryType: 'EC',
    MessageType: messageType,
    ...merchantBlock(request),
    ...source,
    OrderID: orderId,
    Amount: money.amount,
    Comments: limited(request.description, 64, false),
    TokenTxnType: tokenTxnType,
  });
  return { answer: await orbitalPost(call, document), orderId };
}

/** The TxRefNum and OrderID of the reference transaction. */
function reference(request: GatewayRequest): { txRefNum: string; orderId: string } {
  const split = splitTransactionId(request.reference?.gatewayTransactionId ?? '');
  if (split === null) throw new GatewayInputError('No Orbital TxRefNum and OrderID to refer to.', 'processing_error');
  return split;
}

/** `MarkForCapture` of the authorization, for its whole amount or part of it. */
async function capture(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const { txRefNum, orderId } = reference(request);
  const money = orbitalMoney(request.amount, request.currencyCode ?? 'USD');
  const document = orbitalDocument('MarkForCapture', { ...connectionCredentials(request), OrderID: orderId, Amount: money.amount, ...merchantBlock(request), TxRefNum: txRefNum });
  return orbitalResponse(await orbitalPost(call, document), 'capture', 'Capture approved', orderId);
}

/** A `NewOrder` refund (MessageType R) of a captured or purchased transaction by TxRefNum; any amount up to what was settled, repeatable. */
async function credit(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const { txRefNum, orderId } = reference(request);
  const money = orbitalMoney(request.amount, request.currencyCode ?? 'USD');
  const document = orbitalDocument('NewOrder', {
    ...connectionCredentials(request),
    IndustryType: 'EC',
    MessageType: 'R',
    ...merchantBlock(request),
    CurrencyCode: money.CurrencyCode,
    CurrencyExponent: money.CurrencyExponent,
    OrderID: orderId,
    Amount: money.amount,
    TxRefNum: txRefNum,
  });
  return orbitalResponse(await orbitalPost(call, document), 'refund', 'Refund approved', orderId);
}

/** `Reversal` of the whole transaction (no AdjustedAmt): an authorization, or a purchase, capture or refund still in the open batch. */
async function reverse(call: GatewayCall, txRefNum: string, orderId: string, traceSuffix = ''): Promise<GatewayResponse> {
  const { request } = call;
  const document = orbitalDocument('Reversal', { ...connectionCredentials(request), TxRefNum: txRefNum, OrderID: orderId, ...merchantBlock(request) });
  return orbitalResponse(await orbitalPost(call, document, traceSuffix), 'reversal', 'Transaction voided', orderId);
}

async function voidTransaction(call: GatewayCall): Promise<GatewayResponse> {
  const { txRefNum, orderId } = reference(call.request);
  return reverse(call, txRefNum, orderId);
}

/**
 * A zero-amount authorization; Discover takes none (ActiveMerchant's knowledge), so a Discover card
 * is authorized for 1.00 and that authorization reversed. The authorization's answer is the result.
 */
async function verify(call: GatewayCall): Promise<GatewayResponse> {
  const method = call.request.paymentMethod;
  const discover = method?.type === 'credit_card' && method.cardType === 'discover';
  const currency = call.request.currencyCode ?? 'USD';
  const authorized = await newOrder({ ...call, request: { ...call.request, currencyCode: currency } }, 'A', discover ? 10 ** gatewayExponent(currency) : 0, 'Card verified');
  if (!authorized.success || !discover) return authorized;
  const split = splitTransactionId(authorized.gatewayTransactionId ?? '');
  try {
    if (split !== null) await reverse(call, split.txRefNum, split.orderId, '-reversal');
  } catch {
    // The verification stands; an unreversed authorization of 1.00 lapses on its own.
    call.http.note('[!!] the verification authorization could not be reversed');
  }
  return authorized;
}

/** A zero-amount authorization with TokenTxnType GT: the answer's CardBrand and SafetechToken, glued, are the third-party token. */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  if (call.request.paymentMethod?.type !== 'credit_card') throw new GatewayInputError('Orbital stores credit cards only.', 'unsupported_feature');
  const { request } = call;
  const { answer, orderId } = await sendNewOrder({ ...call, request: { ...request, currencyCode: request.currencyCode ?? 'USD' } }, 'A', 0, 'GT');
  const response = orbitalResponse(answer, 'authorization', 'Card stored', orderId);
  if (!response.success) return response;
  const stored = safetechToken(answer);
  if (stored === null) throw new GatewayResultUnknownError('Orbital approved the card but returned no SafetechToken.', 'NewOrderResp/SafetechToken: missing');
  return { ...response, thirdPartyToken: `${stored.cardBrand}${stored.token}` };
}

/**
 * Chase Orbital (Paymentech) through its XML interface, version 9.5. Not implemented: 3-D
 * Secure, network tokens, eChecks, customer profiles, level 2/3 data, stored-credential (MIT)
 * fields, the secondary (failover) host. See docs/gateways/orbital.md.
 */
export const orbitalGateway = defineGateway({
  gatewayType: 'orbital',
  name: 'Orbital (Chase Paymentech)',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Connection username and password',
      credentials: [
        { name: 'login', label: 'Login', safe: true },
        { name: 'merchant_id', label: 'Merchant ID', safe: true },
        { name: 'password', label: 'Password', safe: false },
      ],
    },
    {
      authModeType: 'merchant_id_only',
      name: 'Merchant ID only (source IP authentication)',
      credentials: [
        { name: 'merchant_id', label: 'Merchant ID', safe: true },
        { name: 'mode', label: 'Mode (merchant_id_only)', safe: true, optional: true },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token'],
  gatewaySpecificFields: ['terminal_id', 'retry_logic', 'idempotency_key'],
  supportedCountries: ['US', 'CA'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover', 'diners_club', 'jcb'],
  regions: ['north_america'],
  homepage: 'https://www.chasepaymentech.com/',
  displayApiUrl: 'https://orbital1.chasepaymentech.com/authorize',
  companyName: 'Chase Paymentech',
  // One MarkForCapture per authorization: Coffer refuses a second capture of it.
  capturesAreFinal: true,
  endpoint: orbitalEndpoint,
  scrub: scrubOrbital,
  operations: { purchase: (call) => newOrder(call, 'AC', call.request.amount, 'Transaction approved'), authorize: (call) => newOrder(call, 'A', call.request.amount, 'Transaction authorized'), capture, credit, void: voidTransaction, verify, store },
});
