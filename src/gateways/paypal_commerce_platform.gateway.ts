import { z } from 'zod';
import { blankResponse, defineGateway, GatewayInputError, GatewayResultUnknownError, readAnswer, type GatewayCall, type GatewayResponse } from './kit/index.js';
import { cardSource, paypalAmount, paypalEndpoint, paypalPost, referenceId, scrubPayPal } from './paypal_commerce_platform/paypal-api.js';
import { paymentResponse, type PayPalPaymentAnswer } from './paypal_commerce_platform/paypal-mapping.js';

const processorResponse = z.object({ response_code: z.string().optional(), avs_code: z.string().optional(), cvv_code: z.string().optional() }).optional();

const paymentObject = z.object({
  id: z.string().min(1),
  status: z.string(),
  status_details: z.object({ reason: z.string().optional() }).optional(),
  processor_response: processorResponse,
  network_transaction_reference: z.object({ id: z.string().optional(), network: z.string().optional() }).optional(),
});

const orderAnswer = z.object({
  id: z.string().min(1),
  status: z.string(),
  purchase_units: z
    .array(z.object({ payments: z.object({ captures: z.array(paymentObject).optional(), authorizations: z.array(paymentObject).optional() }).optional() }))
    .optional(),
});
type OrderAnswer = z.infer<typeof orderAnswer>;

/** Order statuses waiting for the order's own capture or authorize call (the card was not charged yet). */
const OPEN_ORDER = new Set(['CREATED', 'APPROVED', 'SAVED']);
/** Capture and refund statuses that mean the money moves (PENDING: held for review, it still settles). */
const CAPTURED = ['COMPLETED', 'PENDING'];
const AUTHORIZED = ['CREATED', 'PENDING'];

type Intent = 'CAPTURE' | 'AUTHORIZE';

/** A gateway-specific field given as text, if it was. */
function specificText(call: GatewayCall, name: string): string | undefined {
  const value = call.request.gatewaySpecificFields[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** `payment_source.card`: the card itself, or a card stored in PayPal's vault by its payment token (`vault_id`). */
function paymentCard(method: GatewayCall['request']['paymentMethod']): Record<string, unknown> {
  if (method?.type === 'credit_card') return cardSource(method);
  if (method?.type === 'third_party_token') return { vault_id: method.token };
  throw new GatewayInputError('PayPal takes credit cards and cards stored in its vault (third_party_token).', 'unsupported_feature');
}

const setupTokenAnswer = z.object({ id: z.string().min(1), status: z.string() });
const paymentTokenAnswer = z.object({ id: z.string().min(1), customer: z.object({ id: z.string() }).optional() });

/**
 * Vault v3: POST /v3/vault/setup-tokens with the card (checked for format only, no transaction),
 * then POST /v3/vault/payment-tokens from the APPROVED setup token. The payment token's id is the
 * `third_party_token`; purchases and authorizations send it as `payment_source.card.vault_id`.
 */
async function store(call: GatewayCall): Promise<GatewayResponse> {
  const method = call.request.paymentMethod;
  if (method?.type !== 'credit_card') throw new GatewayInputError('PayPal stores credit cards only.', 'unsupported_feature');
  const setup = await paypalPost(call, '/v3/vault/setup-tokens', { payment_source: { card: cardSource(method) } });
  if (!setup.ok) return setup.response;
  const setupToken = readAnswer('PayPal', setupTokenAnswer, setup.json);
  if (setupToken.status !== 'APPROVED') {
    return {
      ...blankResponse(false, `PayPal answered ${setupToken.status} for the setup token; Coffer does not run PayPal's payer-action flows.`),
      errorCode: 'processing_error',
      errorDetail: `setup token ${setupToken.id}: ${setupToken.status}`,
    };
  }
  const created = await paypalPost(call, '/v3/vault/payment-tokens', { payment_source: { token: { id: setupToken.id, type: 'SETUP_TOKEN' } } }, '-payment-token');
  if (!created.ok) return created.response;
  const token = readAnswer('PayPal', paymentTokenAnswer, created.json);
  return {
    ...blankResponse(true, 'Card stored'),
    gatewayTransactionId: token.id,
    thirdPartyToken: token.id,
    specificResponseFields: { paypal_commerce_platform: { setup_token_id: setupToken.id, customer_id: token.customer?.id ?? null } },
  };
}

/** The capture or authorization an order holds once it is COMPLETED. */
function orderPayment(order: OrderAnswer, intent: Intent): PayPalPaymentAnswer | undefined {
  const payments = order.purchase_units?.[0]?.payments;
  return (intent === 'CAPTURE' ? payments?.captures : payments?.authorizations)?.[0];
}

/** An order answer in Coffer's terms: its capture (purchase) or authorization, or what stops it. */
function orderResponse(order: OrderAnswer, intent: Intent): GatewayResponse {
  if (order.status === 'PAYER_ACTION_REQUIRED') {
    return {
      ...blankResponse(false, 'PayPal asked for payer action (3-D Secure); Coffer does not run PayPal 3-D Secure flows.'),
      errorCode: 'processing_error',
      errorDetail: `order ${order.id}: PAYER_ACTION_REQUIRED`,
      specificResponseFields: { paypal_commerce_platform: { order_id: order.id, order_status: order.status } },
    };
  }
  const payment = orderPayment(order, intent);
  if (payment === undefined) {
    // COMPLETED without its capture or authorization, or a status this adapter does not know: the money may have moved.
    throw new GatewayResultUnknownError('PayPal did not give a final result.', `order status ${order.status} without a ${intent === 'CAPTURE' ? 'capture' : 'authorization'}`);
  }
  const approved = intent === 'CAPTURE' ? CAPTURED : AUTHORIZED;
  return paymentResponse(payment, approved, intent === 'CAPTURE' ? 'Transaction approved' : 'Transaction authorized', { order_id: order.id, order_status: order.status });
}

/**
 * POST /v2/checkout/orders with the card as `payment_source.card`. PayPal processes a card order at
 * once (status COMPLETED with its capture or authorization); an order left CREATED or APPROVED is
 * finished with POST /v2/checkout/orders/{id}/capture | authorize, under its own request id.
 */
async function order(call: GatewayCall, intent: Intent): Promise<GatewayResponse> {
  const { request } = call;
  const method = request.paymentMethod;
  const amount = paypalAmount(request.amount, request.currencyCode);
  const card = paymentCard(method);
  const reply = await paypalPost(call, '/v2/checkout/orders', {
    intent,
    purchase_units: [
      {
        amount,
        custom_id: (request.orderId ?? request.transactionToken).slice(0, 127),
        invoice_id: specificText(call, 'invoice_id'),
        description: request.description?.slice(0, 127) || undefined,
        soft_descriptor: specificText(call, 'soft_descriptor'),
      },
    ],
    payment_source: { card },
  });
  if (!reply.ok) return reply.response;
  let answer = readAnswer('PayPal', orderAnswer, reply.json);
  if (OPEN_ORDER.has(answer.status)) {
    const action = intent === 'CAPTURE' ? 'capture' : 'authorize';
    const finished = await paypalPost(call, `/v2/checkout/orders/${encodeURIComponent(answer.id)}/${action}`, {}, `-${action}`);
    if (!finished.ok) return finished.response;
    answer = readAnswer('PayPal', orderAnswer, finished.json);
  }
  return orderResponse(answer, intent);
}

/** POST /v2/payments/authorizations/{id}/capture: the amount given (full or partial), final so PayPal releases the rest. */
async function capture(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const id = referenceId(request);
  const amount = paypalAmount(request.amount, request.currencyCode);
  const reply = await paypalPost(call, `/v2/payments/authorizations/${id}/capture`, { amount, final_capture: true, invoice_id: specificText(call, 'invoice_id') });
  if (!reply.ok) return reply.response;
  return paymentResponse(readAnswer('PayPal', paymentObject, reply.json), CAPTURED, 'Capture completed');
}

/** POST /v2/payments/captures/{id}/refund: the amount given (full or partial) of a purchase's or capture's capture. */
async function credit(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const id = referenceId(request);
  const amount = paypalAmount(request.amount, request.currencyCode);
  const reply = await paypalPost(call, `/v2/payments/captures/${id}/refund`, { amount, note_to_payer: request.description?.slice(0, 255) || undefined });
  if (!reply.ok) return reply.response;
  return paymentResponse(readAnswer('PayPal', paymentObject, reply.json), CAPTURED, 'Refund completed');
}

/** POST /v2/payments/authorizations/{id}/void: 204 No Content, or the VOIDED authorization. */
async function voidAuthorization(call: GatewayCall): Promise<GatewayResponse> {
  const id = referenceId(call.request);
  const reply = await paypalPost(call, `/v2/payments/authorizations/${id}/void`, null);
  if (!reply.ok) return reply.response;
  if (reply.status === 204) return { ...blankResponse(true, 'Authorization voided'), gatewayTransactionId: call.request.reference?.gatewayTransactionId ?? null };
  return paymentResponse(readAnswer('PayPal', paymentObject, reply.json), ['VOIDED'], 'Authorization voided');
}

/**
 * PayPal through its REST Orders v2 and Payments v2 APIs with card data (advanced card processing),
 * OAuth2 client credentials. Every call carries Coffer's transaction token as PayPal-Request-Id.
 * Not implemented: verify (Orders v2 has no card-only verification outside 3-D Secure contingencies),
 * PayPal wallet payments, 3-D Secure, removing vaulted cards. See docs/gateways/paypal_commerce_platform.md.
 */
export const paypalCommercePlatformGateway = defineGateway({
  gatewayType: 'paypal_commerce_platform',
  name: 'PayPal Commerce Platform',
  test: false,
  authModes: [
    {
      authModeType: 'default',
      name: 'REST app client credentials',
      credentials: [
        { name: 'login', label: 'Client ID', safe: true },
        { name: 'password', label: 'Secret', safe: false },
      ],
    },
  ],
  paymentMethods: ['credit_card', 'third_party_token'],
  gatewaySpecificFields: ['invoice_id', 'soft_descriptor'],
  supportedCountries: ['AU', 'AT', 'BE', 'BG', 'CA', 'CY', 'CZ', 'DK', 'EE', 'FI', 'FR', 'GR', 'HU', 'IT', 'LV', 'LI', 'LT', 'LU', 'MT', 'NL', 'NO', 'PL', 'PT', 'RO', 'SK', 'SI', 'ES', 'SE', 'US', 'GB'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover', 'jcb', 'maestro', 'diners_club'],
  regions: ['asia_pacific', 'europe', 'north_america'],
  homepage: 'https://www.paypal.com/',
  displayApiUrl: 'https://api-m.sandbox.paypal.com/v2',
  companyName: 'PayPal',
  // Captures are sent with final_capture: PayPal releases what a capture leaves of the authorization.
  capturesAreFinal: true,
  endpoint: paypalEndpoint,
  scrub: scrubPayPal,
  operations: {
    purchase: (call) => order(call, 'CAPTURE'),
    authorize: (call) => order(call, 'AUTHORIZE'),
    capture,
    credit,
    void: voidAuthorization,
    store,
  },
});
