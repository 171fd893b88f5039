import { defineGateway, WALLET_KINDS, walletOf, GatewayFaultError, GatewayInputError, GatewayResultUnknownError, type GatewayCall, type GatewayResponse, type XmlValue } from './kit/index.js';
import { cardSsl, walletInstrument, orderCode, paymentService, scrubWorldpay, worldpayAmount, worldpayEndpoint, worldpayPost } from './worldpay/worldpay-api.js';
import { modificationResponse, orderResponse, tokenResponse, unauthorizedResponse } from './worldpay/worldpay-mapping.js';

/** A gateway-specific field given as text, if it was. */
function specificText(call: GatewayCall, name: string): string | undefined {
  const value = call.request.gatewaySpecificFields[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** The order code a capture, refund or cancel refers to: the reference transaction's gateway id. */
function referenceOrder(call: GatewayCall): string {
  const id = call.request.reference?.gatewayTransactionId;
  if (id === null || id === undefined || id === '') throw new GatewayInputError('No Worldpay order code to refer to.', 'processing_error');
  return id;
}

/**
 * `submit/order` with the card as CARD-SSL: description (required; the transaction's, else
 * "Purchase"), amount, optional orderContent, paymentDetails (card, session IP), shopper e-mail.
 */
async function submitOrder(call: GatewayCall, amount: Record<string, XmlValue>, code: string, message: string): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  let instrument: Record<string, XmlValue>;
  let shopperId: string | undefined;
  const wallet = walletOf(method);
  if (wallet !== null) {
    instrument = walletInstrument(request, wallet);
  } else if (method?.type === 'credit_card') {
    instrument = { 'CARD-SSL': cardSsl(method) };
  } else if (method?.type === 'third_party_token') {
    const stored = storedToken(method.token);
    instrument = { 'TOKEN-SSL': { '@_tokenScope': 'shopper', paymentTokenID: stored.tokenId } };
    shopperId = stored.shopperId;
  } else {
    throw new GatewayInputError('Worldpay takes credit cards and cards it stored (third_party_token).', 'unsupported_feature');
  }
  const shopper = request.email === null && shopperId === undefined ? undefined : { shopperEmailAddress: request.email ?? undefined, authenticatedShopperID: shopperId };
  const document = paymentService(request, {
    submit: {
      order: {
        '@_orderCode': code,
        description: (request.description || 'Purchase').slice(0, 50),
        amount,
        orderContent: specificText(call, 'order_content'),
        paymentDetails: {
          ...instrument,
          session: request.ip === null ? undefined : { '@_shopperIPAddress': request.ip, '@_id': request.transactionToken },
        },
        shopper,
        statementNarrative: specificText(call, 'statement_narrative')?.slice(0, 50),
      },
    },
  });
  const answer = await worldpayPost(call, document, request.transactionToken);
  if ('unauthorized' in answer) return unauthorizedResponse();
  return orderResponse(answer.reply, code, message);
}

/** A card stored by `store` is `authenticatedShopperID|paymentTokenID` (a shopper-scoped token). */
function storedToken(token: string): { shopperId: string; tokenId: string } {
  const separator = token.lastIndexOf('|');
  if (separator <= 0 || separator === token.length - 1) throw new GatewayInputError('The third_party_token is not a Worldpay stored card (authenticatedShopperID|paymentTokenID).', 'invalid_number');
  return { shopperId: token.slice(0, separator), tokenId: token.slice(separator + 1) };
}

/**
 * `submit/paymentTokenCreate`: a shopper-scoped token for the card under `authenticatedShopperID`
 * (the gateway-specific `authenticated_shopper_id`, else Coffer's transaction token).
 */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('Worldpay stores credit cards only.', 'unsupported_feature');
  const shopperId = (specificText(call, 'authenticated_shopper_id') ?? request.transactionToken).slice(0, 64);
  const card = cardSsl(method);
  const document = paymentService(request, {
    submit: {
      paymentTokenCreate: {
        authenticatedShopperID: shopperId,
        createToken: { tokenEventReference: request.transactionToken.slice(0, 64), tokenReason: specificText(call, 'token_reason') },
        paymentInstrument: { cardDetails: card },
      },
    },
  });
  const answer = await worldpayPost(call, document, request.transactionToken);
  if ('unauthorized' in answer) return unauthorizedResponse();
  return tokenResponse(answer.reply, shopperId);
}

/** One `modify/orderModification` of `code`: capture, refund or cancel. */
async function modify(call: GatewayCall, code: string, modification: Record<string, XmlValue>, expected: string, message: string, keySuffix = ''): Promise<GatewayResponse> {
  const document = paymentService(call.request, { modify: { orderModification: { '@_orderCode': code, ...modification } } });
  const answer = await worldpayPost(call, document, `${call.request.transactionToken}${keySuffix}`);
  if ('unauthorized' in answer) return unauthorizedResponse();
  return modificationResponse(answer.reply, code, expected, message);
}

function captureOf(call: GatewayCall, amount: Record<string, XmlValue>): Record<string, XmlValue> {
  const today = new Date();
  return { capture: { date: { '@_dayOfMonth': String(today.getUTCDate()), '@_month': String(today.getUTCMonth() + 1), '@_year': String(today.getUTCFullYear()) }, amount } };
}

/** Authorization, then its capture (as ActiveMerchant does); a merchant capturing at once answers CAPTURED and is done. */
async function purchase(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const amount = worldpayAmount(request.amount, request.currencyCode);
  const code = orderCode(request);
  const authorized = await submitOrder(call, amount, code, 'Transaction approved');
  const lastEvent = (authorized.specificResponseFields.worldpay as { last_event?: string } | undefined)?.last_event;
  if (!authorized.success || lastEvent === 'CAPTURED') return authorized;
  let captured: GatewayResponse;
  try {
    captured = await modify(call, code, captureOf(call, amount), 'captureReceived', 'Transaction approved', '-capture');
  } catch (error) {
    // Authorized, but the capture's fate is unknown: the money may or may not move.
    if (error instanceof GatewayFaultError || error instanceof GatewayResultUnknownError) throw new GatewayResultUnknownError('Worldpay authorized the purchase but its capture did not complete.', error.detail);
    throw error;
  }
  if (!captured.success) return { ...captured, message: `Authorized, but the capture failed: ${captured.message}` };
  return { ...authorized, specificResponseFields: { worldpay: { ...(authorized.specificResponseFields.worldpay as object), captured: true } } };
}

async function authorize(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  return submitOrder(call, worldpayAmount(request.amount, request.currencyCode), orderCode(request), 'Transaction authorized');
}

/** An authorization of 1.00 in the card's currency (USD by default), then its cancel; the authorization's answer is the result. */
async function verify(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const currency = request.currencyCode ?? 'USD';
  const code = orderCode(request);
  const authorized = await submitOrder(call, worldpayAmount(100, currency), code, 'Card verified');
  if (!authorized.success) return authorized;
  try {
    await modify(call, code, { cancel: '' }, 'cancelReceived', 'Cancelled', '-cancel');
  } catch {
    // The verification stands; an uncancelled authorization of 1.00 lapses on its own.
    call.http.note('[!!] the verification authorization could not be cancelled');
  }
  return authorized;
}

async function capture(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const code = referenceOrder(call);
  return modify(call, code, captureOf(call, worldpayAmount(request.amount, request.currencyCode)), 'captureReceived', 'Capture received');
}

async function credit(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const code = referenceOrder(call);
  return modify(call, code, { refund: { amount: worldpayAmount(request.amount, request.currencyCode, 'credit') } }, 'refundReceived', 'Refund received');
}

/** `cancel` of an authorization; the gateway-specific `cancel_or_refund` sends `cancelOrRefund` (refunds what was captured). */
async function voidOrder(call: GatewayCall): Promise<GatewayResponse> {
  const code = referenceOrder(call);
  if (call.request.gatewaySpecificFields.cancel_or_refund === true || call.request.gatewaySpecificFields.cancel_or_refund === 'true') {
    return modify(call, code, { cancelOrRefund: '' }, 'voidReceived', 'Cancel or refund received');
  }
  return modify(call, code, { cancel: '' }, 'cancelReceived', 'Cancellation received');
}

/**
 * Worldpay (Corporate/Business gateway) through its XML Direct order API, paymentService version
 * 1.4. Not implemented: 3-D Secure, token deletion, general credit (CFT payouts),
 * non-card payment methods. See docs/gateways/worldpay.md.
 */
export const worldpayGateway = defineGateway({
  gatewayType: 'worldpay',
  name: 'WorldPay',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'XML merchant code and password',
      credentials: [
        { name: 'login', label: 'Merchant Code', safe: true },
        { name: 'password', label: 'XML Password', safe: false },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token', ...WALLET_KINDS],
  gatewaySpecificFields: ['order_content', 'statement_narrative', 'cancel_or_refund', 'authenticated_shopper_id', 'token_reason'],
  supportedCountries: ['AD', 'AE', 'AR', 'AT', 'AU', 'BE', 'BG', 'BR', 'CA', 'CH', 'CL', 'CO', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GB', 'GR', 'HK', 'HR', 'HU', 'IE', 'IN', 'IS', 'IT', 'JP', 'LI', 'LT', 'LU', 'LV', 'MT', 'MX', 'MY', 'NL', 'NO', 'NZ', 'PL', 'PT', 'RO', 'SE', 'SG', 'SI', 'SK', 'TR', 'US', 'ZA'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover', 'jcb', 'maestro', 'diners_club', 'elo', 'unionpay'],
  regions: ['asia_pacific', 'europe', 'middle_east', 'north_america'],
  homepage: 'https://www.worldpay.com/',
  displayApiUrl: 'https://secure-test.worldpay.com/jsp/merchant/xml/paymentService.jsp',
  companyName: 'Worldpay',
  // One capture per order: Coffer refuses a second capture of the same authorization.
  capturesAreFinal: true,
  endpoint: worldpayEndpoint,
  scrub: scrubWorldpay,
  operations: { purchase, authorize, capture, credit, void: voidOrder, verify, store },
});
