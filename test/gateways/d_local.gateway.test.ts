import { createHmac } from 'node:crypto';
import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { dLocalGateway, D_LOCAL_LIVE_BASE, D_LOCAL_TEST_BASE } from '../../src/gateways/d_local.gateway.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type AdapterPaymentMethod, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the dLocal module (Payins API, X-Version 2.1). The answers are the
 * examples of dLocal's public reference ("Authorization and capture": AUTHORIZED 600 and the
 * capture's PAID 200; "Create a payment" PAID; "Cancel a payment" CANCELLED 400; "Create a refund";
 * "Payment status codes" for REJECTED 3xx; "Error codes" bodies), served by a local HTTP server.
 * Signatures are recomputed here from dLocal's documented recipe, independently of the module.
 */

const LOGIN = 'sak223k2wdksdl2';
const TRANS_KEY = 'fm12O7G9-transkey-secret';
const SECRET_KEY = 'DLocalSecretKey-1234567890abcdef';
const CREDENTIALS = { login: LOGIN, trans_key: TRANS_KEY, secret_key: SECRET_KEY };
const PAN = '4111111111111111';

const AUTHORIZED = {
  id: 'D-4-e2227981-8ec8-48fd-8e9a-19fedb08d73a',
  amount: 120,
  currency: 'USD',
  payment_method_id: 'CARD',
  payment_method_type: 'CARD',
  payment_method_flow: 'DIRECT',
  country: 'BR',
  card: { holder_name: 'Thiago Gabriel', expiration_month: 10, expiration_year: 2040, brand: 'VI', last4: '1111' },
  created_date: '2019-02-06T21:04:43.000+0000',
  approved_date: '2019-02-06T21:04:44.000+0000',
  status: 'AUTHORIZED',
  status_detail: 'The payment was authorized',
  status_code: '600',
  order_id: '657434343',
};
const PAID = { ...AUTHORIZED, id: 'D-4-cf8cd0d2-b6ab-4d8d-b7a4-ab9a3ac3dc4a', status: 'PAID', status_detail: 'The payment was paid.', status_code: '200', card: { ...AUTHORIZED.card, network_tx_reference: 'MCC000000355' } };
const REJECTED = { ...AUTHORIZED, status: 'REJECTED', status_detail: 'The payment was rejected.', status_code: '300' };
const CANCELLED = { ...AUTHORIZED, status: 'CANCELLED', status_detail: 'The payment was cancelled.', status_code: '400' };
const REFUND = { id: 'REF-15-a7a5ab5a-1c6a-4e6b-9b3a-4fb8b2c0b1d5', payment_id: PAID.id, status: 'SUCCESS', currency: 'USD', created_date: '2019-02-06T21:10:00.000+0000', amount: 50, status_code: 200, status_detail: 'The refund was paid.', amount_refunded: 50 };
const INVALID_CREDENTIALS = { code: 3001, message: 'Invalid credentials.' };
const INVALID_PARAM = { code: 5001, message: 'Invalid parameter', param: 'card.number' };

/** dLocal's documented recipe: hex HMAC-SHA256 under the secret key of X-Login + X-Date + body. */
function expectedSignature(secret: string, date: string, body: string): string {
  return `V2-HMAC-SHA256, Signature: ${createHmac('sha256', secret).update(LOGIN + date + body).digest('hex')}`;
}

/** An answer signed as dLocal signs messages (Authorization and X-Date headers). */
function signed(answer: FakeAnswer, secret = SECRET_KEY): FakeAnswer {
  const body = JSON.stringify(answer.json);
  const date = '2026-11-23T21:40:00.000Z';
  return { status: answer.status ?? 200, body, contentType: 'application/json', headers: { 'x-date': date, authorization: expectedSignature(secret, date, body) } };
}

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let next: FakeAnswer;

async function run(request: GatewayRequest, timeoutMs = 3000): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(dLocalGateway, request, transcript, { http, override: fake.url, timeoutMs });
  expect(fake.requests.length - before).toBeLessThanOrEqual(1);
  return { response, transcript, sent: fake.requests[fake.requests.length - 1] as FakeRequest };
}

async function fault(request: GatewayRequest, override = fake.url, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(dLocalGateway, request, [], { http, override, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

type CreditCard = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;
const card = (overrides: Partial<CreditCard> = {}): CreditCard => ({ ...(testCard(PAN) as CreditCard), ...overrides });
const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD', amount: 12000, ...overrides });
const reference = (id: string) => ({ gatewayTransactionId: id, transactionType: 'Authorization', amount: 12000 });

beforeAll(async () => {
  fake = await FakeGatewayServer.start([
    { method: 'POST', path: '/secure_payments', handle: () => next },
    { method: 'POST', path: '/payments', handle: () => next },
    { method: 'POST', path: /^\/payments\/([^/]+)\/cancel$/, handle: () => next },
    { method: 'POST', path: '/refunds', handle: () => next },
    { method: 'POST', path: '/secure_cards', handle: () => next },
  ]);
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  next = { json: PAID };
});

describe('dLocal: signed requests', () => {
  it('purchases at POST /secure_payments with every documented header and a signature that recomputes', async () => {
    const request = purchase({ orderId: 'order-9', email: 'ada@example.com', ip: '192.0.2.1', description: 'Tea', gatewaySpecificFields: { document: '53033315550', country: 'BR' } });
    const { response, sent } = await run(request);
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/secure_payments');
    expect(sent.headers['content-type']).toBe('application/json');
    expect(sent.headers['x-login']).toBe(LOGIN);
    expect(sent.headers['x-trans-key']).toBe(TRANS_KEY);
    expect(sent.headers['x-version']).toBe('2.1');
    expect(sent.headers['x-idempotency-key']).toBe(request.transactionToken);
    const date = sent.headers['x-date'] as string;
    expect(date).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(Math.abs(Date.parse(date) - Date.now())).toBeLessThan(60_000);
    expect(sent.headers.authorization).toBe(expectedSignature(SECRET_KEY, date, sent.rawBody));
    expect(jsonOf(sent)).toEqual({
      amount: 120,
      currency: 'USD',
      country: 'BR',
      payment_method_id: 'CARD',
      payment_method_flow: 'DIRECT',
      payer: { name: 'Ada Lovelace', email: 'ada@example.com', document: '53033315550', ip: '192.0.2.1', address: { city: 'London', zip_code: 'SW1Y 4JH', street: '12 St James Sq' } },
      card: { holder_name: 'Ada Lovelace', number: PAN, cvv: '737', expiration_month: 3, expiration_year: 2030, capture: true },
      order_id: 'order-9',
      description: 'Tea',
    });
    expect(response).toMatchObject({
      success: true,
      message: 'Transaction approved',
      gatewayTransactionId: PAID.id,
      errorCode: null,
      avsCode: null,
      cvvCode: null,
      specificResponseFields: { d_local: { status: 'PAID', status_code: '200', network_tx_reference: 'MCC000000355' } },
    });
  });

  it('authorizes with capture false (country from the billing address) and succeeds on AUTHORIZED 600', async () => {
    next = { json: AUTHORIZED };
    const { response, sent } = await run(gatewayRequest('authorize', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD', amount: 12000 }));
    expect(jsonOf(sent)).toMatchObject({ country: 'GB', card: { capture: false }, order_id: expect.any(String) });
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized', gatewayTransactionId: AUTHORIZED.id });
  });

  it('verifies with a zero amount and card.verify', async () => {
    next = { json: { ...AUTHORIZED, amount: 0, status: 'VERIFIED', status_code: '700', status_detail: 'The payment was verified.' } };
    const { response, sent } = await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: card(), currencyCode: null }));
    expect(jsonOf(sent)).toMatchObject({ amount: 0, currency: 'USD', card: { capture: false, verify: true } });
    expect(response).toMatchObject({ success: true, message: 'Card verified' });
  });

  it('sends amounts in the currency’s major unit: JPY whole yen, KWD three decimals', async () => {
    expect(jsonOf((await run(purchase({ amount: 1500, currencyCode: 'JPY' }))).sent).amount).toBe(1500);
    expect(jsonOf((await run(purchase({ amount: 1234, currencyCode: 'KWD' }))).sent).amount).toBe(1.234);
  });

  it('refuses a card without a country, sending nothing', async () => {
    const before = fake.requests.length;
    const noCountry = card({ address: { address1: null, address2: null, city: null, state: null, zip: null, country: null } });
    expect((await run(purchase({ paymentMethod: noCountry }))).response).toMatchObject({ success: false, errorCode: 'processing_error' });
    expect(fake.requests.length).toBe(before);
  });
});

describe('dLocal: declines and errors', () => {
  it.each([
    ['300', 'card_declined'],
    ['301', 'card_declined'],
    ['302', 'insufficient_funds'],
    ['303', 'card_declined'],
    ['304', 'card_declined'],
    ['305', 'card_declined'],
    ['306', 'call_issuer'],
    ['309', 'expired_card'],
    ['310', 'pickup_card'],
    ['314', 'incorrect_number'],
    ['315', 'incorrect_cvc'],
    ['399', 'card_declined'],
  ])('maps REJECTED with status_code %s to %s', async (code, standard) => {
    next = { json: { ...REJECTED, status_code: code, status_detail: `Rejected ${code}` } };
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, errorCode: standard, message: `Rejected ${code}`, errorDetail: `${code}: Rejected ${code}`, gatewayTransactionId: REJECTED.id });
  });

  it('maps error bodies: 401 invalid credentials to config_error, an invalid card.number to invalid_number', async () => {
    next = { status: 401, json: INVALID_CREDENTIALS };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'config_error', message: 'Invalid credentials.', errorDetail: '3001: Invalid credentials.' });
    next = { status: 400, json: INVALID_PARAM };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'invalid_number', errorDetail: '5001: Invalid parameter: card.number' });
    next = { status: 400, json: { code: 5009, message: 'Order id already used' } };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error' });
  });

  it('treats PENDING (100) as an unknown outcome', async () => {
    next = { json: { ...PAID, status: 'PENDING', status_code: '100', status_detail: 'The payment is pending.' } };
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
  });
});

describe('dLocal: capture, void, credit', () => {
  it('captures part of an authorization with POST /payments and authorization_id', async () => {
    const request = gatewayRequest('capture', CREDENTIALS, { amount: 10000, currencyCode: 'USD', reference: reference(AUTHORIZED.id) });
    const { response, sent } = await run(request);
    expect(sent.path).toBe('/payments');
    expect(jsonOf(sent)).toEqual({ authorization_id: AUTHORIZED.id, amount: 100, currency: 'USD', order_id: request.transactionToken });
    expect(sent.headers.authorization).toBe(expectedSignature(SECRET_KEY, sent.headers['x-date'] as string, sent.rawBody));
    expect(response).toMatchObject({ success: true, message: 'Transaction captured', gatewayTransactionId: PAID.id });
  });

  it('cancels at POST /payments/{id}/cancel and succeeds on CANCELLED 400', async () => {
    next = { json: CANCELLED };
    const { response, sent } = await run(gatewayRequest('void', CREDENTIALS, { reference: reference(AUTHORIZED.id) }));
    expect(sent.path).toBe(`/payments/${AUTHORIZED.id}/cancel`);
    expect(sent.rawBody).toBe('{}');
    expect(sent.headers.authorization).toBe(expectedSignature(SECRET_KEY, sent.headers['x-date'] as string, '{}'));
    expect(response).toMatchObject({ success: true, message: 'Transaction cancelled' });
    next = { json: PAID };
    expect((await run(gatewayRequest('void', CREDENTIALS, { reference: reference(PAID.id) }))).response).toMatchObject({ success: false, errorCode: 'processing_error' });
  });

  it('refunds part with POST /refunds {payment_id, amount, currency}', async () => {
    next = { json: REFUND };
    const { response, sent } = await run(gatewayRequest('credit', CREDENTIALS, { amount: 5000, currencyCode: 'USD', reference: reference(PAID.id) }));
    expect(sent.path).toBe('/refunds');
    expect(jsonOf(sent)).toEqual({ payment_id: PAID.id, amount: 50, currency: 'USD' });
    expect(response).toMatchObject({ success: true, message: 'Refund accepted', gatewayTransactionId: REFUND.id, specificResponseFields: { d_local: { payment_id: PAID.id, status: 'SUCCESS' } } });
  });

  it('stores a card at POST /secure_cards and answers its card_id as the third-party token', async () => {
    next = { json: { card_id: 'CV-af85ddba-f5f4-4644-b3fa-3c922e0687e9', holder_name: 'Ada Lovelace', expiration_month: 3, expiration_year: 2030, last4: '1111', brand: 'VI' } };
    const { response, sent } = await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: card(), gatewaySpecificFields: { document: '53033315550' } }));
    expect(sent.path).toBe('/secure_cards');
    expect(jsonOf(sent)).toEqual({
      country: 'GB',
      card: { holder_name: 'Ada Lovelace', expiration_month: 3, expiration_year: 2030, number: PAN, cvv: '737' },
      payer: { name: 'Ada Lovelace', document: '53033315550', email: 'ada@example.com' },
    });
    expect(sent.headers.authorization).toBe(expectedSignature(SECRET_KEY, sent.headers['x-date'] as string, sent.rawBody));
    expect(response).toMatchObject({ success: true, message: 'Card stored', thirdPartyToken: 'CV-af85ddba-f5f4-4644-b3fa-3c922e0687e9', specificResponseFields: { d_local: { last4: '1111', brand: 'VI' } } });
    next = { json: { holder_name: 'x' } };
    expect(await fault(gatewayRequest('store', CREDENTIALS, { paymentMethod: card() }))).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('card_id') });
  });

  it('pays with a stored card at POST /payments with card.card_id and the gateway-specific country', async () => {
    const request = purchase({ paymentMethod: { type: 'third_party_token', token: 'CV-af85ddba' }, gatewaySpecificFields: { country: 'BR', payer_name: 'Ada Lovelace', document: '53033315550' }, email: 'ada@example.com' });
    const { response, sent } = await run(request);
    expect(sent.path).toBe('/payments');
    expect(jsonOf(sent)).toMatchObject({ country: 'BR', payer: { name: 'Ada Lovelace', document: '53033315550', email: 'ada@example.com' }, card: { card_id: 'CV-af85ddba', capture: true } });
    expect(jsonOf(sent).card).not.toHaveProperty('number');
    expect(response).toMatchObject({ success: true, gatewayTransactionId: PAID.id });
    const before = fake.requests.length;
    expect((await run(purchase({ paymentMethod: { type: 'third_party_token', token: 'CV-1' } }))).response).toMatchObject({ success: false, errorCode: 'processing_error' });
    expect(fake.requests.length).toBe(before);
  });

  it('advertises what it implements under Spreedly’s gateway_type and credential names; sandbox and live endpoints', () => {
    const { definition } = dLocalGateway;
    expect(definition.gatewayType).toBe('d_local');
    expect([...definition.characteristics].sort()).toEqual(['supports_authorize', 'supports_capture', 'supports_credit', 'supports_purchase', 'supports_store', 'supports_verify', 'supports_void']);
    expect(definition.authModes[0]?.credentials.map((field) => [field.name, field.safe])).toEqual([['login', true], ['trans_key', false], ['secret_key', false]]);
    expect(dLocalGateway.endpoint?.(purchase())).toBe(D_LOCAL_TEST_BASE);
    expect(dLocalGateway.endpoint?.(purchase({ testMode: false }))).toBe(D_LOCAL_LIVE_BASE);
  });
});

describe('dLocal: response signatures and faults', () => {
  it('accepts an answer signed with the secret key, and faults on one whose signature does not verify', async () => {
    next = signed({ json: PAID });
    expect((await run(purchase())).response).toMatchObject({ success: true, gatewayTransactionId: PAID.id });
    next = signed({ json: PAID }, 'another-secret');
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 200, bad response signature' });
    const tampered = signed({ json: PAID });
    next = { ...tampered, body: (tampered.body as string).replace('"PAID"', '"PAID" ') };
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    next = { ...signed({ json: PAID }), headers: { authorization: 'V2-HMAC-SHA256, Signature: 00' } };
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    // A refusal is read whatever its signature: with a wrong secret key dLocal's 401 must still say so.
    next = signed({ status: 401, json: INVALID_CREDENTIALS }, 'another-secret');
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'config_error' });
  });

  it('a 5xx, garbage, a 4xx without an error body and an answer without status_code are faults', async () => {
    next = { status: 500, json: { code: 6000, message: 'Internal error' } };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 500' });
    next = { status: 404, body: 'Not Found' };
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    fake.setMode('garbage');
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    fake.setMode('normal');
    next = { json: { id: 'D-1', status: 'PAID' } };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('status_code') });
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

describe('dLocal: scrubbing', () => {
  it('keeps no PAN, CVV, expiry, trans key or secret key in the transcript', async () => {
    next = { json: { ...PAID, card: { ...PAID.card, number: PAN } } };
    const { transcript } = await run(purchase());
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(findCardData(text, [PAN])).toEqual([]);
    expect(text).not.toContain(TRANS_KEY);
    expect(text).not.toContain(SECRET_KEY);
    expect(text).not.toMatch(/"cvv"\s*:\s*"737"/);
    expect(text).not.toMatch(/"expiration_month"\s*:\s*3/);
    expect(text).toContain('x-trans-key: [FILTERED]');
    expect(text).toContain(`x-login: ${LOGIN}`);
    expect(text).toContain('"status":"PAID"');
  });
});
