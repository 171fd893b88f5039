import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { mercadoPagoGateway, MERCADO_PAGO_BASE } from '../../src/gateways/mercado_pago.gateway.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type AdapterPaymentMethod, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the Mercado Pago module (Payments API v1). The answers follow the
 * examples of Mercado Pago's API reference ("Create card token" 201, "Create payment" 201, "Update
 * payment" 200, "Create refund" 201, the 400/401 error bodies) and its "Test cards" page
 * (status_detail per cardholder name), served by a local HTTP server.
 */

const ACCESS_TOKEN = 'TEST-2940563178923455-112321-8c3c4a0b1f2e9d7a6b5c4d3e2f1a0b9c-123456789';
const PAN = '5031433215406351'; // Mercado Pago's documented Mastercard test card
const CREDENTIALS = { access_token: ACCESS_TOKEN };

const CARD_TOKEN_201 = {
  id: 'ff8080814c11e237014c1ff593b57b4d',
  public_key: 'TEST-b3d5b663-664a-4e8f-b759-de5d7c12ef8f',
  first_six_digits: '503143',
  expiration_month: 3,
  expiration_year: 2030,
  last_four_digits: '6351',
  cardholder: { identification: { number: '12345678', type: 'DNI' }, name: 'APRO' },
  status: 'active',
  date_created: '2026-11-23T10:46:45.000-04:00',
  luhn_validation: true,
  live_mode: false,
  card_number_length: 16,
  security_code_length: 3,
};
const PAYMENT_201 = {
  id: 20359978,
  date_created: '2026-11-23T10:46:46.000-04:00',
  date_approved: '2026-11-23T10:46:46.000-04:00',
  payment_method_id: 'master',
  payment_type_id: 'credit_card',
  status: 'approved',
  status_detail: 'accredited',
  currency_id: 'BRL',
  description: 'Tea',
  captured: true,
  binary_mode: true,
  authorization_code: '301299',
  transaction_amount: 19.99,
  installments: 1,
  card: { first_six_digits: '503143', last_four_digits: '6351', expiration_month: 3, expiration_year: 2030 },
};
const REFUND_201 = { id: 1009042015, payment_id: 20359978, amount: 5, source: { id: '123', name: 'Coffer', type: 'collector' }, date_created: '2026-11-23T10:50:00.000-04:00', status: 'approved' };
const ERROR_400 = { message: 'invalid parameter cardNumber', error: 'bad_request', status: 400, cause: [{ code: 'E301', description: 'invalid parameter cardNumber' }] };
const CUSTOMER_201 = { id: '470183340-cuBGiyzbNwhOJr', email: 'ada@example.com', first_name: null, date_created: '2026-11-23T10:55:00.000-04:00', cards: [] };
const CUSTOMER_CARD_201 = { id: '1562188766852', customer_id: '470183340-cuBGiyzbNwhOJr', expiration_month: 3, expiration_year: 2030, first_six_digits: '503143', last_four_digits: '6351', payment_method: { id: 'master', name: 'Mastercard', payment_type_id: 'credit_card' }, issuer: { id: 24, name: 'Mastercard' } };
const ERROR_401 = { message: 'invalid access token', error: 'unauthorized', status: 401, cause: [] };

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let tokenAnswer: FakeAnswer;
let next: FakeAnswer;
let customerAnswer: FakeAnswer;
let searchAnswer: FakeAnswer;
let cardAnswer: FakeAnswer;

async function run(request: GatewayRequest, timeoutMs = 3000): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest[] }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(mercadoPagoGateway, request, transcript, { http, override: fake.url, timeoutMs });
  return { response, transcript, sent: fake.requests.slice(before) };
}

async function fault(request: GatewayRequest, override = fake.url, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(mercadoPagoGateway, request, [], { http, override, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

type CreditCard = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;
const card = (overrides: Partial<CreditCard> = {}): CreditCard => ({ ...(testCard(PAN) as CreditCard), ...overrides });
const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', CREDENTIALS, { paymentMethod: card({ cardType: 'master' }), currencyCode: 'BRL', email: 'ada@example.com', ...overrides });
const reference = (id: string) => ({ gatewayTransactionId: id, transactionType: 'Authorization', amount: 1999 });

beforeAll(async () => {
  fake = await FakeGatewayServer.start([
    { method: 'POST', path: '/v1/card_tokens', handle: () => tokenAnswer },
    { method: 'POST', path: '/v1/payments', handle: () => next },
    { method: 'PUT', path: /^\/v1\/payments\/([^/]+)$/, handle: () => next },
    { method: 'POST', path: /^\/v1\/payments\/([^/]+)\/refunds$/, handle: () => next },
    { method: 'POST', path: '/v1/customers', handle: () => customerAnswer },
    { method: 'GET', path: '/v1/customers/search', handle: () => searchAnswer },
    { method: 'POST', path: /^\/v1\/customers\/([^/]+)\/cards$/, handle: () => cardAnswer },
  ]);
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  tokenAnswer = { status: 201, json: CARD_TOKEN_201 };
  next = { status: 201, json: PAYMENT_201 };
  customerAnswer = { status: 201, json: CUSTOMER_201 };
  searchAnswer = { json: { paging: { limit: 10, offset: 0, total: 1 }, results: [CUSTOMER_201] } };
  cardAnswer = { status: 201, json: CUSTOMER_CARD_201 };
});

describe('Mercado Pago: purchase and authorize', () => {
  it('tokenizes the card at POST /v1/card_tokens, then pays with the token at POST /v1/payments (Bearer, X-Idempotency-Key)', async () => {
    const request = purchase({ amount: 1999, orderId: 'order-7', description: 'Tea', gatewaySpecificFields: { cardholder_identification_type: 'CPF', cardholder_identification_number: '19119119100', installments: '3' } });
    const { response, sent } = await run(request);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/card_tokens', 'POST /v1/payments']);
    const [tokenCall, payCall] = sent as [FakeRequest, FakeRequest];
    expect(tokenCall.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(jsonOf(tokenCall)).toEqual({
      card_number: PAN,
      expiration_month: 3,
      expiration_year: 2030,
      security_code: '737',
      cardholder: { name: 'Ada Lovelace', identification: { type: 'CPF', number: '19119119100' } },
    });
    expect(payCall.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(payCall.headers['x-idempotency-key']).toBe(request.transactionToken);
    expect(payCall.headers['content-type']).toBe('application/json');
    expect(jsonOf(payCall)).toEqual({
      transaction_amount: 19.99,
      token: CARD_TOKEN_201.id,
      description: 'Tea',
      installments: 3,
      payment_method_id: 'master',
      payer: { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', identification: { type: 'CPF', number: '19119119100' } },
      external_reference: 'order-7',
      binary_mode: true,
      capture: true,
    });
    expect(response).toMatchObject({
      success: true,
      message: 'Transaction approved',
      gatewayTransactionId: '20359978',
      errorCode: null,
      avsCode: null,
      cvvCode: null,
      specificResponseFields: { mercado_pago: { status: 'approved', status_detail: 'accredited', authorization_code: '301299' } },
    });
  });

  it('authorizes with capture false and succeeds on status authorized', async () => {
    next = { status: 201, json: { ...PAYMENT_201, status: 'authorized', status_detail: 'pending_capture', captured: false } };
    const { response, sent } = await run(gatewayRequest('authorize', CREDENTIALS, { paymentMethod: testCard(PAN), gatewaySpecificFields: { payment_method_id: 'debmaster' } }));
    expect(jsonOf(sent[1] as FakeRequest)).toMatchObject({ capture: false, payment_method_id: 'debmaster', installments: 1 });
    expect(jsonOf(sent[0] as FakeRequest)).toEqual(expect.objectContaining({ cardholder: { name: 'Ada Lovelace' } }));
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized', gatewayTransactionId: '20359978' });
  });

  it('sends transaction_amount in the currency’s major unit: CLP has no decimals, KWD three', async () => {
    expect(jsonOf((await run(purchase({ amount: 1500, currencyCode: 'CLP' }))).sent[1] as FakeRequest).transaction_amount).toBe(1500);
    expect(jsonOf((await run(purchase({ amount: 1234, currencyCode: 'KWD' }))).sent[1] as FakeRequest).transaction_amount).toBe(1.234);
    expect(jsonOf((await run(purchase({ amount: 100, currencyCode: 'BRL' }))).sent[1] as FakeRequest).transaction_amount).toBe(1);
  });

  it.each([
    ['cc_rejected_bad_filled_card_number', 'incorrect_number'],
    ['cc_rejected_bad_filled_date', 'invalid_expiry_date'],
    ['cc_rejected_bad_filled_security_code', 'incorrect_cvc'],
    ['cc_rejected_insufficient_amount', 'insufficient_funds'],
    ['cc_rejected_call_for_authorize', 'call_issuer'],
    ['cc_rejected_card_disabled', 'call_issuer'],
    ['cc_rejected_high_risk', 'card_declined'],
    ['cc_rejected_other_reason', 'card_declined'],
    ['cc_rejected_something_new', 'card_declined'],
  ])('maps a rejection with status_detail %s to %s', async (detail, code) => {
    next = { status: 201, json: { ...PAYMENT_201, status: 'rejected', status_detail: detail, authorization_code: null } };
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, message: detail, errorCode: code, errorDetail: `rejected: ${detail}`, gatewayTransactionId: '20359978' });
  });

  it('treats pending and in_process as an unknown outcome (the money may still move)', async () => {
    next = { status: 201, json: { ...PAYMENT_201, status: 'in_process', status_detail: 'pending_contingency' } };
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('maps a card token refusal (400 with cause E301) to invalid_number without calling /v1/payments', async () => {
    tokenAnswer = { status: 400, json: ERROR_400 };
    const { response, sent } = await run(purchase());
    expect(sent).toHaveLength(1);
    expect(response).toMatchObject({ success: false, errorCode: 'invalid_number', message: 'invalid parameter cardNumber', errorDetail: 'E301: bad_request: invalid parameter cardNumber' });
    tokenAnswer = { status: 400, json: { ...ERROR_400, cause: [{ code: 'E302', description: 'invalid parameter securityCode' }] } };
    expect((await run(purchase())).response.errorCode).toBe('invalid_cvc');
    tokenAnswer = { status: 400, json: { ...ERROR_400, cause: [{ code: 325, description: 'invalid parameter cardExpirationMonth' }] } };
    expect((await run(purchase())).response.errorCode).toBe('invalid_expiry_date');
  });

  it('maps 401 to config_error', async () => {
    tokenAnswer = { status: 401, json: ERROR_401 };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'config_error', message: 'invalid access token' });
  });

  it('refuses a card without an expiry or a non-card payment method, sending nothing', async () => {
    const before = fake.requests.length;
    expect((await run(purchase({ paymentMethod: card({ month: null }) }))).response).toMatchObject({ success: false, errorCode: 'invalid_expiry_date' });
    expect((await run(purchase({ paymentMethod: { type: 'third_party_token', token: 'x' } }))).response).toMatchObject({ success: false, errorCode: 'invalid_number' });
    expect(fake.requests.length).toBe(before);
  });
});

describe('Mercado Pago: capture, void, credit', () => {
  it('captures part of an authorization with PUT /v1/payments/{id}', async () => {
    next = { json: { ...PAYMENT_201, status: 'approved', status_detail: 'accredited', captured: true, transaction_amount: 15 } };
    const request = gatewayRequest('capture', CREDENTIALS, { amount: 1500, currencyCode: 'BRL', reference: reference('20359978') });
    const { response, sent } = await run(request);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({ method: 'PUT', path: '/v1/payments/20359978' });
    expect(sent[0]?.headers['x-idempotency-key']).toBe(request.transactionToken);
    expect(jsonOf(sent[0] as FakeRequest)).toEqual({ capture: true, transaction_amount: 15 });
    expect(response).toMatchObject({ success: true, message: 'Transaction captured', gatewayTransactionId: '20359978' });
  });

  it('voids with PUT /v1/payments/{id} status cancelled; a payment that cannot be cancelled is a failure', async () => {
    next = { json: { ...PAYMENT_201, status: 'cancelled', status_detail: 'by_collector' } };
    const { response, sent } = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('20359978') }));
    expect(sent[0]).toMatchObject({ method: 'PUT', path: '/v1/payments/20359978' });
    expect(jsonOf(sent[0] as FakeRequest)).toEqual({ status: 'cancelled' });
    expect(response).toMatchObject({ success: true, message: 'Transaction cancelled' });
    next = { status: 400, json: { message: 'Invalid status update', error: 'bad_request', status: 400, cause: [{ code: 3040, description: 'Invalid status update' }] } };
    expect((await run(gatewayRequest('void', CREDENTIALS, { reference: reference('20359978') }))).response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'Invalid status update' });
  });

  it('refunds part with POST /v1/payments/{id}/refunds and the amount', async () => {
    next = { status: 201, json: REFUND_201 };
    const request = gatewayRequest('credit', CREDENTIALS, { amount: 500, currencyCode: 'BRL', reference: reference('20359978') });
    const { response, sent } = await run(request);
    expect(sent[0]).toMatchObject({ method: 'POST', path: '/v1/payments/20359978/refunds' });
    expect(sent[0]?.headers['x-idempotency-key']).toBe(request.transactionToken);
    expect(jsonOf(sent[0] as FakeRequest)).toEqual({ amount: 5 });
    expect(response).toMatchObject({ success: true, message: 'Refund approved', gatewayTransactionId: '1009042015', specificResponseFields: { mercado_pago: { refund_id: '1009042015', payment_id: '20359978' } } });
  });

  it('stores a card: card token, POST /v1/customers with the email, POST /v1/customers/{id}/cards with the token', async () => {
    const request = gatewayRequest('store', CREDENTIALS, { paymentMethod: card({ cardType: 'master' }), email: 'ada@example.com' });
    const { response, sent } = await run(request);
    expect(sent.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/card_tokens', 'POST /v1/customers', 'POST /v1/customers/470183340-cuBGiyzbNwhOJr/cards']);
    expect(jsonOf(sent[1] as FakeRequest)).toEqual({ email: 'ada@example.com' });
    expect(jsonOf(sent[2] as FakeRequest)).toEqual({ token: CARD_TOKEN_201.id });
    expect(sent[2]?.headers['x-idempotency-key']).toBe(request.transactionToken);
    expect(response).toMatchObject({ success: true, message: 'Card stored', gatewayTransactionId: '1562188766852', thirdPartyToken: '470183340-cuBGiyzbNwhOJr|1562188766852|master' });
  });

  it('finds the customer by email when Mercado Pago already has one (cause 101), or uses the given customer_id', async () => {
    customerAnswer = { status: 400, json: { message: 'the customer already exist', error: 'bad_request', status: 400, cause: [{ code: '101', description: 'the customer already exist' }] } };
    const found = await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: card(), email: 'ada@example.com' }));
    expect(found.sent.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/card_tokens', 'POST /v1/customers', 'GET /v1/customers/search', 'POST /v1/customers/470183340-cuBGiyzbNwhOJr/cards']);
    expect(found.sent[2]?.query.get('email')).toBe('ada@example.com');
    expect(found.response.success).toBe(true);
    const given = await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: card(), gatewaySpecificFields: { customer_id: 'cust-9' } }));
    expect(given.sent.map((r) => r.path)).toEqual(['/v1/card_tokens', '/v1/customers/cust-9/cards']);
    customerAnswer = { status: 400, json: { message: 'invalid email', error: 'bad_request', status: 400, cause: [{ code: '100', description: 'invalid email' }] } };
    expect((await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: card(), email: 'x' }))).response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'invalid email' });
  });

  it('pays with a stored card: a card token from card_id, then the payment with payer type customer', async () => {
    const request = purchase({ paymentMethod: { type: 'third_party_token', token: '470183340-cuBGiyzbNwhOJr|1562188766852|master' } });
    const { response, sent } = await run(request);
    expect(jsonOf(sent[0] as FakeRequest)).toEqual({ card_id: '1562188766852' });
    expect(jsonOf(sent[1] as FakeRequest)).toMatchObject({ token: CARD_TOKEN_201.id, payment_method_id: 'master', payer: { type: 'customer', id: '470183340-cuBGiyzbNwhOJr', email: 'ada@example.com' } });
    expect(sent[1]?.rawBody).not.toContain('card_number');
    expect(response.success).toBe(true);
    expect((await run(purchase({ paymentMethod: { type: 'third_party_token', token: 'nothing' } }))).response).toMatchObject({ success: false, errorCode: 'invalid_number' });
  });

  it('advertises only what it implements, under Spreedly’s gateway_type and credential names', () => {
    const { definition } = mercadoPagoGateway;
    expect(definition.gatewayType).toBe('mercado_pago');
    expect([...definition.characteristics].sort()).toEqual(['supports_authorize', 'supports_capture', 'supports_credit', 'supports_purchase', 'supports_store', 'supports_void']);
    expect(definition.authModes[0]?.credentials.map((field) => field.name)).toEqual(['access_token', 'country']);
    expect(mercadoPagoGateway.endpoint?.(purchase())).toBe(MERCADO_PAGO_BASE);
    expect(mercadoPagoGateway.endpoint?.(purchase({ testMode: false }))).toBe(MERCADO_PAGO_BASE);
  });
});

describe('Mercado Pago: answers that are not answers', () => {
  it('a 5xx is a GatewayFaultError; garbage and a 4xx without an error body are faults', async () => {
    next = { status: 500, json: { message: 'internal_error', error: 'internal_error', status: 500, cause: [] } };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 500' });
    next = { status: 404, body: 'Not Found' };
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    fake.setMode('garbage');
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
  });

  it('a payment answer without a status, or a token answer without an id, is a fault naming the field', async () => {
    next = { status: 201, json: { id: 1 } };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('status') });
    tokenAnswer = { status: 201, json: { status: 'active' } };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('id') });
  });

  it('a timeout is a GatewayResultUnknownError; a refused connection a GatewayFaultError', async () => {
    fake.setMode('hang');
    expect(await fault(purchase(), fake.url, 300)).toBeInstanceOf(GatewayResultUnknownError);
    fake.setMode('normal');
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    expect(await fault(purchase(), `http://127.0.0.1:${port}`)).toMatchObject({ name: 'GatewayFaultError', detail: 'ECONNREFUSED' });
  });
});

describe('Mercado Pago: scrubbing', () => {
  it('keeps no PAN, security code, expiry or access token in the transcript', async () => {
    tokenAnswer = { status: 201, json: { ...CARD_TOKEN_201, card_number: PAN } };
    const { transcript } = await run(purchase());
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(findCardData(text, [PAN])).toEqual([]);
    expect(text).not.toContain(ACCESS_TOKEN);
    expect(text).not.toMatch(/"security_code"\s*:\s*"737"/);
    expect(text).not.toMatch(/"expiration_month"\s*:\s*3/);
    expect(text).toContain('authorization: Bearer [FILTERED]');
    expect(text).toContain(`POST ${fake.url}/v1/card_tokens`);
    expect(text).toContain('"status":"approved"');
  });
});
