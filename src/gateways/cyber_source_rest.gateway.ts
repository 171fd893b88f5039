import { blankResponse, defineGateway, type GatewayCall, type GatewayResponse } from './kit/index.js';
import {
  amountDetails,
  billTo,
  clientReference,
  cyberSourcePost,
  LIVE_BASE,
  paymentInformation,
  referenceId,
  scrubCyberSource,
  shipTo,
  TEST_BASE,
} from './cyber_source_rest/cybersource-api.js';
import { mapAnswer, storedCardToken } from './cyber_source_rest/cybersource-mapping.js';

/** Verify and store authorize zero in the transaction's currency, or in US dollars when it has none. */
const VERIFY_CURRENCY = 'USD';

/** The TMS tokens `store` asks an authorization to create alongside it. */
const STORE_TOKEN_TYPES = ['customer', 'paymentInstrument', 'instrumentIdentifier'];

/**
 * POST /pts/v2/payments: a sale (`capture: true`), an authorization, or a zero-amount
 * authorization (verify; store adds TOKEN_CREATE so TMS keeps the card).
 */
async function payment(call: GatewayCall, kind: 'purchase' | 'authorize' | 'verify' | 'store'): Promise<GatewayResponse> {
  const { request } = call;
  const zero = kind === 'verify' || kind === 'store';
  const currency = request.currencyCode ?? VERIFY_CURRENCY;
  const reply = await cyberSourcePost(call, '/pts/v2/payments', {
    clientReferenceInformation: clientReference(request),
    processingInformation: {
      capture: kind === 'purchase',
      ...(kind === 'store' ? { actionList: ['TOKEN_CREATE'], actionTokenTypes: STORE_TOKEN_TYPES } : {}),
    },
    paymentInformation: paymentInformation(request.paymentMethod),
    orderInformation: {
      amountDetails: amountDetails(zero ? 0 : (request.amount ?? 0), currency),
      billTo: billTo(request),
      shipTo: shipTo(request),
    },
    // The buyer's IP, for CyberSource's fraud screening (Decision Manager), when the merchant sent one.
    deviceInformation: request.ip === null ? undefined : { ipAddress: request.ip },
  });
  const messages = { purchase: 'Transaction approved', authorize: 'Transaction authorized', verify: 'Card verified', store: 'Card stored' } as const;
  const response = mapAnswer(reply, ['AUTHORIZED'], messages[kind]);
  if (kind !== 'store' || !response.success) return response;
  return { ...response, thirdPartyToken: storedCardToken(reply) };
}

/** POST /pts/v2/payments/{id}/captures: full or partial; one per authorization (see capturesAreFinal). */
async function capture(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const reply = await cyberSourcePost(call, `/pts/v2/payments/${referenceId(request)}/captures`, {
    clientReferenceInformation: clientReference(request),
    orderInformation: { amountDetails: amountDetails(request.amount ?? 0, request.currencyCode ?? VERIFY_CURRENCY) },
  });
  return mapAnswer(reply, ['PENDING', 'TRANSMITTED'], 'Transaction captured');
}

/**
 * A refund of what a sale or a capture took: a sale's refund goes to /pts/v2/payments/{id}/refunds,
 * a capture's to /pts/v2/captures/{id}/refunds (the capture has its own id), as the reference says.
 */
async function credit(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const resource = request.reference?.transactionType === 'Capture' ? 'captures' : 'payments';
  const reply = await cyberSourcePost(call, `/pts/v2/${resource}/${referenceId(request)}/refunds`, {
    clientReferenceInformation: clientReference(request),
    orderInformation: { amountDetails: amountDetails(request.amount ?? 0, request.currencyCode ?? VERIFY_CURRENCY) },
  });
  return mapAnswer(reply, ['PENDING', 'TRANSMITTED'], 'Transaction refunded');
}

/** POST /pts/v2/credits: money to a card without a payment to refer to. */
async function generalCredit(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const reply = await cyberSourcePost(call, '/pts/v2/credits', {
    clientReferenceInformation: clientReference(request),
    paymentInformation: paymentInformation(request.paymentMethod),
    orderInformation: { amountDetails: amountDetails(request.amount ?? 0, request.currencyCode ?? VERIFY_CURRENCY), billTo: billTo(request) },
  });
  return mapAnswer(reply, ['PENDING', 'TRANSMITTED'], 'Transaction credited');
}

/** Where a void of each kind of reference goes: authorizations are reversed, the rest voided. */
const VOID_RESOURCES: Readonly<Record<string, string>> = { Purchase: 'payments', Capture: 'captures', Credit: 'refunds', GeneralCredit: 'credits' };

/**
 * An authorization (or a verification's zero authorization) is reversed for its full amount
 * (POST /pts/v2/payments/{id}/reversals); a sale, capture or refund not yet settled is voided
 * (POST /pts/v2/{payments|captures|refunds|credits}/{id}/voids).
 */
async function voidTransaction(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const type = request.reference?.transactionType ?? '';
  const resource = VOID_RESOURCES[type];
  if (resource === undefined) {
    const reply = await cyberSourcePost(call, `/pts/v2/payments/${referenceId(request)}/reversals`, {
      clientReferenceInformation: clientReference(request),
      reversalInformation: { amountDetails: amountDetails(request.reference?.amount ?? 0, request.currencyCode ?? VERIFY_CURRENCY) },
    });
    return mapAnswer(reply, ['REVERSED'], 'Transaction voided');
  }
  const reply = await cyberSourcePost(call, `/pts/v2/${resource}/${referenceId(request)}/voids`, { clientReferenceInformation: clientReference(request) });
  return mapAnswer(reply, ['VOIDED', 'CANCELLED'], 'Transaction voided');
}

/**
 * CyberSource through its REST Payments API (`/pts/v2`), every request signed with HTTP Signature
 * (merchant id, key id and shared secret). Purchase is a sale, authorize an authorization, capture
 * and credit act on their reference, general credit is a stand-alone credit, void reverses an
 * authorization or voids the rest, verify is a
 * zero-amount authorization, store one with TMS token creation (the card comes back as
 * `customer id|payment instrument id`, usable as `third_party_token`).
 * CyberSource has no idempotency key on these endpoints; Coffer's transaction token goes in
 * `clientReferenceInformation.transactionId` (and `code`, when there is no order id).
 */
export const cyberSourceRestGateway = defineGateway({
  gatewayType: 'cyber_source_rest',
  name: 'Cybersource REST',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Default',
      credentials: [
        { name: 'merchant_id', label: 'Merchant ID', safe: true },
        { name: 'public_key', label: 'Key ID (shared secret key serial)', safe: false },
        { name: 'private_key', label: 'Shared Secret Key', safe: false },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token'],
  gatewaySpecificFields: [],
  supportedCountries: ['US', 'AE', 'BR', 'CA', 'CN', 'DK', 'FI', 'FR', 'DE', 'IN', 'JP', 'MX', 'NO', 'SE', 'GB', 'SG', 'LB', 'PK'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover', 'diners_club', 'jcb', 'maestro', 'unionpay', 'dankort'],
  regions: ['asia_pacific', 'europe', 'latin_america', 'middle_east', 'north_america'],
  homepage: 'https://www.cybersource.com',
  displayApiUrl: 'https://api.cybersource.com/pts/v2',
  companyName: 'Cybersource',
  // Several captures of one authorization are a processor feature, not CyberSource's default.
  capturesAreFinal: true,
  endpoint: (request) => (request.testMode ? TEST_BASE : LIVE_BASE),
  scrub: scrubCyberSource,
  features: ['supports_purchase_via_preauthorization'],
  operations: {
    purchase: (call) => payment(call, 'purchase'),
    authorize: (call) => payment(call, 'authorize'),
    capture,
    void: voidTransaction,
    credit,
    general_credit: generalCredit,
    verify: (call) => payment(call, 'verify'),
    store: async (call) => {
      if (call.request.paymentMethod?.type !== 'credit_card') return { ...blankResponse(false, 'Only credit cards can be stored at CyberSource.'), errorCode: 'unsupported_feature' };
      return payment(call, 'store');
    },
  },
});
