import { defineGateway, GatewayInputError, type GatewayCall, type GatewayResponse } from './kit/index.js';
import { addressFields, cardFields, currencyField, elavonAmount, elavonEndpoint, elavonPost, invoiceFields, paymentFields, referenceTxnId, scrubElavon } from './elavon/elavon-api.js';
import { elavonResponse, elavonStoreResponse } from './elavon/elavon-mapping.js';

/** ccsale (captured at once) or ccauthonly (held for a cccomplete), with a card or a Converge token. */
async function payment(call: GatewayCall, type: 'ccsale' | 'ccauthonly'): Promise<GatewayResponse> {
  const { request } = call;
  const txn = await elavonPost(call, type, {
    ssl_amount: elavonAmount(request),
    ...paymentFields(request),
    ...invoiceFields(request),
    ...currencyField(request),
    ssl_cardholder_ip: request.ip ?? undefined,
  });
  return elavonResponse(txn, type === 'ccsale' ? 'Transaction approved' : 'Transaction authorized');
}

/** cccomplete: captures all or part of an authorization (Converge settles the rest with it). */
async function capture(call: GatewayCall): Promise<GatewayResponse> {
  const txn = await elavonPost(call, 'cccomplete', { ssl_txn_id: referenceTxnId(call.request), ssl_amount: elavonAmount(call.request) });
  return elavonResponse(txn, 'Capture approved');
}

/** ccreturn: refunds all or part of a settled sale or completion. */
async function credit(call: GatewayCall): Promise<GatewayResponse> {
  const txn = await elavonPost(call, 'ccreturn', { ssl_txn_id: referenceTxnId(call.request), ssl_amount: elavonAmount(call.request) });
  return elavonResponse(txn, 'Refund approved');
}

/**
 * An authorization is reversed with ccdelete (it never entered the batch); a sale, completion or
 * return still in the open batch is removed with ccvoid, as Converge's transaction types say.
 */
async function voidTransaction(call: GatewayCall): Promise<GatewayResponse> {
  const type = call.request.reference?.transactionType === 'Authorization' ? 'ccdelete' : 'ccvoid';
  const txn = await elavonPost(call, type, { ssl_txn_id: referenceTxnId(call.request) });
  return elavonResponse(txn, 'Transaction voided');
}

/** ccverify: a card account check with AVS and CVV, no amount. */
async function verify(call: GatewayCall): Promise<GatewayResponse> {
  const method = call.request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('Elavon verifies credit cards only.', 'unsupported_feature');
  const txn = await elavonPost(call, 'ccverify', { ...cardFields(method), ...addressFields(method), ssl_cardholder_ip: call.request.ip ?? undefined });
  return elavonResponse(txn, 'Card verified');
}

/** ccgettoken with ssl_add_token=Y: the card goes into Converge's Card Manager; its ssl_token is the third-party token. */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const method = call.request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('Elavon stores credit cards only.', 'unsupported_feature');
  const txn = await elavonPost(call, 'ccgettoken', { ...cardFields(method), ...addressFields(method), ssl_add_token: 'Y' });
  return elavonStoreResponse(txn);
}

/**
 * Elavon Converge (formerly Virtual Merchant) through its XML API. Not implemented: general credit
 * (cccredit), updating or deleting stored tokens, 3-D Secure, partial-shipment completions, level 3
 * data. See docs/gateways/elavon.md.
 */
export const elavonGateway = defineGateway({
  gatewayType: 'elavon',
  name: 'Elavon',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Converge user and PIN',
      credentials: [
        { name: 'merchant_id', label: 'Merchant ID', safe: true },
        { name: 'user', label: 'User', safe: true },
        { name: 'pin', label: 'Pin', safe: false },
        { name: 'multi_currency', label: 'Multi Currency', safe: true, optional: true },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token'],
  gatewaySpecificFields: [],
  supportedCountries: ['US', 'CA', 'PR', 'DE', 'IE', 'NO', 'PL', 'LU', 'BE', 'NL', 'MX'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover'],
  regions: ['europe', 'latin_america', 'north_america'],
  homepage: 'https://www.elavon.com/',
  displayApiUrl: 'https://api.convergepay.com/VirtualMerchant/processxml.do',
  companyName: 'Elavon',
  // One cccomplete settles the authorization unless partial shipments are flagged (not sent).
  capturesAreFinal: true,
  endpoint: elavonEndpoint,
  scrub: scrubElavon,
  operations: {
    purchase: (call) => payment(call, 'ccsale'),
    authorize: (call) => payment(call, 'ccauthonly'),
    capture,
    credit,
    void: voidTransaction,
    verify,
    store,
  },
});
