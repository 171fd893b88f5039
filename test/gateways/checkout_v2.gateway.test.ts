import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { checkoutV2Gateway, CHECKOUT_LIVE_BASE, CHECKOUT_TEST_BASE } from '../../src/gateways/checkout_v2.gateway.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { googlePanOnly, WALLET_CRYPTOGRAM, walletMethod } from '../helpers/wallet-methods.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the Checkout.com module (unified payments API). The answers follow the
 * examples of Checkout.com's API reference (Request a payment 201/202/422, Capture/Refund/Void a
 * payment 202, 401 with an empty body) and its "Response codes" page, served by a local HTTP server.
 */

const SECRET = 'sk_sbox_m73dzbpy7cf3gfd46xr4yj5xo4e';
const PAN = '4242424242424242';
const CVV = '100';
const CREDENTIALS = { secret_key: SECRET };

const AUTHORIZED = {
  id: 'pay_mbabizu24mvu3mela5njyhpit4',
  action_id: 'act_mbabizu24mvu3mela5njyhpit4',
  amount: 1999,
  currency: 'EUR',
  approved: true,
  status: 'Authorized',
  auth_code: '770687',
  response_code: '10000',
  response_summary: 'Approved',
  source: { type: 'card', id: 'src_nwd3m4in3hkuddfpjsaevunhdy', expiry_month: 3, expiry_year: 2030, scheme: 'VISA', last4: '4242', bin: '424242', avs_check: 'S', cvv_check: 'Y' },
  processed_on: '2019-09-10T10:11:12Z',
  reference: 'ORD-5023-4E89',
  scheme_id: '489341065491658',
  risk: { flagged: false },
  _links: { self: { href: 'https://api.sandbox.checkout.com/payments/pay_mbabizu24mvu3mela5njyhpit4' } },
};
const declined = (code: string, summary: string) => ({ ...AUTHORIZED, approved: false, status: 'Declined', response_code: code, response_summary: summary, auth_code: undefined });
const ACCEPTED = { action_id: 'act_y3oqhf46pyzuxjbcn2giaqnb44', reference: 'ORD-5023-4E89', _links: { payment: { href: 'https://api.sandbox.checkout.com/payments/pay_mbabizu24mvu3mela5njyhpit4' } } };

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let next: FakeAnswer = { status: 201, json: AUTHORIZED };

async function run(request: GatewayRequest, override = fake.url): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest }> {
  const transcript: TranscriptEntry[] = [];
  const response = await executeOperation(checkoutV2Gateway, request, transcript, { http, override, timeoutMs: 3000 });
  return { response, transcript, sent: fake.requests[fake.requests.length - 1] as FakeRequest };
}

async function fault(request: GatewayRequest, timeoutMs = 3000, override = fake.url): Promise<unknown> {
  try {
    await executeOperation(checkoutV2Gateway, request, [], { http, override, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', CREDENTIALS, { paymentMethod: testCard(PAN, { cvc: CVV }), ...overrides });
const onPayment = (operation: 'capture' | 'credit' | 'void', id: string, overrides: Partial<GatewayRequest> = {}) =>
  gatewayRequest(operation, CREDENTIALS, { reference: { gatewayTransactionId: id, transactionType: 'Authorization', amount: 1000 }, ...overrides });

beforeAll(async () => {
  const answer = () => next;
  fake = await FakeGatewayServer.start([
    { method: 'POST', path: '/payments', handle: answer },
    { method: 'POST', path: /^\/payments\/([^/]+)\/(captures|refunds|voids)$/, handle: answer },
  ]);
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  next = { status: 201, json: AUTHORIZED };
});

describe('Checkout.com: purchase, authorize, verify, store', () => {
  it('sends a card source to POST /payments with Bearer auth, the transaction token as Cko-Idempotency-Key and capture true', async () => {
    const request = purchase({ orderId: 'order-42', email: 'ada@example.com', ip: '192.0.2.1', amount: 1999, gatewaySpecificFields: { processing_channel_id: 'pc_q4dbxom5jbgudnjzjpz7j2z6uq' } });
    const { response, sent } = await run(request);
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/payments');
    expect(sent.headers.authorization).toBe(`Bearer ${SECRET}`);
    expect(sent.headers['cko-idempotency-key']).toBe(request.transactionToken);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(jsonOf(sent)).toEqual({
      source: {
        type: 'card',
        number: PAN,
        expiry_month: 3,
        expiry_year: 2030,
        name: 'Ada Lovelace',
        cvv: CVV,
        billing_address: { address_line1: '12 St James Sq', city: 'London', zip: 'SW1Y 4JH', country: 'GB' },
      },
      amount: 1999,
      currency: 'EUR',
      reference: 'order-42',
      capture: true,
      customer: { email: 'ada@example.com' },
      payment_ip: '192.0.2.1',
      processing_channel_id: 'pc_q4dbxom5jbgudnjzjpz7j2z6uq',
    });
    expect(response).toMatchObject({
      success: true,
      message: 'Transaction approved',
      gatewayTransactionId: 'pay_mbabizu24mvu3mela5njyhpit4',
      networkTransactionId: '489341065491658',
      errorCode: null,
      avsCode: 'S',
      cvvCode: 'M',
      cvvMessage: 'Match',
      specificResponseFields: { checkout_v2: { status: 'Authorized', response_code: '10000', auth_code: '770687' } },
    });
  });

  it('authorizes with capture false; a key given with its Bearer prefix is sent as is; stored-credential fields', async () => {
    const request = gatewayRequest('authorize', { secret_key: `Bearer ${SECRET}` }, {
      paymentMethod: testCard(PAN, { cvc: null, address: false }),
      storedCredential: { initiator: 'merchant', reasonType: 'recurring', networkTransactionId: '489341065491658' },
    });
    const { response, sent } = await run(request);
    expect(sent.headers.authorization).toBe(`Bearer ${SECRET}`);
    const body = jsonOf(sent);
    expect(body).toMatchObject({ capture: false, reference: request.transactionToken, payment_type: 'Recurring', merchant_initiated: true, previous_payment_id: '489341065491658' });
    expect((body.source as Record<string, unknown>).cvv).toBeUndefined();
    expect((body.source as Record<string, unknown>).billing_address).toBeUndefined();
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized' });
  });

  it('sends JPY in whole yen, KWD in thousandths ending in 0, CLP in cents; refuses 1.001 KWD, sending nothing', async () => {
    for (const [currency, amount, sentAmount] of [['JPY', 1500, 1500], ['KWD', 1250, 1250], ['CLP', 990, 99000], ['USD', 1000, 1000]] as const) {
      const { sent } = await run(purchase({ amount, currencyCode: currency }));
      expect(jsonOf(sent)).toMatchObject({ amount: sentAmount, currency });
    }
    const before = fake.requests.length;
    const { response } = await run(purchase({ amount: 1001, currencyCode: 'KWD' }));
    expect(response).toMatchObject({ success: false, errorCode: 'invalid_amount' });
    expect(fake.requests.length).toBe(before);
  });

  it.each([
    ['20005', 'Declined - Do not honour', 'card_declined'],
    ['20051', 'Insufficient Funds', 'insufficient_funds'],
    ['20054', 'Expired Card', 'expired_card'],
    ['20014', 'Invalid account number (no such number)', 'invalid_number'],
    ['20087', 'Bad Track Data', 'incorrect_cvc'],
    ['30004', 'Pick up card (No fraud)', 'pickup_card'],
    ['20001', 'Refer to card issuer', 'call_issuer'],
    ['20099', 'Some other decline', 'card_declined'],
  ])('maps a Declined payment with response_code %s to its standard code', async (code, summary, standard) => {
    next = { status: 201, json: declined(code, summary) };
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, message: summary, errorCode: standard, errorDetail: `${code}: ${summary}`, gatewayTransactionId: AUTHORIZED.id });
  });

  it.each([
    [['card_number_invalid'], 'invalid_number'],
    [['cvv_invalid'], 'invalid_cvc'],
    [['card_expired'], 'expired_card'],
    [['card_expiry_month_invalid', 'cvv_invalid'], 'invalid_expiry_date'],
    [['payment_source_required'], 'processing_error'],
  ])('maps a 422 request_invalid with error_codes %j', async (codes, standard) => {
    next = { status: 422, json: { request_id: '0HL80RJLS76I7', error_type: 'request_invalid', error_codes: codes } };
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, errorCode: standard, message: `request_invalid: ${codes.join(', ')}` });
  });

  it('maps 401 (empty body) to config_error, 403 and 404 to processing_error', async () => {
    next = { status: 401, body: '' };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'config_error', errorDetail: 'HTTP 401' });
    next = { status: 403, body: '' };
    expect((await run(onPayment('capture', AUTHORIZED.id))).response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'Checkout.com does not allow this capture.' });
    next = { status: 404, body: '' };
    expect((await run(onPayment('void', 'pay_unknown'))).response).toMatchObject({ success: false, errorCode: 'processing_error' });
  });

  it('a 202 Pending with a 3-D Secure redirect is a failure; a Pending without one is an unknown outcome', async () => {
    next = { status: 202, json: { id: 'pay_pending1', status: 'Pending', reference: 'r', _links: { redirect: { href: 'https://3ds2-sandbox.ckotech.co/interceptor/x' } } } };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error', gatewayTransactionId: 'pay_pending1' });
    next = { status: 202, json: { id: 'pay_pending2', status: 'Pending' } };
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('verifies with an amount-0 card verification (Card Verified)', async () => {
    next = { status: 201, json: { ...AUTHORIZED, amount: 0, status: 'Card Verified' } };
    const { response, sent } = await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: testCard(PAN) }));
    const body = jsonOf(sent);
    expect(body).toMatchObject({ amount: 0, currency: 'EUR' });
    expect(body.capture).toBeUndefined();
    expect(response).toMatchObject({ success: true, message: 'Card verified' });
  });

  it('stores a card as its source id (src_...) from a card verification, then pays with source type id', async () => {
    next = { status: 201, json: { ...AUTHORIZED, amount: 0, status: 'Card Verified' } };
    const stored = await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) }));
    expect(stored.response).toMatchObject({ success: true, thirdPartyToken: 'src_nwd3m4in3hkuddfpjsaevunhdy' });
    expect(jsonOf(stored.sent).amount).toBe(0);
    next = { status: 201, json: AUTHORIZED };
    const paid = await run(purchase({ paymentMethod: { type: 'third_party_token', token: 'src_nwd3m4in3hkuddfpjsaevunhdy' } }));
    expect(jsonOf(paid.sent).source).toEqual({ type: 'id', id: 'src_nwd3m4in3hkuddfpjsaevunhdy' });
    expect(paid.response.success).toBe(true);
  });
});

describe('Checkout.com: wallet tokens (Apple Pay, Google Pay)', () => {
  it('sends an Apple Pay DPAN as a network_token source with token_type applepay, its cryptogram and two-digit ECI', async () => {
    const { response, sent, transcript } = await run(purchase({ paymentMethod: walletMethod(PAN) }));
    expect(response.success).toBe(true);
    expect(jsonOf(sent).source).toEqual({
      type: 'network_token',
      token: PAN,
      expiry_month: 12,
      expiry_year: 2034,
      token_type: 'applepay',
      cryptogram: WALLET_CRYPTOGRAM,
      eci: '07',
      name: 'Ada Lovelace',
    });
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(text).not.toContain(WALLET_CRYPTOGRAM);
    expect(text).not.toContain(PAN);
  });

  it('names Google Pay googlepay, leaves the cryptogram off a merchant-initiated charge, and sends PAN_ONLY as a card', async () => {
    const mit = jsonOf((await run(purchase({ paymentMethod: walletMethod(PAN, { type: 'google_pay' }), storedCredential: { initiator: 'merchant', reasonType: 'recurring', networkTransactionId: 'pay_1' } }))).sent);
    expect(mit.source).toEqual({ type: 'network_token', token: PAN, expiry_month: 12, expiry_year: 2034, token_type: 'googlepay', name: 'Ada Lovelace' });
    expect(mit).toMatchObject({ merchant_initiated: true, previous_payment_id: 'pay_1' });
    const card = jsonOf((await run(purchase({ paymentMethod: googlePanOnly(PAN) }))).sent);
    expect(card.source).toEqual({ type: 'card', number: PAN, expiry_month: 12, expiry_year: 2034, name: 'Ada Lovelace' });
  });
});

describe('Checkout.com: capture, refund, void', () => {
  it('captures part of a payment at /payments/{id}/captures and records payment#action', async () => {
    next = { status: 202, json: ACCEPTED };
    const request = onPayment('capture', AUTHORIZED.id, { amount: 600 });
    const { response, sent } = await run(request);
    expect(sent.path).toBe(`/payments/${AUTHORIZED.id}/captures`);
    expect(sent.headers['cko-idempotency-key']).toBe(request.transactionToken);
    expect(jsonOf(sent)).toEqual({ reference: request.transactionToken, amount: 600 });
    expect(response).toMatchObject({ success: true, message: 'Capture accepted', gatewayTransactionId: `${AUTHORIZED.id}#${ACCEPTED.action_id}` });
  });

  it("refunds a capture through its payment's id; voids without an amount", async () => {
    next = { status: 202, json: ACCEPTED };
    const refund = await run(onPayment('credit', `${AUTHORIZED.id}#act_capture1`, { amount: 250, orderId: 'order-9' }));
    expect(refund.sent.path).toBe(`/payments/${AUTHORIZED.id}/refunds`);
    expect(jsonOf(refund.sent)).toEqual({ reference: 'order-9', amount: 250 });
    expect(refund.response).toMatchObject({ success: true, message: 'Refund accepted' });
    const voided = await run(onPayment('void', AUTHORIZED.id, { amount: null }));
    expect(voided.sent.path).toBe(`/payments/${AUTHORIZED.id}/voids`);
    expect(jsonOf(voided.sent)).toEqual({ reference: expect.any(String) });
    expect(voided.response).toMatchObject({ success: true, message: 'Void accepted' });
  });
});

describe('Checkout.com: answers that are not answers', () => {
  it('a 5xx, garbage, a reset connection, a 422 without error_type and a payment without status are faults', async () => {
    fake.setMode('error500');
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    fake.setMode('garbage');
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    fake.setMode('normal');
    next = { status: 422, json: { request_id: 'x' } };
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    next = { status: 201, json: { id: 'pay_x', approved: true } };
    const missing = await fault(purchase());
    expect(missing).toBeInstanceOf(GatewayFaultError);
    expect((missing as GatewayFaultError).detail).toContain('status');
    next = { status: 202, json: { reference: 'r' } };
    expect(await fault(onPayment('capture', AUTHORIZED.id))).toBeInstanceOf(GatewayFaultError);
  });

  it('another status (409), a store answer without source.id, and a refused connection are faults', async () => {
    next = { status: 409, json: { error_type: 'conflict' } };
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    next = { status: 201, json: { ...AUTHORIZED, status: 'Card Verified', source: { type: 'card' } } };
    const noSource = await fault(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) }));
    expect((noSource as GatewayFaultError).detail).toContain('source.id');
    expect(await fault(purchase(), 3000, 'http://127.0.0.1:1')).toBeInstanceOf(GatewayFaultError);
  });

  it('refuses what it cannot send (no card, a stored card to store, no reference) before sending', async () => {
    const before = fake.requests.length;
    expect((await run(purchase({ paymentMethod: null }))).response).toMatchObject({ success: false, errorCode: 'unsupported_feature' });
    expect((await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: { type: 'third_party_token', token: 'src_x' } }))).response).toMatchObject({ success: false, errorCode: 'unsupported_feature' });
    expect((await run(gatewayRequest('verify', {}, { paymentMethod: testCard(PAN) }))).response).toMatchObject({ success: false, errorCode: 'config_error' });
    expect(fake.requests.length).toBe(before);
  });

  it('ignores unknown fields in an answer', async () => {
    next = { status: 201, json: { ...AUTHORIZED, brand_new_field: { nested: [1, 2] } } };
    expect((await run(purchase())).response.success).toBe(true);
  });

  it('a timeout is a GatewayResultUnknownError', async () => {
    fake.setMode('hang');
    expect(await fault(purchase(), 300)).toBeInstanceOf(GatewayResultUnknownError);
  });
});

describe('Checkout.com: endpoints, definition and scrubbing', () => {
  it('uses the sandbox in test mode and api.checkout.com live', () => {
    expect(checkoutV2Gateway.endpoint?.(purchase())).toBe(CHECKOUT_TEST_BASE);
    expect(checkoutV2Gateway.endpoint?.(purchase({ testMode: false }))).toBe(CHECKOUT_LIVE_BASE);
  });

  it('advertises what it implements under the Spreedly gateway_type and credential names', () => {
    const definition = checkoutV2Gateway.definition;
    expect(definition.gatewayType).toBe('checkout_v2');
    expect(definition.authModes[0]?.credentials.map((field) => field.name)).toEqual(['secret_key', 'public_key']);
    expect([...definition.characteristics].sort()).toEqual(['supports_authorize', 'supports_capture', 'supports_credit', 'supports_purchase', 'supports_store', 'supports_verify', 'supports_void']);
  });

  it('keeps no PAN, CVV, expiry or secret key in the transcript', async () => {
    const { transcript } = await run(purchase());
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(text).toContain('POST');
    expect(text).toMatch(/authorization: \[FILTERED\]/i);
    expect(text).not.toContain(PAN);
    expect(text).not.toContain(SECRET);
    expect(text).not.toMatch(/"cvv"\s*:\s*"100"/);
    expect(findCardData(text)).toEqual([]);
  });
});
