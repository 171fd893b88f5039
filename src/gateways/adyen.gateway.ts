import { z } from 'zod';
import { blankResponse, cryptogramFor, defineGateway, twoDigitEci, WALLET_KINDS, walletOf, type WalletPaymentMethod, GatewayInputError, GatewayResultUnknownError, readAnswer, requireCredential, type GatewayCall, type GatewayResponse } from './kit/index.js';
import {
  adyenAmount,
  adyenEndpoint,
  adyenPost,
  billingAddress,
  DEFAULT_RETURN_URL,
  recurringModel,
  referencePsp,
  schemeCard,
  scrubAdyen,
  specificText,
  storedCard,
} from './adyen/adyen-api.js';
import { paymentResponse, type AdyenPaymentAnswer } from './adyen/adyen-mapping.js';

const paymentAnswer = z.object({
  pspReference: z.string().optional(),
  resultCode: z.string(),
  refusalReason: z.string().optional(),
  refusalReasonCode: z.coerce.string().optional(),
  additionalData: z.record(z.string(), z.unknown()).optional(),
});

const modificationAnswer = z.object({ pspReference: z.string(), paymentPspReference: z.string(), status: z.string() });

/** Result codes that settle a card payment one way or the other; anything else leaves it open. */
const FINAL_RESULTS = new Set(['Authorised', 'Received', 'Refused', 'Error', 'Cancelled']);
/** A redirect or challenge Coffer did not ask for (no 3-D Secure flow yet): the payment cannot finish. */
const ACTION_RESULTS = new Set(['RedirectShopper', 'IdentifyShopper', 'ChallengeShopper', 'PresentToShopper']);

/** Adyen's `reference` (required, at most 80 characters): the order id, else Coffer's transaction token. */
function merchantReference(call: GatewayCall): string {
  return (call.request.orderId ?? call.request.transactionToken).slice(0, 80);
}

/** Spreedly's stored-credential reason types as Adyen's recurringProcessingModel. */
const RECURRING_MODEL_OF = { recurring: 'Subscription', installment: 'Subscription', unscheduled: 'UnscheduledCardOnFile' } as const;

/**
 * Stored credentials on a raw card (docs/gateways/adyen.md): the model on the cardholder's first payment, and
 * on a merchant-initiated one `ContAuth` with the network transaction id of that first payment as
 * `additionalData.networkTxReference` (Adyen, "Authorise using details stored with a third party").
 */
function storedCredentialFields(call: GatewayCall): { fields: Record<string, unknown>; additionalData: Record<string, string> } {
  const stored = call.request.storedCredential;
  if (stored === null || stored === undefined) return { fields: {}, additionalData: {} };
  const fields: Record<string, unknown> = { recurringProcessingModel: RECURRING_MODEL_OF[stored.reasonType] };
  if (stored.initiator === 'merchant') fields.shopperInteraction = 'ContAuth';
  const additionalData: Record<string, string> = stored.initiator === 'merchant' && stored.networkTransactionId !== null ? { networkTxReference: stored.networkTransactionId } : {};
  return { fields, additionalData };
}

/** Adyen's payment data source names of the wallets (`additionalData.paymentdatasource.type`). */
const DATA_SOURCE = { apple_pay: 'applepay', google_pay: 'googlepay' } as const;

/**
 * A decrypted wallet token (docs/wallets.md): the DPAN (or PAN_ONLY card) as a raw `scheme` card,
 * its wallet as the payment data source, and on a cardholder-initiated charge the cryptogram and
 * ECI (default 07) in `mpiData` as an authenticated payment (Adyen, "Apple Pay / Google Pay with
 * decrypted data"; ActiveMerchant's adyen add_network_tokenization_card as a cross-check).
 */
function walletFields(call: GatewayCall, wallet: WalletPaymentMethod): Record<string, unknown> {
  const cryptogram = wallet.networkToken ? cryptogramFor(call.request, wallet) : null;
  return {
    paymentMethod: schemeCard({ ...wallet, verificationValue: null }),
    shopperInteraction: 'Ecommerce',
    ...storedCredentialFields(call).fields,
    ...(cryptogram === null ? {} : { mpiData: { authenticationResponse: 'Y', directoryResponse: 'Y', eci: twoDigitEci(wallet.eci) ?? '07', cavv: cryptogram } }),
  };
}

function walletAdditionalData(wallet: WalletPaymentMethod): Record<string, string> {
  const data: Record<string, string> = { 'paymentdatasource.type': DATA_SOURCE[wallet.type] };
  if (wallet.type === 'google_pay') data['paymentdatasource.tokenized'] = wallet.networkToken ? 'true' : 'false';
  return data;
}

/** The card or the stored card of a /payments request, with what goes with each. */
function paymentMethodFields(call: GatewayCall): Record<string, unknown> {
  const method = call.request.paymentMethod;
  const wallet = walletOf(method);
  if (wallet !== null) return walletFields(call, wallet);
  if (method?.type === 'credit_card') {
    return { paymentMethod: schemeCard(method), billingAddress: billingAddress(method), shopperInteraction: 'Ecommerce', ...storedCredentialFields(call).fields };
  }
  if (method?.type === 'third_party_token') {
    const stored = storedCard(method.token);
    return {
      paymentMethod: { type: 'scheme', storedPaymentMethodId: stored.storedPaymentMethodId },
      shopperReference: stored.shopperReference,
      shopperInteraction: 'ContAuth',
      recurringProcessingModel: recurringModel(call.request),
    };
  }
  throw new GatewayInputError('Adyen takes credit cards and cards it stored (third_party_token).', 'unsupported_feature');
}

function additionalDataOf(call: GatewayCall, kind: 'purchase' | 'authorize' | 'verify'): Record<string, string> | undefined {
  const method = call.request.paymentMethod;
  const wallet = walletOf(method);
  const data = {
    ...(kind === 'authorize' ? { manualCapture: 'true' } : {}),
    ...(method?.type === 'credit_card' || wallet !== null ? storedCredentialFields(call).additionalData : {}),
    ...(wallet === null ? {} : walletAdditionalData(wallet)),
  };
  return Object.keys(data).length === 0 ? undefined : data;
}

/**
 * POST /payments: a purchase is captured at once (`captureDelayHours` 0), an authorization waits for
 * a capture (`additionalData.manualCapture`), a verification is a zero-value authorization; whatever
 * the merchant account's capture setting is.
 */
async function payment(call: GatewayCall, kind: 'purchase' | 'authorize' | 'verify'): Promise<GatewayResponse> {
  const { request } = call;
  const amount = kind === 'verify' ? { value: 0, currency: request.currencyCode ?? 'USD' } : adyenAmount(request.amount, request.currencyCode);
  const reply = await adyenPost(call, '/payments', {
    merchantAccount: requireCredential(request, 'merchant_account'),
    amount,
    reference: merchantReference(call),
    ...paymentMethodFields(call),
    returnUrl: specificText(request, 'return_url') ?? DEFAULT_RETURN_URL,
    shopperEmail: request.email ?? undefined,
    shopperIP: request.ip ?? undefined,
    shopperStatement: specificText(request, 'shopper_statement'),
    captureDelayHours: kind === 'purchase' ? 0 : undefined,
    additionalData: additionalDataOf(call, kind),
  });
  if (!reply.ok) return reply.response;
  const answer = readAnswer('Adyen', paymentAnswer, reply.json) as AdyenPaymentAnswer;
  if (ACTION_RESULTS.has(answer.resultCode)) {
    return {
      ...blankResponse(false, `Adyen asked for ${answer.resultCode}; Coffer does not run Adyen's 3-D Secure or redirect flows.`),
      gatewayTransactionId: answer.pspReference ?? null,
      errorCode: 'processing_error',
      specificResponseFields: { adyen: { result_code: answer.resultCode } },
    };
  }
  if (!FINAL_RESULTS.has(answer.resultCode)) {
    // Pending, PartiallyAuthorised or a code this adapter does not know: the money may move later.
    throw new GatewayResultUnknownError('Adyen did not give a final result.', `resultCode ${answer.resultCode}`);
  }
  if ((answer.resultCode === 'Authorised' || answer.resultCode === 'Received') && answer.pspReference === undefined) {
    // Approved, but with nothing to capture, refund or cancel by: the money may have moved.
    throw new GatewayResultUnknownError('Adyen returned an unexpected response.', 'pspReference: missing on an approved payment');
  }
  const message = { purchase: 'Transaction approved', authorize: 'Transaction authorized', verify: 'Card verified' }[kind];
  return paymentResponse(answer, message);
}

/** POST /payments/{pspReference}/captures | refunds | cancels: Adyen answers `received` (the outcome follows by webhook). */
async function modification(call: GatewayCall, kind: 'captures' | 'refunds' | 'cancels'): Promise<GatewayResponse> {
  const { request } = call;
  const psp = referencePsp(request);
  const body: Record<string, unknown> = { merchantAccount: requireCredential(request, 'merchant_account'), reference: merchantReference(call) };
  if (kind !== 'cancels') body.amount = adyenAmount(request.amount, request.currencyCode);
  if (kind === 'refunds' && psp.modification !== null) body.capturePspReference = psp.modification;
  const reply = await adyenPost(call, `/payments/${encodeURIComponent(psp.payment)}/${kind}`, body);
  if (!reply.ok) return reply.response;
  const answer = readAnswer('Adyen', modificationAnswer, reply.json);
  const received = answer.status === 'received';
  const message = { captures: 'Capture received', refunds: 'Refund received', cancels: 'Cancellation received' }[kind];
  return {
    ...blankResponse(received, received ? message : `Adyen answered ${answer.status}`),
    gatewayTransactionId: `${answer.paymentPspReference}#${answer.pspReference}`,
    errorCode: received ? null : 'processing_error',
    specificResponseFields: { adyen: { status: answer.status, psp_reference: answer.pspReference } },
  };
}

/**
 * POST /storedPaymentMethods: the card is tokenized under a shopper reference (the gateway-specific
 * `shopper_reference`, else Coffer's transaction token); `third_party_token` is
 * `shopperReference|storedPaymentMethodId`, which purchases and authorizations then send.
 */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('Adyen stores credit cards only.', 'unsupported_feature');
  const shopperReference = specificText(request, 'shopper_reference') ?? request.transactionToken;
  const reply = await adyenPost(call, '/storedPaymentMethods', {
    merchantAccount: requireCredential(request, 'merchant_account'),
    shopperReference,
    paymentMethod: schemeCard(method),
    recurringProcessingModel: recurringModel(request),
    shopperEmail: request.email ?? undefined,
    shopperIP: request.ip ?? undefined,
  });
  if (!reply.ok) return reply.response;
  const answer = readAnswer('Adyen', z.object({ id: z.string().min(1), shopperReference: z.string().optional() }), reply.json);
  const reference = answer.shopperReference ?? shopperReference;
  return {
    ...blankResponse(true, 'Card stored'),
    gatewayTransactionId: answer.id,
    thirdPartyToken: `${reference}|${answer.id}`,
    specificResponseFields: { adyen: { shopper_reference: reference, stored_payment_method_id: answer.id } },
  };
}

/**
 * Adyen through its Checkout API v71 (PCI merchants sending raw card data). Every call carries
 * Coffer's transaction token as Idempotency-Key. Not implemented: general credit (payouts), 3-D
 * Secure, remove (disable a stored card), non-card payment methods. See docs/gateways/adyen.md.
 */
export const adyenGateway = defineGateway({
  gatewayType: 'adyen',
  name: 'Adyen',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Web service user',
      credentials: [
        { name: 'merchant_account', label: 'Merchant Account', safe: true },
        { name: 'username', label: 'Username', safe: true },
        { name: 'password', label: 'Password', safe: false },
        { name: 'subdomain', label: 'Live URL prefix', safe: true, liveOnly: true },
      ],
    },
    {
      authModeType: 'api_key',
      name: 'API key',
      credentials: [
        { name: 'merchant_account', label: 'Merchant Account', safe: true },
        { name: 'api_key', label: 'API Key', safe: false },
        { name: 'subdomain', label: 'Live URL prefix', safe: true, liveOnly: true },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token', ...WALLET_KINDS],
  gatewaySpecificFields: ['return_url', 'shopper_reference', 'recurring_processing_model', 'shopper_statement'],
  supportedCountries: ['AT', 'AU', 'BE', 'BG', 'BR', 'CH', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GB', 'GI', 'GR', 'HK', 'HU', 'IE', 'IS', 'IT', 'LI', 'LT', 'LU', 'LV', 'MC', 'MT', 'MX', 'NL', 'NO', 'PL', 'PT', 'RO', 'SE', 'SG', 'SK', 'SI', 'US'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'diners_club', 'jcb', 'dankort', 'maestro', 'discover', 'elo', 'naranja', 'cabal', 'unionpay'],
  regions: ['asia_pacific', 'europe', 'latin_america', 'north_america'],
  homepage: 'https://www.adyen.com/',
  displayApiUrl: 'https://checkout-test.adyen.com/v71',
  companyName: 'Adyen',
  // Unless the account has multiple partial captures enabled, Adyen releases what one capture leaves.
  capturesAreFinal: true,
  endpoint: adyenEndpoint,
  scrub: scrubAdyen,
  features: ['supports_populate_mit_fields'],
  operations: {
    purchase: (call) => payment(call, 'purchase'),
    authorize: (call) => payment(call, 'authorize'),
    verify: (call) => payment(call, 'verify'),
    capture: (call) => modification(call, 'captures'),
    credit: (call) => modification(call, 'refunds'),
    void: (call) => modification(call, 'cancels'),
    store,
  },
});
