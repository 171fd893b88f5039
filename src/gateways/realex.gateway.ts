import { blankResponse, defineGateway, GatewayFaultError, GatewayInputError, optionalCredential, requireCredential, type GatewayCall, type GatewayResponse } from './kit/index.js';
import {
  amountElement,
  cardElement,
  comments,
  holderName,
  merchantFields,
  realexAmount,
  realexEndpoint,
  realexOrderId,
  realexPost,
  referenceIds,
  scrubRealex,
  tssInfo,
  type RealexAnswer,
} from './realex/realex-api.js';
import { realexResponse, transactionId } from './realex/realex-mapping.js';
import { realexHash, realexTimestamp, refundHash } from './realex/realex-signing.js';

/** The answer must be about the order the request named (the hash covers the orderid it echoes). */
function sameOrder(answer: RealexAnswer, orderId: string): void {
  if (answer.orderid !== undefined && answer.orderid !== '' && answer.orderid !== orderId) {
    throw new GatewayFaultError('Global Payments answered for another order.', 'orderid mismatch');
  }
}

/** A card stored by `store` is `payerref|cardref` (RealVault). */
function storedCard(token: string): { payerRef: string; cardRef: string } {
  const [payerRef, cardRef, extra] = token.split('|');
  if (!payerRef || !cardRef || extra !== undefined) throw new GatewayInputError('The third_party_token is not a Global Payments stored card (payerref|cardref).', 'invalid_number');
  return { payerRef, cardRef };
}

/**
 * `auth` with the card (autosettle 1 for a purchase, 0 for an authorization), or `receipt-in`
 * with a RealVault card; signed over timestamp.merchantid.orderid.amount.currency.(card number | payerref).
 */
async function payment(call: GatewayCall, settle: boolean): Promise<GatewayResponse> {
  const { request } = call;
  const secret = requireCredential(request, 'password');
  const orderId = realexOrderId(request);
  const amount = realexAmount(request);
  const timestamp = realexTimestamp();
  const method = request.paymentMethod;
  let answer: RealexAnswer;
  if (method?.type === 'credit_card') {
    answer = await realexPost(call, 'auth', timestamp, {
      ...merchantFields(request),
      orderid: orderId,
      amount: amountElement(amount),
      card: cardElement(method),
      autosettle: { '@_flag': settle ? '1' : '0' },
      comments: comments(request),
      tssinfo: tssInfo(request, method),
      sha1hash: realexHash([timestamp, requireCredential(request, 'login'), orderId, amount.value, amount.currency, method.number.reveal()], secret),
    });
  } else if (method?.type === 'third_party_token') {
    const { payerRef, cardRef } = storedCard(method.token);
    answer = await realexPost(call, 'receipt-in', timestamp, {
      ...merchantFields(request),
      orderid: orderId,
      amount: amountElement(amount),
      autosettle: { '@_flag': settle ? '1' : '0' },
      payerref: payerRef,
      paymentmethod: cardRef,
      comments: comments(request),
      tssinfo: tssInfo(request, null),
      sha1hash: realexHash([timestamp, requireCredential(request, 'login'), orderId, amount.value, amount.currency, payerRef], secret),
    });
  } else {
    throw new GatewayInputError('Global Payments takes credit cards and cards it stored (third_party_token).', 'unsupported_feature');
  }
  sameOrder(answer, orderId);
  return realexResponse(answer, orderId, settle ? 'Transaction approved' : 'Transaction authorized');
}

/**
 * `settle` (capture, full or partial) and `rebate` (refund): the original orderid and pasref,
 * signed over timestamp.merchantid.orderid.amount.currency. (empty card number). A rebate also
 * carries the refundhash, the SHA-1 of the rebate password. The answer keeps the original
 * orderid;pasref so a later rebate or void names the payment.
 */
async function reference(call: GatewayCall, kind: 'settle' | 'rebate'): Promise<GatewayResponse> {
  const { request } = call;
  const ids = referenceIds(request);
  const amount = realexAmount(request);
  const rebatePassword = kind === 'rebate' ? optionalCredential(request, 'rebate_secret') : undefined;
  if (kind === 'rebate' && rebatePassword === undefined) throw new GatewayInputError('Global Payments refunds need the rebate_secret credential (the rebate password).', 'config_error');
  const timestamp = realexTimestamp();
  const answer = await realexPost(call, kind, timestamp, {
    ...merchantFields(request),
    orderid: ids.orderId,
    pasref: ids.pasref,
    authcode: ids.authcode || undefined,
    amount: amountElement(amount),
    refundhash: rebatePassword === undefined ? undefined : refundHash(rebatePassword),
    comments: comments(request),
    sha1hash: realexHash([timestamp, requireCredential(request, 'login'), ids.orderId, amount.value, amount.currency, ''], requireCredential(request, 'password')),
  });
  sameOrder(answer, ids.orderId);
  const response = realexResponse(answer, ids.orderId, kind === 'settle' ? 'Capture approved' : 'Refund approved');
  if (!response.success) return response;
  // A settle's own pasref stays in the fields; the transaction keeps naming the payment.
  return { ...response, gatewayTransactionId: kind === 'settle' ? transactionId(ids.orderId, ids.pasref, ids.authcode) : response.gatewayTransactionId };
}

/** `void` of an authorization, a purchase, a settle or a rebate not yet batched: signed over timestamp.merchantid.orderid... */
async function voidTransaction(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const ids = referenceIds(request);
  const timestamp = realexTimestamp();
  const answer = await realexPost(call, 'void', timestamp, {
    ...merchantFields(request),
    orderid: ids.orderId,
    pasref: ids.pasref,
    authcode: ids.authcode || undefined,
    comments: comments(request),
    sha1hash: realexHash([timestamp, requireCredential(request, 'login'), ids.orderId, '', '', ''], requireCredential(request, 'password')),
  });
  sameOrder(answer, ids.orderId);
  return realexResponse(answer, ids.orderId, 'Transaction voided');
}

/** `otb` (open to buy): a card check without an amount, signed over timestamp.merchantid.orderid.cardnumber. */
async function verify(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('Global Payments verifies credit cards only.', 'unsupported_feature');
  const orderId = realexOrderId(request);
  const timestamp = realexTimestamp();
  const answer = await realexPost(call, 'otb', timestamp, {
    ...merchantFields(request),
    orderid: orderId,
    card: cardElement(method),
    comments: comments(request),
    sha1hash: realexHash([timestamp, requireCredential(request, 'login'), orderId, method.number.reveal()], requireCredential(request, 'password')),
  });
  sameOrder(answer, orderId);
  return realexResponse(answer, orderId, 'Card verified');
}

/**
 * RealVault: `payer-new` (signed over timestamp.merchantid.orderid...payerref), then `card-new`
 * (…payerref.chname.number). Both references derive from Coffer's transaction token; the
 * `third_party_token` is `payerref|cardref`, which purchases send with `receipt-in`.
 */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('Global Payments stores credit cards only.', 'unsupported_feature');
  const login = requireCredential(request, 'login');
  const secret = requireCredential(request, 'password');
  const card = cardElement(method);
  const base = request.transactionToken.replace(/[^A-Za-z0-9_-]/g, '').slice(0, 40);
  const payerRef = base;
  const cardRef = `card-${base.slice(0, 20)}`;

  const payerOrder = `${base}-payer`;
  const payerTime = realexTimestamp();
  const payer = await realexPost(call, 'payer-new', payerTime, {
    ...merchantFields(request),
    orderid: payerOrder,
    payer: { '@_ref': payerRef, '@_type': 'Retail', firstname: method.firstName ?? undefined, surname: method.lastName ?? undefined, email: method.email ?? request.email ?? undefined },
    sha1hash: realexHash([payerTime, login, payerOrder, '', '', payerRef], secret),
  });
  sameOrder(payer, payerOrder);
  if (payer.result !== '00') return realexResponse(payer, payerOrder, 'Payer stored');

  const cardOrder = `${base}-card`;
  const cardTime = realexTimestamp();
  const name = holderName(method);
  const stored = await realexPost(call, 'card-new', cardTime, {
    ...merchantFields(request),
    orderid: cardOrder,
    card: { ref: cardRef, payerref: payerRef, ...card, cvn: undefined },
    sha1hash: realexHash([cardTime, login, cardOrder, '', '', payerRef, name, method.number.reveal()], secret),
  });
  sameOrder(stored, cardOrder);
  if (stored.result !== '00') return realexResponse(stored, cardOrder, 'Card stored');
  return {
    ...blankResponse(true, 'Card stored'),
    gatewayTransactionId: `${payerRef}|${cardRef}`,
    thirdPartyToken: `${payerRef}|${cardRef}`,
    specificResponseFields: { realex: { result: stored.result, message: stored.message ?? null, payer_ref: payerRef, card_ref: cardRef, pasref: stored.pasref ?? null } },
  };
}

/**
 * Global Payments (formerly Realex Payments) through its e-commerce XML API. Not implemented:
 * general credit (`credit` with a card), 3-D Secure, multi-settle, DCC, stored-card removal. See
 * docs/gateways/realex.md.
 */
export const realexGateway = defineGateway({
  gatewayType: 'realex',
  name: 'Global Payments (Realex)',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Merchant ID and shared secret',
      credentials: [
        { name: 'login', label: 'Merchant ID', safe: true },
        { name: 'password', label: 'Shared Secret', safe: false },
        { name: 'account', label: 'Account', safe: true, optional: true },
        { name: 'rebate_secret', label: 'Rebate Password', safe: false, optional: true },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token'],
  gatewaySpecificFields: [],
  supportedCountries: ['IE', 'GB', 'FR', 'BE', 'NL', 'LU', 'IT', 'US', 'CA', 'ES'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'diners_club', 'jcb', 'maestro'],
  regions: ['europe', 'north_america'],
  homepage: 'https://www.globalpayments.com/',
  displayApiUrl: 'https://api.realexpayments.com/epage-remote.cgi',
  companyName: 'Global Payments',
  // A settle settles the authorization (multi-settle is a separate, unimplemented flag).
  capturesAreFinal: true,
  endpoint: realexEndpoint,
  scrub: scrubRealex,
  operations: {
    purchase: (call) => payment(call, true),
    authorize: (call) => payment(call, false),
    capture: (call) => reference(call, 'settle'),
    credit: (call) => reference(call, 'rebate'),
    void: voidTransaction,
    verify,
    store,
  },
});
