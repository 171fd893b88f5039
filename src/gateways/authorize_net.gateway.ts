import {
  cryptogramFor,
  walletOf,
  WALLET_KINDS,
  type WalletPaymentMethod,
  decimalAmount,
  defineGateway,
  GatewayInputError,
  requireCredential,
  scrubJsonKeys,
  scrubWith,
  type GatewayCall,
  type GatewayRequest,
  type GatewayResponse,
} from './kit/index.js';
import { anetResponse, readAnetAnswer, splitIdentity } from './authorize_net/anet-mapping.js';
import { anetProfileResponse, readAnetProfileAnswer } from './authorize_net/anet-profile.js';

/**
 * Authorize.Net through its JSON API: one URL, `createTransactionRequest` with a `transactionType`.
 * The JSON is backed by Authorize.Net's XML schema, so elements are sent in schema order (JSON
 * objects keep insertion order). See docs/gateways/authorize_net.md.
 */

export const ANET_TEST_BASE = 'https://apitest.authorize.net';
export const ANET_LIVE_BASE = 'https://api.authorize.net';
export const ANET_PATH = '/xml/v1/request.api';

type Json = Record<string, unknown>;
type TransactionType = 'authCaptureTransaction' | 'authOnlyTransaction' | 'priorAuthCaptureTransaction' | 'refundTransaction' | 'voidTransaction';

/** Schema limits: refId and invoiceNumber hold at most 20 characters, description 255. */
const clip = (text: string | null, length: number): string | undefined => (text === null || text === '' ? undefined : text.slice(0, length));

/** Drops undefined members so JSON.stringify sends only what is set, keeping the order written. */
function present(object: Json): Json | undefined {
  const kept = Object.fromEntries(Object.entries(object).filter(([, value]) => value !== undefined));
  return Object.keys(kept).length === 0 ? undefined : kept;
}

function amountOf(request: GatewayRequest): { amount: string; currencyCode: string } {
  if (request.amount === null || request.currencyCode === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  return { amount: decimalAmount(request.amount, request.currencyCode), currencyCode: request.currencyCode };
}

/**
 * A wallet token's payment.creditCard (docs/wallets.md): the DPAN with `isPaymentToken` and, on a
 * cardholder-initiated charge, its `cryptogram` (Authorize.Net's creditCardType, "Apple Pay / Google
 * Pay via the in-app token"; ActiveMerchant's authorize_net add_network_token). A Google Pay
 * PAN_ONLY card is a plain card.
 */
function walletCard(request: GatewayRequest, wallet: WalletPaymentMethod): Json {
  if (wallet.month === null || wallet.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const cryptogram = wallet.networkToken ? cryptogramFor(request, wallet) : null;
  return {
    creditCard: present({
      cardNumber: wallet.number.reveal(),
      expirationDate: `${wallet.year}-${String(wallet.month).padStart(2, '0')}`,
      isPaymentToken: wallet.networkToken ? true : undefined,
      cryptogram: cryptogram ?? undefined,
    }),
  };
}

/** payment.creditCard: cardNumber, expirationDate (YYYY-MM), cardCode. */
function creditCard(request: GatewayRequest): Json {
  const method = request.paymentMethod;
  const wallet = walletOf(method);
  if (wallet !== null) return walletCard(request, wallet);
  if (method?.type !== 'credit_card') throw new GatewayInputError('Authorize.Net takes credit cards and customer profiles (third_party_token).', 'unsupported_feature');
  if (method.month === null || method.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  return {
    creditCard: present({
      cardNumber: method.number.reveal(),
      expirationDate: `${method.year}-${String(method.month).padStart(2, '0')}`,
      cardCode: method.verificationValue?.reveal(),
    }),
  };
}

/**
 * `payment` with the card, or, for a stored card (third_party_token `customerProfileId|paymentProfileId`),
 * `profile` {customerProfileId, paymentProfile.paymentProfileId}: the schema's next member after payment.
 */
function paymentSource(request: GatewayRequest): Json {
  const method = request.paymentMethod;
  if (method?.type !== 'third_party_token') return { payment: creditCard(request) };
  const [customerProfileId, paymentProfileId] = method.token.split('|');
  if (!customerProfileId || !paymentProfileId) throw new GatewayInputError('An Authorize.Net third_party_token is customerProfileId|customerPaymentProfileId.', 'processing_error');
  return { profile: { customerProfileId, paymentProfile: { paymentProfileId } } };
}

/** Address lines joined into the schema's one `address` element. */
const addressLine = (...lines: Array<string | null | undefined>): string | null => lines.filter((line) => line !== null && line !== undefined && line !== '').join(' ') || null;

/**
 * An address (customerAddressType / nameAndAddressType) in schema order, each element cut to the
 * schema's length (names 50, address 60, city and state 40, zip 20, country 60, phone 25): a longer
 * value would make Authorize.Net refuse the whole request.
 */
function addressOf(fields: { firstName: string | null; lastName: string | null; address: string | null; city: string | null; state: string | null; zip: string | null; country: string | null; phoneNumber?: string | null }): Json | undefined {
  return present({
    firstName: clip(fields.firstName, 50),
    lastName: clip(fields.lastName, 50),
    address: clip(fields.address, 60),
    city: clip(fields.city, 40),
    state: clip(fields.state, 40),
    zip: clip(fields.zip, 20),
    country: clip(fields.country, 60),
    phoneNumber: clip(fields.phoneNumber ?? null, 25),
  });
}

/** billTo: the card's name and address. */
function billTo(request: GatewayRequest): Json | undefined {
  const method = request.paymentMethod?.type === 'credit_card' ? request.paymentMethod : null;
  const address = method?.address ?? {};
  const named = method ?? walletOf(request.paymentMethod);
  return addressOf({
    firstName: named?.firstName ?? null,
    lastName: named?.lastName ?? null,
    address: addressLine(address.address1, address.address2),
    city: address.city ?? null,
    state: address.state ?? null,
    zip: address.zip ?? null,
    country: address.country ?? null,
    phoneNumber: address.phone_number ?? null,
  });
}

/** order, customer, billTo, shipTo, customerIP: the members after payment, in schema order. */
function orderMembers(request: GatewayRequest): Json {
  const method = request.paymentMethod?.type === 'credit_card' ? request.paymentMethod : null;
  const ship = request.shippingAddress;
  const [shipFirst, ...shipLast] = (ship?.name ?? '').trim().split(/\s+/);
  return {
    order: present({ invoiceNumber: clip(request.orderId, 20), description: clip(request.description, 255) }),
    customer: present({ email: request.email ?? method?.email ?? undefined }),
    billTo: billTo(request),
    shipTo: addressOf({
      firstName: shipFirst || null,
      lastName: shipLast.join(' ') || null,
      address: addressLine(ship?.address1, ship?.address2),
      city: ship?.city ?? null,
      state: ship?.state ?? null,
      zip: ship?.zip ?? null,
      country: ship?.country ?? null,
    }),
    customerIP: request.ip ?? undefined,
  };
}

/** The reference's `transId` (and the card's last four, kept in Coffer's gateway_transaction_id). */
function referenceOf(request: GatewayRequest): { transId: string; lastFour: string } {
  const id = request.reference?.gatewayTransactionId;
  if (id === null || id === undefined || id === '') throw new GatewayInputError('No Authorize.Net transaction id to refer to.', 'processing_error');
  return splitIdentity(id);
}

function authentication(request: GatewayRequest): Json {
  return { name: requireCredential(request, 'login'), transactionKey: requireCredential(request, 'password') };
}

async function send(call: GatewayCall, transactionRequest: Json, action: string): Promise<GatewayResponse> {
  const { request } = call;
  const body = {
    createTransactionRequest: {
      merchantAuthentication: authentication(request),
      refId: request.transactionToken.slice(0, 20),
      transactionRequest: present(transactionRequest),
    },
  };
  const response = await call.http.postJson(ANET_PATH, body);
  return anetResponse(readAnetAnswer(response), action);
}

/** authCaptureTransaction / authOnlyTransaction with the card; verify is a $0 authOnlyTransaction. */
function payment(call: GatewayCall, transactionType: TransactionType, action: string): Promise<GatewayResponse> {
  const { request } = call;
  const currency = request.currencyCode ?? 'USD';
  const money = action === 'verify' ? { amount: decimalAmount(0, currency), currencyCode: request.currencyCode ?? undefined } : amountOf(request);
  return send(call, { transactionType, ...money, ...paymentSource(request), ...orderMembers(request) }, action);
}

/** priorAuthCaptureTransaction: amount (full or partial), then refTransId. */
function capture(call: GatewayCall): Promise<GatewayResponse> {
  const { amount } = amountOf(call.request);
  return send(call, { transactionType: 'priorAuthCaptureTransaction', amount, refTransId: referenceOf(call.request).transId }, 'capture');
}

/** refundTransaction: amount (full or partial), the card's last four with expirationDate "XXXX", refTransId. */
function refund(call: GatewayCall): Promise<GatewayResponse> {
  const { amount } = amountOf(call.request);
  const { transId, lastFour } = referenceOf(call.request);
  if (!/^\d{4}$/.test(lastFour)) throw new GatewayInputError('Authorize.Net needs the card’s last four digits to refund; the reference has none.', 'processing_error');
  return send(call, { transactionType: 'refundTransaction', amount, payment: { creditCard: { cardNumber: lastFour, expirationDate: 'XXXX' } }, refTransId: transId }, 'refund');
}

/** voidTransaction: refTransId only. */
function voidTransaction(call: GatewayCall): Promise<GatewayResponse> {
  return send(call, { transactionType: 'voidTransaction', refTransId: referenceOf(call.request).transId }, 'void');
}

/**
 * createCustomerProfileRequest with one payment profile (the card, its billTo) and validationMode
 * "none": the third_party_token is `customerProfileId|customerPaymentProfileId`.
 */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('Authorize.Net stores credit cards only.', 'unsupported_feature');
  const body = {
    createCustomerProfileRequest: {
      merchantAuthentication: authentication(request),
      refId: request.transactionToken.slice(0, 20),
      profile: present({
        // One of merchantCustomerId, description, email is required; the token is unique per store.
        merchantCustomerId: request.transactionToken.slice(0, 20),
        description: clip(request.description, 255),
        email: clip(request.email ?? method.email, 255),
        paymentProfiles: present({ customerType: 'individual', billTo: billTo(request), payment: creditCard(request) }),
      }),
      validationMode: 'none',
    },
  };
  const response = await call.http.postJson(ANET_PATH, body);
  return anetProfileResponse(readAnetProfileAnswer(response));
}

export const authorizeNetGateway = defineGateway({
  gatewayType: 'authorize_net',
  name: 'Authorize.Net',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Default',
      credentials: [
        { name: 'login', label: 'API Login ID', safe: true },
        { name: 'password', label: 'Transaction Key', safe: false },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token', ...WALLET_KINDS],
  gatewaySpecificFields: [],
  supportedCountries: ['US', 'CA', 'GB', 'AU', 'AD', 'AT', 'BE', 'BG', 'CH', 'CY', 'CZ', 'DE', 'DK', 'ES', 'FI', 'FR', 'GI', 'GR', 'HU', 'IE', 'IT', 'LI', 'LU', 'MC', 'MT', 'NL', 'NO', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK', 'SM', 'TR', 'VA'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover', 'diners_club', 'jcb'],
  regions: ['north_america', 'europe'],
  homepage: 'https://www.authorize.net/',
  displayApiUrl: `${ANET_LIVE_BASE}${ANET_PATH}`,
  companyName: 'Authorize.Net (Visa)',
  // One priorAuthCaptureTransaction settles an authorization.
  capturesAreFinal: true,
  endpoint: (request) => (request.testMode ? ANET_TEST_BASE : ANET_LIVE_BASE),
  scrub: scrubWith(scrubJsonKeys('cardNumber', 'cardCode', 'cryptogram', 'expirationDate', 'transactionKey')),
  operations: {
    purchase: (call) => payment(call, 'authCaptureTransaction', 'purchase'),
    authorize: (call) => payment(call, 'authOnlyTransaction', 'authorize'),
    verify: (call) => payment(call, 'authOnlyTransaction', 'verify'),
    capture,
    credit: refund,
    void: voidTransaction,
    store,
  },
});
