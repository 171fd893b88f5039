import { defineGateway, GatewayInputError, GatewayResultUnknownError, type AdapterPaymentMethod, type GatewayCall, type GatewayRequest, type GatewayResponse, type XmlValue } from './kit/index.js';
import { litleAmount, litleDocument, litleEndpoint, litleOrderId, litlePost, scrubLitle, transactionAttributes } from './litle/litle-api.js';
import { litleResponse, litleToken, splitLitleId } from './litle/litle-mapping.js';

type Card = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;

/** Coffer's card types → cnpAPI's method-of-payment codes. */
const CARD_TYPES: Readonly<Record<string, string>> = { visa: 'VI', master: 'MC', american_express: 'AX', discover: 'DI', jcb: 'JC', diners_club: 'DC' };

const cut = (value: string | null | undefined, length: number) => (value === null || value === undefined || value === '' ? undefined : value.slice(0, length));

function expDate(card: Card): string {
  if (card.month === null || card.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  return `${String(card.month).padStart(2, '0')}${String(card.year % 100).padStart(2, '0')}`;
}

/** `billToAddress` in the schema's order: name, address lines (35), city (35), state, zip, country, email. */
function billTo(card: Card, request: GatewayRequest): Record<string, XmlValue> {
  const { address } = card;
  return {
    name: cut([card.firstName, card.lastName].filter((part) => part).join(' '), 100),
    addressLine1: cut(address.address1, 35),
    addressLine2: cut(address.address2, 35),
    city: cut(address.city, 35),
    state: cut(address.state, 30),
    zip: cut(address.zip, 20),
    country: cut(address.country, 3),
    email: cut(request.email ?? card.email, 100),
  };
}

function shipTo(request: GatewayRequest): Record<string, XmlValue> | undefined {
  const ship = request.shippingAddress;
  if (ship === null || !Object.values(ship).some((value) => value !== null && value !== '')) return undefined;
  return { name: cut(ship.name, 100), addressLine1: cut(ship.address1, 35), addressLine2: cut(ship.address2, 35), city: cut(ship.city, 35), state: cut(ship.state, 30), zip: cut(ship.zip, 20), country: cut(ship.country, 3), phone: cut(ship.phone_number, 20) };
}

/** `card` (type, number, expDate, cardValidationNum) or `token` (litleToken and the expiry kept with it). */
function paymentElements(request: GatewayRequest): Record<string, XmlValue> {
  const method = request.paymentMethod;
  if (method?.type === 'credit_card') {
    const type = CARD_TYPES[method.cardType ?? ''];
    if (type === undefined) throw new GatewayInputError(`Worldpay eCommerce does not take ${method.cardType ?? 'this'} cards.`, 'unsupported_feature');
    return {
      billToAddress: billTo(method, request),
      shipToAddress: shipTo(request),
      card: { type, number: method.number.reveal(), expDate: expDate(method), cardValidationNum: method.verificationValue?.reveal() },
    };
  }
  if (method?.type === 'third_party_token') {
    const match = /^T?(\d{12,25})(?:;(\d{4}))?$/.exec(method.token);
    if (match === null) throw new GatewayInputError('The third_party_token is not a Worldpay eCommerce token (T<litleToken>;MMYY).', 'invalid_number');
    return { shipToAddress: shipTo(request), token: { litleToken: match[1], expDate: match[2] } };
  }
  throw new GatewayInputError('Worldpay eCommerce takes credit cards and its tokens (third_party_token).', 'unsupported_feature');
}

/** `sale` or `authorization`: orderId, amount, orderSource ecommerce, addresses, card or token. */
async function payment(call: GatewayCall, kind: 'sale' | 'authorization', amount: number | null, message: string): Promise<GatewayResponse> {
  const { request } = call;
  const document = litleDocument(request, kind, {
    ...transactionAttributes(request),
    orderId: litleOrderId(request),
    amount: litleAmount(amount, request.currencyCode ?? 'USD'),
    orderSource: 'ecommerce',
    ...paymentElements(request),
  });
  return litleResponse(await litlePost(call, document), `${kind}Response`, message);
}

function referenceId(request: GatewayRequest): { litleTxnId: string; kind: string | null } {
  const split = splitLitleId(request.reference?.gatewayTransactionId);
  if (split === null) throw new GatewayInputError('No litleTxnId to refer to.', 'processing_error');
  return split;
}

/** `capture` of an authorization, for its amount or less (without `partial`, the rest is released). */
async function capture(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const { litleTxnId } = referenceId(request);
  const document = litleDocument(request, 'capture', { ...transactionAttributes(request), litleTxnId, amount: litleAmount(request.amount, request.currencyCode ?? 'USD') });
  return litleResponse(await litlePost(call, document), 'captureResponse', 'Capture approved');
}

/** `credit` by litleTxnId of a sale or capture; partial and repeatable. */
async function credit(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const { litleTxnId } = referenceId(request);
  const document = litleDocument(request, 'credit', { ...transactionAttributes(request), litleTxnId, amount: litleAmount(request.amount, request.currencyCode ?? 'USD') });
  return litleResponse(await litlePost(call, document), 'creditResponse', 'Refund approved');
}

/** `authReversal` (whole amount) of an authorization; `void` of a sale, capture or credit in the open batch. */
async function voidTransaction(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const { litleTxnId, kind } = referenceId(request);
  const authorization = kind === null ? request.reference?.transactionType === 'Authorization' : kind === 'A';
  const element = authorization ? 'authReversal' : 'void';
  const document = litleDocument(request, element, { ...transactionAttributes(request), litleTxnId });
  return litleResponse(await litlePost(call, document), `${element}Response`, 'Transaction voided');
}

/** A zero-amount authorization (an account verification; it holds nothing, so nothing is reversed). */
async function verify(call: GatewayCall): Promise<GatewayResponse> {
  return payment({ ...call, request: { ...call.request, currencyCode: call.request.currencyCode ?? 'USD' } }, 'authorization', 0, 'Card verified');
}

/**
 * `registerTokenRequest`: the third-party token is `T<litleToken>;MMYY`. The expiry is kept because
 * a token authorization needs `expDate` and the answer does not give it; the `T` is glued to the
 * digits because a token that passed the Luhn check would otherwise be masked as a card number by
 * Coffer's response scrubbing.
 */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('Worldpay eCommerce stores credit cards only.', 'unsupported_feature');
  const exp = expDate(method);
  const document = litleDocument(request, 'registerTokenRequest', {
    ...transactionAttributes(request),
    orderId: litleOrderId(request),
    accountNumber: method.number.reveal(),
    cardValidationNum: method.verificationValue?.reveal(),
  });
  const answer = await litlePost(call, document);
  const response = litleResponse(answer, 'registerTokenResponse', 'Card stored');
  if (!response.success) return response;
  const token = litleToken(answer);
  if (token === undefined) throw new GatewayResultUnknownError('Worldpay eCommerce registered the card but returned no litleToken.', 'registerTokenResponse/litleToken: missing');
  return { ...response, thirdPartyToken: `T${token};${exp}` };
}

/**
 * Worldpay eCommerce (Vantiv, formerly Litle) through the cnpAPI online XML interface, version
 * 9.14. Not implemented: eChecks, 3-D Secure and network tokens, level 2/3 data, custom billing
 * descriptors, stored-credential (MIT) fields, partial captures that keep the rest open, general
 * credit. See docs/gateways/litle.md.
 */
export const litleGateway = defineGateway({
  gatewayType: 'litle',
  name: 'Vantiv eCommerce (formerly Litle)',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'User, password and merchant id',
      credentials: [
        { name: 'user', label: 'User', safe: true },
        { name: 'password', label: 'Password', safe: false },
        { name: 'merchant_id', label: 'Merchant ID', safe: true },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token'],
  gatewaySpecificFields: ['report_group'],
  supportedCountries: ['US'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover', 'diners_club', 'jcb'],
  regions: ['north_america'],
  homepage: 'https://www.fisglobal.com/',
  displayApiUrl: 'https://payments.vantivcnp.com/vap/communicator/online',
  companyName: 'Worldpay eCommerce (Vantiv)',
  // A capture without partial="true" closes the authorization: a second one is refused.
  capturesAreFinal: true,
  endpoint: litleEndpoint,
  scrub: scrubLitle,
  operations: {
    purchase: (call) => payment(call, 'sale', call.request.amount, 'Transaction approved'),
    authorize: (call) => payment(call, 'authorization', call.request.amount, 'Transaction authorized'),
    capture,
    credit,
    void: voidTransaction,
    verify,
    store,
  },
});
