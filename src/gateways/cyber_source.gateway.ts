import { defineGateway, GatewayInputError, WALLET_KINDS, type GatewayCall, type GatewayResponse } from './kit/index.js';
import {
  billTo,
  cardElement,
  cyberSourceEndpoint,
  cyberSourcePost,
  DEFAULT_CURRENCY,
  paymentElements,
  purchaseTotals,
  referenceIds,
  requestAmount,
  storedCredentialFields,
  walletAuthFields,
} from './cyber_source/cybersource-soap-api.js';
import { cyberSourceResponse, cyberSourceStoreResponse } from './cyber_source/cybersource-soap-mapping.js';
import { scrubCyberSourceSoap } from './cyber_source/soap-envelope.js';

const RUN = { '@_run': 'true' } as const;

/**
 * ccAuthService alone (authorize, and verify with a zero amount), or with ccCaptureService in the
 * same request (a sale, as the SOAP guide describes purchase).
 */
async function payment(call: GatewayCall, kind: 'purchase' | 'authorize' | 'verify'): Promise<GatewayResponse> {
  const { request } = call;
  const { amount, currency } = kind === 'verify' ? { amount: 0, currency: request.currencyCode ?? DEFAULT_CURRENCY } : requestAmount(request);
  const stored = storedCredentialFields(request);
  const wallet = walletAuthFields(request);
  const answer = await cyberSourcePost(call, {
    ...paymentElements(request, amount, currency),
    // The wallet's authenticated commerce indicator wins on a cardholder-initiated charge; the stored credentials' otherwise.
    ccAuthService: { ...RUN, cavv: wallet.auth.cavv, commerceIndicator: wallet.auth.commerceIndicator ?? stored.commerceIndicator, xid: wallet.auth.xid },
    ccCaptureService: kind === 'purchase' ? RUN : undefined,
    ...wallet.trailing,
    ...stored.trailing,
  });
  const messages = { purchase: 'Transaction approved', authorize: 'Transaction authorized', verify: 'Card verified' } as const;
  return cyberSourceResponse(answer, messages[kind]);
}

/** ccCaptureService on the authorization's requestID: all or part of the authorized amount. */
async function capture(call: GatewayCall): Promise<GatewayResponse> {
  const { amount, currency } = requestAmount(call.request);
  const { requestId, requestToken } = referenceIds(call.request);
  const answer = await cyberSourcePost(call, { purchaseTotals: purchaseTotals(amount, currency), ccCaptureService: { ...RUN, authRequestID: requestId, authRequestToken: requestToken } });
  return cyberSourceResponse(answer, 'Transaction captured');
}

/** ccCreditService on a capture's or a sale's requestID (a follow-on credit): all or part of it. */
async function credit(call: GatewayCall): Promise<GatewayResponse> {
  const { amount, currency } = requestAmount(call.request);
  const { requestId, requestToken } = referenceIds(call.request);
  const answer = await cyberSourcePost(call, { purchaseTotals: purchaseTotals(amount, currency), ccCreditService: { ...RUN, captureRequestID: requestId, captureRequestToken: requestToken } });
  return cyberSourceResponse(answer, 'Transaction refunded');
}

/** ccCreditService with the card and no request to refer to (a stand-alone credit). */
async function generalCredit(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('CyberSource credits cards only.', 'unsupported_feature');
  const { amount, currency } = requestAmount(request);
  const answer = await cyberSourcePost(call, { billTo: billTo(request, method), purchaseTotals: purchaseTotals(amount, currency), card: cardElement(method), ccCreditService: RUN });
  return cyberSourceResponse(answer, 'Transaction credited');
}

/** Kinds of reference an authorization reversal undoes; the rest are voided with voidService. */
const REVERSIBLE = new Set(['Authorization', 'Verification']);

/**
 * An authorization (or a verification's zero authorization) is reversed with ccAuthReversalService,
 * which asks for the full authorized amount; a sale, capture or credit not yet sent to the
 * processor is voided with voidService.
 */
async function voidTransaction(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const { requestId, requestToken } = referenceIds(request);
  if (REVERSIBLE.has(request.reference?.transactionType ?? '')) {
    const answer = await cyberSourcePost(call, {
      purchaseTotals: purchaseTotals(request.reference?.amount ?? 0, request.currencyCode ?? DEFAULT_CURRENCY),
      ccAuthReversalService: { ...RUN, authRequestID: requestId, authRequestToken: requestToken },
    });
    return cyberSourceResponse(answer, 'Transaction voided');
  }
  const answer = await cyberSourcePost(call, { voidService: { ...RUN, voidRequestID: requestId, voidRequestToken: requestToken } });
  return cyberSourceResponse(answer, 'Transaction voided');
}

/**
 * paySubscriptionCreateService: an on-demand customer profile holding the card (Payment
 * Tokenization); its subscriptionID is the third-party token purchases and authorizations send as
 * `recurringSubscriptionInfo/subscriptionID`.
 */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('CyberSource stores credit cards only.', 'unsupported_feature');
  const answer = await cyberSourcePost(call, {
    billTo: billTo(request, method),
    purchaseTotals: { currency: request.currencyCode ?? DEFAULT_CURRENCY },
    card: cardElement(method),
    subscription: { paymentMethod: 'credit card' },
    recurringSubscriptionInfo: { frequency: 'on-demand' },
    paySubscriptionCreateService: RUN,
  });
  return cyberSourceStoreResponse(answer);
}

/**
 * CyberSource through its legacy SOAP Toolkit API (Simple Order API over SOAP, WS-Security
 * UsernameToken with the transaction key). Not implemented: the P12 certificate (XML signature)
 * mode, 3-D Secure, checks (ecDebitService), incremental authorizations, Decision Manager fields,
 * level 2/3 data, updating or deleting profiles. See docs/gateways/cyber_source.md.
 */
export const cyberSourceGateway = defineGateway({
  gatewayType: 'cyber_source',
  name: 'CyberSource',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Merchant ID and SOAP Toolkit transaction key',
      credentials: [
        { name: 'user_name', label: 'User Name (Merchant ID)', safe: true },
        { name: 'transaction_key', label: 'Transaction Key', safe: false, large: true },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token', ...WALLET_KINDS],
  gatewaySpecificFields: [],
  supportedCountries: ['US', 'AE', 'BR', 'CA', 'CN', 'DK', 'FI', 'FR', 'DE', 'IN', 'JP', 'MX', 'NO', 'SE', 'GB', 'SG', 'LB', 'PK'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover', 'diners_club', 'jcb', 'dankort', 'maestro', 'elo'],
  regions: ['asia_pacific', 'europe', 'latin_america', 'north_america'],
  homepage: 'https://www.cybersource.com',
  displayApiUrl: 'https://ics2wsa.ic3.com/commerce/1.x/transactionProcessor',
  companyName: 'CyberSource',
  // Several captures of one authorization need the processor's multiple-capture support and
  // captureSequenceNumber/totalCount, which Coffer does not send: one capture settles it.
  capturesAreFinal: true,
  endpoint: cyberSourceEndpoint,
  scrub: scrubCyberSourceSoap,
  features: ['supports_purchase_via_preauthorization', 'supports_populate_mit_fields'],
  operations: {
    purchase: (call) => payment(call, 'purchase'),
    authorize: (call) => payment(call, 'authorize'),
    capture,
    credit,
    general_credit: generalCredit,
    void: voidTransaction,
    verify: (call) => payment(call, 'verify'),
    store,
  },
});
