import { defineGateway, GatewayInputError, type GatewayCall, type GatewayResponse } from './kit/index.js';
import {
  billingDetails,
  cardObject,
  cardPaymentsPath,
  CUSTOMER_VAULT_PROFILES,
  description,
  holder,
  paymentFields,
  paysafeAmount,
  paysafeEndpoint,
  paysafeSend,
  reference,
  referenceId,
  scrubPaysafe,
} from './paysafe/paysafe-api.js';
import { CANCELLED, paysafeResponse, paysafeStoreResponse } from './paysafe/paysafe-mapping.js';

/** POST …/auths: an authorization, or a sale with `settleWithAuth` (its settlement has the auth's id). */
async function payment(call: GatewayCall, settle: boolean): Promise<GatewayResponse> {
  const { request } = call;
  const reply = await paysafeSend(call, 'POST', cardPaymentsPath(request, 'auths'), {
    ...reference(request),
    amount: paysafeAmount(request),
    settleWithAuth: settle,
    ...paymentFields(request),
    ...description(request),
  });
  return paysafeResponse(reply, settle ? 'Transaction approved' : 'Transaction authorized');
}

/** POST …/auths/{id}/settlements: all or part of the authorization; the settlement has its own id. */
async function capture(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const reply = await paysafeSend(call, 'POST', cardPaymentsPath(request, `auths/${referenceId(request)}/settlements`), { ...reference(request), amount: paysafeAmount(request) });
  return paysafeResponse(reply, 'Transaction captured');
}

/** POST …/settlements/{id}/refunds: all or part of a settlement (a sale's settlement id is the sale's id). */
async function credit(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const reply = await paysafeSend(call, 'POST', cardPaymentsPath(request, `settlements/${referenceId(request)}/refunds`), { ...reference(request), amount: paysafeAmount(request) });
  return paysafeResponse(reply, 'Transaction refunded');
}

/** POST …/standalonecredits: money to a card with no settlement to refer to. */
async function generalCredit(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('Paysafe credits cards only.', 'unsupported_feature');
  const reply = await paysafeSend(call, 'POST', cardPaymentsPath(request, 'standalonecredits'), {
    ...reference(request),
    amount: paysafeAmount(request),
    card: cardObject(method),
    billingDetails: billingDetails(method),
    ...holder(request, method),
    ...description(request),
  });
  return paysafeResponse(reply, 'Transaction credited');
}

/** Follow-ons cancelled with PUT {status: CANCELLED} while pending, by the resource that holds them. */
const CANCELLABLE: Readonly<Record<string, string>> = { Purchase: 'settlements', Capture: 'settlements', Credit: 'refunds', GeneralCredit: 'standalonecredits' };

/**
 * An authorization is reversed (POST …/auths/{id}/voidauths, for the authorized amount); a sale's
 * or capture's settlement, a refund or a stand-alone credit is cancelled while it is still pending
 * (PUT …/{resource}/{id} with `status: CANCELLED`; Paysafe answers 3415 once it is batched). A
 * verification holds no funds: there is nothing to void.
 */
async function voidTransaction(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const type = request.reference?.transactionType ?? '';
  if (type === 'Verification') throw new GatewayInputError('A Paysafe verification holds no funds: there is nothing to void.', 'unsupported_feature');
  const resource = CANCELLABLE[type];
  if (resource === undefined) {
    const reply = await paysafeSend(call, 'POST', cardPaymentsPath(request, `auths/${referenceId(request)}/voidauths`), { ...reference(request), amount: request.reference?.amount ?? undefined });
    return paysafeResponse(reply, 'Transaction voided');
  }
  const reply = await paysafeSend(call, 'PUT', cardPaymentsPath(request, `${resource}/${referenceId(request)}`), { status: 'CANCELLED' });
  return paysafeResponse(reply, 'Transaction voided', CANCELLED);
}

/** POST …/verifications: Paysafe's own card check (AVS and CVV, no amount, nothing held). */
async function verify(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('Paysafe verifies credit cards only.', 'unsupported_feature');
  const reply = await paysafeSend(call, 'POST', cardPaymentsPath(request, 'verifications'), {
    ...reference(request),
    card: cardObject(method),
    billingDetails: billingDetails(method),
    ...holder(request, method),
    ...description(request),
  });
  return paysafeResponse(reply, 'Card verified');
}

/**
 * POST /customervault/v1/profiles with the card: a profile (merchantCustomerId = Coffer's
 * transaction token, locale en_US) holding one card, whose paymentToken charges it later.
 */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('Paysafe stores credit cards only.', 'unsupported_feature');
  // The Customer Vault keeps no CVV: the card object goes without it.
  const card = { ...cardObject(method), cvv: undefined };
  const address = billingDetails(method);
  const { profile } = holder(request, method) as { profile: Record<string, unknown> };
  const holderName = [method.firstName, method.lastName].filter((part) => part !== null && part !== '').join(' ');
  const reply = await paysafeSend(call, 'POST', CUSTOMER_VAULT_PROFILES, {
    merchantCustomerId: request.transactionToken,
    locale: 'en_US',
    ...profile,
    card: { ...card, holderName: holderName === '' ? undefined : holderName, billingAddress: address === undefined ? undefined : { ...address } },
  });
  return paysafeStoreResponse(reply);
}

/**
 * Paysafe (formerly Optimal Payments / Netbanx) through its Card Payments API v1, with the Customer
 * Vault API v1 for store. Not implemented: 3-D Secure, stored-credential fields, split payouts,
 * airline data, held-authorization approval, profile removal. See docs/gateways/paysafe.md.
 */
export const paysafeGateway = defineGateway({
  gatewayType: 'paysafe',
  name: 'Paysafe',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'API key (user name and password) and account ID',
      credentials: [
        { name: 'username', label: 'Username', safe: true },
        { name: 'password', label: 'Password', safe: false },
        { name: 'account_id', label: 'Account Id', safe: true },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token'],
  gatewaySpecificFields: [],
  supportedCountries: ['AL', 'AT', 'BE', 'BA', 'BG', 'CA', 'HR', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'DE', 'GR', 'HU', 'IS', 'IE', 'IT', 'LV', 'LI', 'LT', 'LU', 'MT', 'ME', 'NL', 'MK', 'NO', 'PL', 'PT', 'RO', 'RS', 'SK', 'SI', 'ES', 'SE', 'CH', 'TR', 'GB', 'US'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover'],
  regions: ['asia_pacific', 'europe', 'north_america'],
  homepage: 'https://www.paysafe.com/',
  displayApiUrl: 'https://api.paysafe.com/cardpayments/v1',
  companyName: 'Paysafe',
  // Paysafe allows several settlements of one authorization up to its amount, but Coffer keeps to
  // one capture per authorization unless the gateway documents it for every processor (3416 says
  // some do not take partial settlements at all).
  capturesAreFinal: true,
  endpoint: paysafeEndpoint,
  scrub: scrubPaysafe,
  features: ['supports_purchase_via_preauthorization'],
  operations: {
    purchase: (call) => payment(call, true),
    authorize: (call) => payment(call, false),
    capture,
    credit,
    general_credit: generalCredit,
    void: voidTransaction,
    verify,
    store,
  },
});
