import { blankResponse, defineGateway, GatewayFaultError, WALLET_KINDS, type FormValue, type GatewayCall, type GatewayResponse, type InquiryAnswer } from './kit/index.js';
import { declineResponse, paymentIntentResponse, type IntentLike } from './stripe/stripe-mapping.js';
import { networkTokenOptions, paymentMethodData, paymentMethodReference, referenceId, scrubStripe, shipping, stripeCall, type StripeReply } from './stripe/stripe-api.js';

/** Statuses meaning success, per operation. */
const SUCCESS = {
  purchase: ['succeeded'],
  authorize: ['requires_capture', 'succeeded'],
  capture: ['succeeded'],
  void: ['canceled'],
  complete: ['succeeded', 'requires_capture'],
} as const;

function intentOutcome(reply: StripeReply, successMessage: string, successStatuses: readonly string[]): GatewayResponse {
  if (reply.json.error !== undefined) return declineResponse(reply.json.error);
  if (typeof reply.json.id !== 'string' || typeof reply.json.status !== 'string') {
    throw new GatewayFaultError('Stripe returned an unexpected response.', 'no intent id or status');
  }
  return paymentIntentResponse(reply.json as unknown as IntentLike, successMessage, successStatuses);
}

/**
 * Stored credentials (docs/test-gateway-flows.md): a merchant-initiated charge is `off_session`, and carries the
 * network transaction id of the cardholder-initiated one as `mit_exemption[network_transaction_id]`
 * (https://docs.stripe.com/api/payment_intents/create, payment_method_options.card.mit_exemption).
 */
function storedCredentialFields(request: GatewayCall['request']): Record<string, FormValue> {
  return request.storedCredential?.initiator === 'merchant' ? { off_session: true } : {};
}

function cardOptions(request: GatewayCall['request']): Record<string, FormValue> | undefined {
  const card: Record<string, FormValue> = {};
  const networkToken = networkTokenOptions(request);
  if (networkToken !== undefined) card.network_token = networkToken;
  if (request.attempt3dsecure) card.request_three_d_secure = 'any';
  const networkTransactionId = request.storedCredential?.initiator === 'merchant' ? request.storedCredential.networkTransactionId : null;
  if (networkTransactionId !== null && networkTransactionId !== undefined) card.mit_exemption = { network_transaction_id: networkTransactionId };
  return Object.keys(card).length === 0 ? undefined : { card };
}

/** Purchase and authorize: one confirmed PaymentIntent, captured automatically or manually. */
async function chargeCard(call: GatewayCall): Promise<GatewayResponse> {
  const { request } = call;
  const purchase = request.operation === 'purchase';
  const reply = await stripeCall(call, 'POST', '/v1/payment_intents', {
    amount: request.amount,
    currency: request.currencyCode?.toLowerCase(),
    capture_method: purchase ? 'automatic' : 'manual',
    confirm: true,
    payment_method_types: ['card'],
    payment_method_data: paymentMethodData(request.paymentMethod),
    ...paymentMethodReference(request.paymentMethod),
    description: request.description,
    receipt_email: request.email,
    // Coffer's token in the metadata lets reconciliation find the intent by search (docs/gateways/stripe.md).
    metadata: { ...(request.orderId === null ? {} : { order_id: request.orderId }), coffer_transaction: request.transactionToken },
    shipping: shipping(request),
    ...storedCredentialFields(request),
    payment_method_options: cardOptions(request),
    expand: ['latest_charge'],
    ...(request.gatewaySpecificFields as Record<string, FormValue>),
  });
  return intentOutcome(reply, purchase ? 'Transaction approved' : 'Transaction authorized', purchase ? SUCCESS.purchase : SUCCESS.authorize);
}

/**
 * Reconciliation: the PaymentIntent a purchase or authorize created carries Coffer's
 * token in `metadata[coffer_transaction]`; Stripe's search finds it. Search is eventually
 * consistent (Stripe documents up to a minute), so "nothing found" only becomes "never arrived"
 * once the reconciler has waited long enough (docs/events.md).
 */
async function inquireIntent(call: GatewayCall): Promise<InquiryAnswer> {
  const { request } = call;
  if (request.operation !== 'purchase' && request.operation !== 'authorize') return { kind: 'unknown' };
  const reply = await stripeCall(call, 'GET', '/v1/payment_intents/search', { query: `metadata['coffer_transaction']:'${request.transactionToken}'`, expand: ['data.latest_charge'] });
  const data = reply.json.data;
  if (reply.json.error !== undefined || !Array.isArray(data)) return { kind: 'unknown' };
  const intent = data[0] as Record<string, unknown> | undefined;
  if (intent === undefined) return { kind: 'not_found' };
  const purchase = request.operation === 'purchase';
  return { kind: 'found', response: intentOutcome({ status: 200, json: intent }, purchase ? 'Transaction approved' : 'Transaction authorized', purchase ? SUCCESS.purchase : SUCCESS.authorize) };
}

/**
 * Stripe through the PaymentIntents API (`login` = secret key): purchase and authorize create and
 * confirm a PaymentIntent (automatic or manual capture), capture and void act on it, credit is a
 * refund, verify is a confirmed SetupIntent, store creates a PaymentMethod and a Customer.
 * Coffer's transaction token is Stripe's Idempotency-Key, so a retried call never charges twice.
 * Not implemented (so not advertised): remove (detach), general credit, 3-D Secure redirects.
 */
export const stripeGateway = defineGateway({
  gatewayType: 'stripe',
  name: 'Stripe',
  test: false,
  authModes: [{ authModeType: 'default', name: 'Default', credentials: [{ name: 'login', label: 'Secret Key', safe: false }] }],
  paymentMethods: ['credit_card', 'third_party_token', ...WALLET_KINDS],
  gatewaySpecificFields: [],
  supportedCountries: ['AT', 'AU', 'BE', 'CA', 'CH', 'DE', 'DK', 'ES', 'FI', 'FR', 'GB', 'IE', 'IT', 'JP', 'LU', 'NL', 'NO', 'NZ', 'PT', 'SE', 'SG', 'US'],
  supportedCardtypes: ['visa', 'master', 'american_express', 'discover', 'diners_club', 'jcb', 'unionpay'],
  regions: ['asia_pacific', 'europe', 'north_america'],
  homepage: 'https://stripe.com/',
  displayApiUrl: 'https://api.stripe.com/v1',
  companyName: 'Stripe',
  // Without multicapture a Stripe capture is final: the uncaptured rest is released.
  capturesAreFinal: true,
  // One host for test and live: the key (sk_test_… or sk_live_…) picks the mode.
  endpoint: () => 'https://api.stripe.com',
  scrub: scrubStripe,
  features: ['supports_purchase_via_preauthorization', 'supports_populate_mit_fields'],
  inquire: inquireIntent,
  operations: {
    purchase: chargeCard,
    authorize: chargeCard,
    capture: async (call) => {
      const reply = await stripeCall(call, 'POST', `/v1/payment_intents/${referenceId(call.request)}/capture`, { amount_to_capture: call.request.amount, expand: ['latest_charge'] });
      return intentOutcome(reply, 'Transaction captured', SUCCESS.capture);
    },
    // A pending verification is a SetupIntent; everything else a PaymentIntent.
    complete: async (call) => {
      if (call.request.reference?.transactionType === 'Verification') {
        const reply = await stripeCall(call, 'GET', `/v1/setup_intents/${referenceId(call.request)}`, {});
        return intentOutcome(reply, 'Card verified', ['succeeded']);
      }
      const reply = await stripeCall(call, 'GET', `/v1/payment_intents/${referenceId(call.request)}`, { expand: ['latest_charge'] });
      return intentOutcome(reply, 'Transaction approved', SUCCESS.complete);
    },
    void: async (call) => intentOutcome(await stripeCall(call, 'POST', `/v1/payment_intents/${referenceId(call.request)}/cancel`, {}), 'Transaction voided', SUCCESS.void),
    credit: async (call) => {
      const { request } = call;
      const reply = await stripeCall(call, 'POST', '/v1/refunds', {
        payment_intent: referenceId(request),
        amount: request.amount,
        metadata: request.orderId === null ? undefined : { order_id: request.orderId },
      });
      if (reply.json.error !== undefined) return declineResponse(reply.json.error);
      const ok = reply.json.status === 'succeeded' || reply.json.status === 'pending';
      return { ...blankResponse(ok, ok ? 'Transaction refunded' : `Refund is ${String(reply.json.status)}`), gatewayTransactionId: reply.json.id ?? null };
    },
    verify: async (call) => {
      const method = call.request.paymentMethod;
      const reply = await stripeCall(call, 'POST', '/v1/setup_intents', {
        confirm: true,
        usage: 'off_session',
        payment_method_types: ['card'],
        payment_method_data: paymentMethodData(method),
        ...paymentMethodReference(method),
      });
      if (reply.json.error !== undefined) return declineResponse(reply.json.error);
      const ok = reply.json.status === 'succeeded';
      return { ...blankResponse(ok, ok ? 'Card verified' : `Setup intent is ${String(reply.json.status)}`), gatewayTransactionId: reply.json.id ?? null, pending: reply.json.status === 'requires_action' };
    },
    store: async (call) => {
      const method = await stripeCall(call, 'POST', '/v1/payment_methods', paymentMethodData(call.request.paymentMethod) as Record<string, FormValue>);
      if (method.json.error !== undefined) return declineResponse(method.json.error);
      const customer = await stripeCall(call, 'POST', '/v1/customers', { payment_method: method.json.id, email: call.request.email }, '-customer');
      if (customer.json.error !== undefined) return declineResponse(customer.json.error);
      return { ...blankResponse(true, 'Card stored'), gatewayTransactionId: customer.json.id ?? null, thirdPartyToken: `${String(customer.json.id)}|${String(method.json.id)}` };
    },
  },
});
