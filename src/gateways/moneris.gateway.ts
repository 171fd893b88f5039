import {
  decimalAmount,
  defineGateway,
  GatewayFaultError,
  GatewayInputError,
  GatewayResultUnknownError,
  optionalCredential,
  requireCredential,
  scrubXmlElements,
  xmlDocument,
  type AdapterPaymentMethod,
  type GatewayCall,
  type GatewayRequest,
  type GatewayResponse,
  type XmlValue,
} from './kit/index.js';
import { monerisResponse, readReceipt } from './moneris/moneris-mapping.js';

/**
 * Moneris (Canada) through its XML gateway API: `<request>` with `store_id`, `api_token` and one
 * transaction element, POSTed to /gateway2/servlet/MpgRequest; answered with
 * `<response><receipt>`. See docs/gateways/moneris.md.
 */

export const MONERIS_TEST_BASE = 'https://esqa.moneris.com';
export const MONERIS_LIVE_BASE = 'https://www3.moneris.com';
export const MONERIS_PATH = '/gateway2/servlet/MpgRequest';

/** SSL-enabled merchant e-commerce: the only crypt_type Coffer sends (no 3-D Secure). */
const CRYPT_TYPE = '7';
/** A Moneris store settles in its own currency: CAD (Canada) or USD (a US store); there is no currency element. */
const CURRENCIES = new Set(['CAD', 'USD']);

type Card = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;

function specificText(request: GatewayRequest, name: string): string | undefined {
  const value = request.gatewaySpecificFields[name];
  return typeof value === 'string' && value !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}

function amountText(request: GatewayRequest): string {
  if (request.amount === null || request.currencyCode === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  if (!CURRENCIES.has(request.currencyCode)) throw new GatewayInputError(`Moneris charges in the store's currency (CAD or USD), not ${request.currencyCode}.`, 'invalid_amount');
  return decimalAmount(request.amount, request.currencyCode);
}

/** order_id: the transaction's order id, else Coffer's transaction token (Moneris wants it unique per purchase, preauth and verification; at most 50 characters). */
function orderId(request: GatewayRequest): string {
  return (request.orderId ?? request.transactionToken).slice(0, 50);
}

/** cust_id: the gateway-specific `cust_id`, else the card holder's name (as ActiveMerchant does), at most 50 characters. */
function custId(request: GatewayRequest, card: Card | null): string | undefined {
  const given = specificText(request, 'cust_id');
  const name = card === null ? '' : [card.firstName, card.lastName].filter((part) => part !== null && part !== '').join(' ');
  return (given ?? (name === '' ? undefined : name))?.slice(0, 50);
}

/** YYMM. */
function expdate(card: Card): string {
  if (card.month === null || card.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  return `${String(card.year % 100).padStart(2, '0')}${String(card.month).padStart(2, '0')}`;
}

/** avs_info when the gateway has `avs_enabled` (the store has AVS): street number and name split as ActiveMerchant does. */
function avsInfo(request: GatewayRequest, card: Card): XmlValue {
  if (optionalCredential(request, 'avs_enabled') !== 'true' || !card.address.zip) return undefined;
  const tokens = `${card.address.address1 ?? ''} ${card.address.address2 ?? ''}`.split(/\s+/).filter((token) => token !== '');
  return {
    avs_street_number: tokens.filter((token) => /\d/.test(token)).join(' ') || undefined,
    avs_street_name: tokens.filter((token) => !/\d/.test(token)).join(' ') || undefined,
    avs_zipcode: card.address.zip,
  };
}

/** cvd_info when the card still has its CVV (its first transaction). */
function cvdInfo(card: Card): XmlValue {
  const value = card.verificationValue?.reveal();
  return value === undefined ? undefined : { cvd_indicator: '1', cvd_value: value };
}

/** cof_info (credential on file) when the gateway has `cof_enabled` and the request gives payment_indicator and payment_information. */
function cofInfo(request: GatewayRequest): XmlValue {
  const indicator = specificText(request, 'payment_indicator');
  const information = specificText(request, 'payment_information');
  if (optionalCredential(request, 'cof_enabled') !== 'true' || indicator === undefined || information === undefined) return undefined;
  return { issuer_id: specificText(request, 'issuer_id') ?? '', payment_indicator: indicator, payment_information: information };
}

async function send(call: GatewayCall, transaction: string, fields: Record<string, XmlValue>) {
  const { request } = call;
  const document = xmlDocument('request', { store_id: requireCredential(request, 'store_id'), api_token: requireCredential(request, 'api_token'), [transaction]: fields });
  return readReceipt(await call.http.postXml(MONERIS_PATH, document));
}

/** purchase | preauth | card_verification with the card, or res_purchase_cc | res_preauth_cc | res_card_verification_cc with a vault data key. */
async function payment(call: GatewayCall, kind: 'purchase' | 'preauth' | 'card_verification'): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  const amount = kind === 'card_verification' ? undefined : amountText(request);
  let receipt;
  if (method?.type === 'credit_card') {
    receipt = await send(call, kind, {
      order_id: orderId(request),
      cust_id: custId(request, method),
      amount,
      pan: method.number.reveal(),
      expdate: expdate(method),
      crypt_type: CRYPT_TYPE,
      avs_info: avsInfo(request, method),
      cvd_info: cvdInfo(method),
      cof_info: cofInfo(request),
    });
  } else if (method?.type === 'third_party_token') {
    // Each res_* element in the order of Moneris's schema (ActiveMerchant's lists agree).
    receipt =
      kind === 'card_verification'
        ? await send(call, 'res_card_verification_cc', { order_id: orderId(request), data_key: method.token, crypt_type: CRYPT_TYPE, cof_info: cofInfo(request) })
        : await send(call, kind === 'purchase' ? 'res_purchase_cc' : 'res_preauth_cc', {
            data_key: method.token,
            order_id: orderId(request),
            cust_id: custId(request, null),
            amount,
            crypt_type: CRYPT_TYPE,
            cof_info: cofInfo(request),
          });
  } else {
    throw new GatewayInputError('Moneris takes credit cards and vault data keys (third_party_token).', 'unsupported_feature');
  }
  const response = monerisResponse(receipt, { purchase: 'Transaction approved', preauth: 'Transaction authorized', card_verification: 'Card verified' }[kind]);
  if (response.success && response.gatewayTransactionId === null) {
    // Approved, but with nothing to capture, refund or void by: the money may have moved.
    throw new GatewayResultUnknownError('Moneris returned an unexpected response.', 'TransID or ReceiptId: missing on an approval');
  }
  return response;
}

/** The txn_number and order_id of the reference transaction (recorded as `TransID;ReceiptId`). */
function referenceOf(request: GatewayRequest): { txnNumber: string; orderId: string } {
  const id = request.reference?.gatewayTransactionId ?? '';
  const separator = id.indexOf(';');
  if (separator <= 0 || separator === id.length - 1) throw new GatewayFaultError('No Moneris transaction to refer to.', 'reference is not TransID;ReceiptId');
  return { txnNumber: id.slice(0, separator), orderId: id.slice(separator + 1) };
}

/** completion (capture; comp_amount 0.00 reverses a preauth), refund, purchasecorrection (void of a purchase or completion). */
async function follow(call: GatewayCall, kind: 'completion' | 'refund' | 'purchasecorrection', amount: string | undefined, message: string): Promise<GatewayResponse> {
  const reference = referenceOf(call.request);
  const fields: Record<string, XmlValue> =
    kind === 'completion'
      ? { order_id: reference.orderId, comp_amount: amount, txn_number: reference.txnNumber, crypt_type: CRYPT_TYPE }
      : kind === 'refund'
        ? { order_id: reference.orderId, amount, txn_number: reference.txnNumber, crypt_type: CRYPT_TYPE }
        : { order_id: reference.orderId, txn_number: reference.txnNumber, crypt_type: CRYPT_TYPE };
  return monerisResponse(await send(call, kind, fields), message);
}

/**
 * Void: an authorization is reversed by a completion of 0.00 (Moneris's documented preauth
 * reversal); a purchase or a capture (completion) by purchasecorrection, which Moneris allows
 * until the batch closes. Other transactions cannot be voided at Moneris.
 */
async function voidTransaction(call: GatewayCall): Promise<GatewayResponse> {
  const type = call.request.reference?.transactionType;
  if (type === 'Authorization') return follow(call, 'completion', '0.00', 'Authorization reversed');
  if (type === 'Purchase' || type === 'Capture') return follow(call, 'purchasecorrection', undefined, 'Transaction voided');
  throw new GatewayInputError(`Moneris cannot void a ${type ?? 'transaction'}; refund it instead.`, 'unsupported_feature');
}

/** res_add_cc: the card goes into the Moneris Vault; its DataKey is the third_party_token. */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('Moneris stores credit cards only.', 'unsupported_feature');
  const receipt = await send(call, 'res_add_cc', {
    cust_id: custId(request, method),
    email: method.email ?? undefined,
    pan: method.number.reveal(),
    expdate: expdate(method),
    crypt_type: CRYPT_TYPE,
    avs_info: avsInfo(request, method),
    cof_info: cofInfo(request),
  });
  const response = monerisResponse(receipt, 'Card stored');
  if (!response.success || receipt.ResSuccess !== 'true') return { ...response, success: false, errorCode: response.errorCode ?? 'processing_error' };
  if (receipt.DataKey === undefined) throw new GatewayResultUnknownError('Moneris returned an unexpected response.', 'DataKey: missing on a stored card');
  return { ...response, thirdPartyToken: receipt.DataKey, gatewayTransactionId: receipt.DataKey };
}

export const monerisGateway = defineGateway({
  gatewayType: 'moneris',
  name: 'Moneris',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Store ID and API token',
      credentials: [
        { name: 'store_id', label: 'Store ID', safe: true },
        { name: 'api_token', label: 'Api Token', safe: false },
        { name: 'avs_enabled', label: 'Avs Enabled', safe: true, optional: true },
        { name: 'cof_enabled', label: 'Cof Enabled', safe: true, optional: true },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token'],
  gatewaySpecificFields: ['cust_id', 'issuer_id', 'payment_indicator', 'payment_information'],
  supportedCountries: ['CA', 'US'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'diners_club', 'discover'],
  regions: ['north_america'],
  homepage: 'https://www.moneris.com/',
  displayApiUrl: `${MONERIS_LIVE_BASE}${MONERIS_PATH}`,
  companyName: 'Moneris',
  // A preauth takes one completion; Moneris releases the rest.
  capturesAreFinal: true,
  endpoint: (request) => (request.testMode ? MONERIS_TEST_BASE : MONERIS_LIVE_BASE),
  scrub: scrubXmlElements('store_id', 'api_token', 'pan', 'expdate', 'cvd_value', 'cavv'),
  operations: {
    purchase: (call) => payment(call, 'purchase'),
    authorize: (call) => payment(call, 'preauth'),
    verify: (call) => payment(call, 'card_verification'),
    capture: (call) => follow(call, 'completion', amountText(call.request), 'Capture approved'),
    credit: (call) => follow(call, 'refund', amountText(call.request), 'Refund approved'),
    void: voidTransaction,
    store,
  },
});
