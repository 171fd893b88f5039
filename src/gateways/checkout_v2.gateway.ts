import { z } from 'zod';
import {
  blankResponse,
  cryptogramFor,
  twoDigitEci,
  WALLET_KINDS,
  walletOf,
  type WalletPaymentMethod,
  defineGateway,
  faultOnServerError,
  GatewayFaultError,
  GatewayInputError,
  gatewayMinorUnits,
  GatewayResultUnknownError,
  parseJsonAnswer,
  readAnswer,
  requireCredential,
  scrubHeaders,
  scrubJsonKeys,
  scrubWith,
  type AdapterPaymentMethod,
  type GatewayCall,
  type GatewayRequest,
  type GatewayResponse,
} from './kit/index.js';
import { paymentResponse, refusalResponse, validationResponse, type CheckoutPaymentAnswer } from './checkout_v2/checkout-mapping.js';

export const CHECKOUT_TEST_BASE = 'https://api.sandbox.checkout.com';
export const CHECKOUT_LIVE_BASE = 'https://api.checkout.com';

/**
 * Checkout.com's "Format the amount value" page: CLP goes in cents (ISO counts whole pesos); the
 * three-decimal currencies go in thousandths whose last digit must be 0.
 */
const CHECKOUT_EXPONENTS = { CLP: 2 } as const;
const THREE_DECIMALS = new Set(['BHD', 'IQD', 'JOD', 'KWD', 'LYD', 'OMR', 'TND']);

export function checkoutAmount(amount: number | null, currency: string | null): { amount: number; currency: string } {
  if (amount === null || currency === null) throw new GatewayInputError('An amount and currency are required.', 'invalid_amount');
  const units = gatewayMinorUnits(amount, currency, CHECKOUT_EXPONENTS);
  if (THREE_DECIMALS.has(currency) && units % 10 !== 0) {
    throw new GatewayInputError(`Checkout.com takes ${currency} amounts whose last digit is 0; ${amount} is not one.`, 'invalid_amount');
  }
  return { amount: units, currency };
}

/** The secret key as Checkout.com's Authorization header: `Bearer sk_...` (a key given with its prefix is sent as is). */
function authorization(request: GatewayRequest): string {
  const key = requireCredential(request, 'secret_key');
  return /^Bearer /i.test(key) ? key : `Bearer ${key}`;
}

const paymentSchema = z.object({
  id: z.string().min(1),
  action_id: z.string().optional(),
  approved: z.boolean().optional(),
  status: z.string(),
  response_code: z.coerce.string().optional(),
  response_summary: z.string().optional(),
  auth_code: z.string().optional(),
  scheme_id: z.string().optional(),
  source: z.object({ id: z.string().optional(), avs_check: z.string().optional(), cvv_check: z.string().optional() }).optional(),
  _links: z.object({ redirect: z.object({ href: z.string() }).optional() }).passthrough().optional(),
});
const validationSchema = z.object({ error_type: z.string(), error_codes: z.array(z.string()).default([]) });
const actionSchema = z.object({ action_id: z.string().min(1) });

type Reply = { ok: true; status: number; json: Record<string, unknown> } | { ok: false; response: GatewayResponse };

/**
 * POSTs to a documented path with the secret key and Coffer's transaction token as
 * Cko-Idempotency-Key. 5xx and unreadable answers are faults; 401 is a config_error, 403/404 a
 * refusal of the action, 422 a validation decline; any other status is a fault.
 */
async function checkoutPost(call: GatewayCall, path: string, body: Record<string, unknown>, action: string): Promise<Reply> {
  const response = await call.http.postJson(path, body, { authorization: authorization(call.request), 'cko-idempotency-key': call.request.transactionToken });
  faultOnServerError('Checkout.com', response);
  if (response.status === 401) return { ok: false, response: refusalResponse('Checkout.com refused the secret key (401 Unauthorized).', 'config_error', 401) };
  if (response.status === 403) return { ok: false, response: refusalResponse(`Checkout.com does not allow this ${action}.`, 'processing_error', 403) };
  if (response.status === 404) return { ok: false, response: refusalResponse('Checkout.com does not know this payment.', 'processing_error', 404) };
  const json = parseJsonAnswer('Checkout.com', response);
  if (response.status === 422) {
    const error = readAnswer('Checkout.com', validationSchema, json);
    return { ok: false, response: validationResponse(error.error_type, error.error_codes) };
  }
  if (response.status < 200 || response.status > 299) throw new GatewayFaultError('Checkout.com returned an unexpected response.', `HTTP ${response.status}`);
  return { ok: true, status: response.status, json };
}

type Card = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;

/** A card as a `source` of type card: integer expiry, holder name, CVV and the billing address when there is one. */
function cardSource(card: Card): Record<string, unknown> {
  if (card.month === null || card.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const name = [card.firstName, card.lastName].filter((part) => part !== null && part !== '').join(' ');
  const { address } = card;
  const billing = {
    address_line1: address.address1 || undefined,
    address_line2: address.address2 || undefined,
    city: address.city || undefined,
    state: address.state || undefined,
    zip: address.zip || undefined,
    country: address.country || undefined,
  };
  return {
    type: 'card',
    number: card.number.reveal(),
    expiry_month: card.month,
    expiry_year: card.year,
    name: name === '' ? undefined : name,
    cvv: card.verificationValue?.reveal(),
    billing_address: Object.values(billing).some((value) => value !== undefined) ? billing : undefined,
  };
}

/** Checkout.com's `token_type` of a wallet's network token. */
const TOKEN_TYPE = { apple_pay: 'applepay', google_pay: 'googlepay' } as const;

/**
 * A decrypted wallet token (docs/wallets.md) as a `network_token` source: the DPAN as `token`, its
 * wallet as `token_type`, and on a cardholder-initiated charge the cryptogram and ECI (Checkout.com,
 * "Network token source"; ActiveMerchant's checkout_v2 as a cross-check). A Google Pay PAN_ONLY card
 * is a card source.
 */
function walletSource(request: GatewayRequest, wallet: WalletPaymentMethod): Record<string, unknown> {
  if (wallet.month === null || wallet.year === null) throw new GatewayInputError('The card has no expiration date.', 'invalid_expiry_date');
  const name = [wallet.firstName, wallet.lastName].filter((part) => part !== null && part !== '').join(' ') || undefined;
  if (!wallet.networkToken) return { type: 'card', number: wallet.number.reveal(), expiry_month: wallet.month, expiry_year: wallet.year, name };
  const cryptogram = cryptogramFor(request, wallet);
  return {
    type: 'network_token',
    token: wallet.number.reveal(),
    expiry_month: wallet.month,
    expiry_year: wallet.year,
    token_type: TOKEN_TYPE[wallet.type],
    cryptogram: cryptogram ?? undefined,
    eci: cryptogram === null ? undefined : (twoDigitEci(wallet.eci) ?? undefined),
    name,
  };
}

/** The payment's source: a raw card, or a card Checkout.com keeps (`src_...` from `store`) as type id. */
function paymentSource(request: GatewayRequest): Record<string, unknown> {
  const method = request.paymentMethod;
  const wallet = walletOf(method);
  if (wallet !== null) return walletSource(request, wallet);
  if (method?.type === 'credit_card') return cardSource(method);
  if (method?.type === 'third_party_token') return { type: 'id', id: method.token };
  throw new GatewayInputError('Checkout.com takes credit cards and cards it stored (third_party_token).', 'unsupported_feature');
}

const PAYMENT_TYPE_OF = { recurring: 'Recurring', installment: 'Installment', unscheduled: 'Unscheduled' } as const;

/** Stored credentials (docs/gateways/checkout_v2.md): payment_type, merchant_initiated and previous_payment_id (the scheme id of the first payment). */
function storedCredentialFields(request: GatewayRequest): Record<string, unknown> {
  const stored = request.storedCredential;
  if (stored === null || stored === undefined) return {};
  const merchant = stored.initiator === 'merchant';
  return {
    payment_type: PAYMENT_TYPE_OF[stored.reasonType],
    merchant_initiated: merchant,
    previous_payment_id: merchant && stored.networkTransactionId !== null ? stored.networkTransactionId : undefined,
  };
}

/** Checkout.com's `reference`: the order id, else Coffer's transaction token. */
function reference(request: GatewayRequest): string {
  return request.orderId ?? request.transactionToken;
}

function processingChannel(request: GatewayRequest): string | undefined {
  const value = request.gatewaySpecificFields.processing_channel_id;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

type PaymentKind = 'purchase' | 'authorize' | 'verify' | 'store';

/**
 * POST /payments: a purchase with capture true, an authorization with capture false, a verification
 * (and `store`) as an amount-0 card verification, answered "Card Verified".
 */
async function payment(call: GatewayCall, kind: PaymentKind): Promise<GatewayResponse> {
  const { request } = call;
  const zero = kind === 'verify' || kind === 'store';
  const money = zero ? { amount: 0, currency: request.currencyCode ?? 'USD' } : checkoutAmount(request.amount, request.currencyCode);
  if (kind === 'store' && request.paymentMethod?.type !== 'credit_card') throw new GatewayInputError('Checkout.com stores credit cards only.', 'unsupported_feature');
  const reply = await checkoutPost(
    call,
    '/payments',
    {
      source: paymentSource(request),
      amount: money.amount,
      currency: money.currency,
      reference: reference(request),
      capture: zero ? undefined : kind === 'purchase',
      description: request.description ?? undefined,
      customer: request.email === null ? undefined : { email: request.email },
      payment_ip: request.ip ?? undefined,
      processing_channel_id: processingChannel(request),
      ...storedCredentialFields(request),
    },
    'payment',
  );
  if (!reply.ok) return reply.response;
  const answer = readAnswer('Checkout.com', paymentSchema, reply.json);
  if (answer.status === 'Pending') {
    if (answer._links?.redirect !== undefined) {
      return {
        ...blankResponse(false, 'Checkout.com asked for a 3-D Secure redirect; Coffer does not run Checkout.com 3-D Secure flows.'),
        gatewayTransactionId: answer.id,
        errorCode: 'processing_error',
        specificResponseFields: { checkout_v2: { status: answer.status } },
      };
    }
    throw new GatewayResultUnknownError('Checkout.com did not give a final result.', 'status Pending');
  }
  const message = { purchase: 'Transaction approved', authorize: 'Transaction authorized', verify: 'Card verified', store: 'Card stored' }[kind];
  const response = paymentResponse(answer as CheckoutPaymentAnswer, message);
  if (kind !== 'store' || !response.success) return response;
  const sourceId = answer.source?.id;
  if (sourceId === undefined) throw new GatewayFaultError('Checkout.com returned an unexpected response.', 'source.id: missing on a verified card');
  return { ...response, thirdPartyToken: sourceId };
}

/** The payment id a reference transaction stands for: a capture or refund is recorded as `pay_...#act_...`. */
function paymentId(request: GatewayRequest): string {
  const id = request.reference?.gatewayTransactionId;
  if (id === null || id === undefined || id === '') throw new GatewayFaultError('No Checkout.com payment id to refer to.', 'reference without gateway_transaction_id');
  return id.split('#')[0] as string;
}

/** POST /payments/{id}/captures | refunds | voids: 202 Accepted with the action's id. */
async function action(call: GatewayCall, kind: 'captures' | 'refunds' | 'voids'): Promise<GatewayResponse> {
  const { request } = call;
  const id = paymentId(request);
  const body: Record<string, unknown> = { reference: reference(request) };
  if (kind !== 'voids') body.amount = checkoutAmount(request.amount, request.currencyCode ?? null).amount;
  const name = { captures: 'capture', refunds: 'refund', voids: 'void' }[kind];
  const reply = await checkoutPost(call, `/payments/${encodeURIComponent(id)}/${kind}`, body, name);
  if (!reply.ok) return reply.response;
  const answer = readAnswer('Checkout.com', actionSchema, reply.json);
  const message = { captures: 'Capture accepted', refunds: 'Refund accepted', voids: 'Void accepted' }[kind];
  return {
    ...blankResponse(true, message),
    gatewayTransactionId: `${id}#${answer.action_id}`,
    specificResponseFields: { checkout_v2: { action_id: answer.action_id } },
  };
}

/**
 * Checkout.com through its unified payments API (PCI merchants sending raw card data). Every call
 * carries Coffer's transaction token as Cko-Idempotency-Key. Not implemented: payouts (general
 * credit), 3-D Secure, wallets, OAuth mode. See docs/gateways/checkout_v2.md.
 */
export const checkoutV2Gateway = defineGateway({
  gatewayType: 'checkout_v2',
  name: 'Checkout.com',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'Default',
      credentials: [
        { name: 'secret_key', label: 'Secret Key', safe: false },
        { name: 'public_key', label: 'Public Key', safe: true, optional: true },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token', ...WALLET_KINDS],
  gatewaySpecificFields: ['processing_channel_id'],
  supportedCountries: ['AD', 'AE', 'AR', 'AT', 'AU', 'BE', 'BG', 'BH', 'BR', 'CH', 'CL', 'CN', 'CO', 'CY', 'CZ', 'DE', 'DK', 'EE', 'EG', 'ES', 'FI', 'FR', 'GB', 'GR', 'HK', 'HR', 'HU', 'IE', 'IS', 'IT', 'JO', 'JP', 'KW', 'LI', 'LT', 'LU', 'LV', 'MC', 'MT', 'MX', 'MY', 'NL', 'NO', 'NZ', 'OM', 'PE', 'PL', 'PT', 'QA', 'RO', 'SA', 'SE', 'SG', 'SI', 'SK', 'SM', 'TR', 'US'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'diners_club', 'maestro', 'discover'],
  regions: ['asia_pacific', 'europe', 'latin_america', 'middle_east', 'north_america'],
  homepage: 'https://www.checkout.com/',
  displayApiUrl: CHECKOUT_LIVE_BASE,
  companyName: 'Checkout.com',
  // Checkout.com allows several partial captures of one authorization.
  capturesAreFinal: false,
  endpoint: (request) => (request.testMode ? CHECKOUT_TEST_BASE : CHECKOUT_LIVE_BASE),
  scrub: scrubWith(scrubJsonKeys('number', 'cvv', 'cryptogram', 'expiry_month', 'expiry_year'), scrubHeaders('authorization')),
  operations: {
    purchase: (call) => payment(call, 'purchase'),
    authorize: (call) => payment(call, 'authorize'),
    verify: (call) => payment(call, 'verify'),
    store: (call) => payment(call, 'store'),
    capture: (call) => action(call, 'captures'),
    credit: (call) => action(call, 'refunds'),
    void: (call) => action(call, 'voids'),
  },
});
