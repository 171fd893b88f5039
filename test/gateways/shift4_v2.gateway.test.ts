import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { shift4V2Gateway, SHIFT4_BASE } from '../../src/gateways/shift4_v2.gateway.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type AdapterPaymentMethod, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the Shift4 module (api.shift4.com). The answers are the charge,
 * customer and error objects of Shift4's API reference as recorded in ActiveMerchant's
 * securion_pay / shift4_v2 tests (charge `char_…`, card `card_…`, customer `cust_…`, error
 * `{type, code, message, chargeId}`), served by a local HTTP server.
 */

const SECRET_KEY = 'sk_test_qZN4VVIKCySfCeXCBoHO9DBe';
const CREDENTIALS = { secret_key: SECRET_KEY };
const PAN = '4242424242424242';
const BASIC = `Basic ${Buffer.from(`${SECRET_KEY}:`).toString('base64')}`;

const CHARGE = {
  id: 'char_TOnen0ZcDMYzECNS4fItK9P4',
  created: 1434144998,
  objectType: 'charge',
  amount: 2000,
  currency: 'USD',
  description: 'ActiveMerchant test charge',
  card: { id: 'card_yJ4JNcp6P4sG8UrtZ62VWb5e', created: 1434144998, objectType: 'card', first6: '424242', last4: '4242', fingerprint: 'ecAKhFD1dmDAMKD9', expMonth: '9', expYear: '2016', cardholderName: 'Longbob Longsen', brand: 'Visa', type: 'Credit Card' },
  captured: true,
  refunded: false,
  disputed: false,
  metadata: { email: 'foo@example.com' },
};
const AUTHORIZED = { ...CHARGE, id: 'char_hWKC9C5wkXuiTLsxdHzncea3', captured: false };
const REFUNDED = { ...CHARGE, refunded: true, refunds: [{ created: 1426675529990, amount: 300, currency: 'USD' }] };
const DECLINED = { error: { type: 'card_error', code: 'card_declined', message: 'The card was declined for other reason.', chargeId: 'char_mApucpvVbCJgo7x09Je4n9gC' } };
const NO_CHARGE = { error: { type: 'invalid_request', message: 'Requested Charge does not exist' } };
const CUSTOMER = {
  id: 'cust_OWTybrAX3JP4Bbv1xnkpnHEj',
  created: 1426706773,
  objectType: 'customer',
  email: 'ada@example.com',
  defaultCardId: 'card_e2M5PpMhzGwpdSs6Nopu54Ny',
  cards: [{ id: 'card_e2M5PpMhzGwpdSs6Nopu54Ny', objectType: 'card', first6: '424242', last4: '4242', expMonth: '03', expYear: '2030', brand: 'Visa', type: 'Credit Card', customerId: 'cust_OWTybrAX3JP4Bbv1xnkpnHEj' }],
};

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let next: FakeAnswer;
let release: FakeAnswer;

async function run(request: GatewayRequest, timeoutMs = 3000): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest; all: FakeRequest[] }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(shift4V2Gateway, request, transcript, { http, override: fake.url, timeoutMs });
  const all = fake.requests.slice(before);
  return { response, transcript, sent: all[0] as FakeRequest, all };
}

async function fault(request: GatewayRequest, override = fake.url, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(shift4V2Gateway, request, [], { http, override, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

type CreditCard = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;
const card = (overrides: Partial<CreditCard> = {}): CreditCard => ({ ...(testCard(PAN) as CreditCard), ...overrides });
const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD', amount: 2000, ...overrides });
const reference = (id: string) => ({ gatewayTransactionId: id, transactionType: 'Authorization', amount: 2000 });

beforeAll(async () => {
  fake = await FakeGatewayServer.start([
    { method: 'POST', path: /^\/charges\/[^/]+\/refund$/, handle: (request) => (request.headers['idempotency-key']?.endsWith('-release') === true ? release : next) },
    { method: 'POST', path: /^\/(charges|customers|credits)(\/[^/]+\/capture)?$/, handle: () => next },
  ]);
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  next = { json: CHARGE };
  release = { json: { ...AUTHORIZED, refunded: true } };
});

describe('Shift4: charges', () => {
  it('purchases at POST /charges with Basic auth, Idempotency-Key and the card in JSON', async () => {
    const request = purchase({ description: 'Tea', orderId: 'order-9', email: 'ada@example.com' });
    const { response, sent, all } = await run(request);
    expect(all).toHaveLength(1);
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/charges');
    expect(sent.headers.authorization).toBe(BASIC);
    expect(sent.headers['idempotency-key']).toBe(request.transactionToken);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(jsonOf(sent)).toEqual({
      amount: 2000,
      currency: 'USD',
      card: { number: PAN, expMonth: '03', expYear: '2030', cvc: '737', cardholderName: 'Ada Lovelace', addressLine1: '12 St James Sq', addressCity: 'London', addressZip: 'SW1Y 4JH', addressCountry: 'GB' },
      description: 'Tea',
      metadata: { coffer_transaction: request.transactionToken, order_id: 'order-9', email: 'ada@example.com' },
    });
    expect(response).toMatchObject({ success: true, message: 'Transaction approved', gatewayTransactionId: CHARGE.id, errorCode: null, specificResponseFields: { shift4_v2: { captured: true, last4: '4242', brand: 'Visa' } } });
  });

  it('authorizes with captured false', async () => {
    next = { json: AUTHORIZED };
    const { response, sent } = await run(gatewayRequest('authorize', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD', amount: 2000 }));
    expect(jsonOf(sent)).toMatchObject({ captured: false, amount: 2000 });
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized', gatewayTransactionId: AUTHORIZED.id });
  });

  it('sends amounts in ISO minor units: JPY whole yen, KWD thousandths', async () => {
    expect(jsonOf((await run(purchase({ amount: 1500, currencyCode: 'JPY' }))).sent)).toMatchObject({ amount: 1500, currency: 'JPY' });
    expect(jsonOf((await run(purchase({ amount: 1234, currencyCode: 'KWD' }))).sent)).toMatchObject({ amount: 1234, currency: 'KWD' });
  });

  it('verifies by authorizing 100 and releasing it with a refund under its own idempotency key', async () => {
    next = { json: AUTHORIZED };
    const request = gatewayRequest('verify', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD' });
    const { response, all } = await run(request);
    expect(all.map((sent) => sent.path)).toEqual(['/charges', `/charges/${AUTHORIZED.id}/refund`]);
    expect(jsonOf(all[0] as FakeRequest)).toMatchObject({ amount: 100, currency: 'USD', captured: false });
    expect((all[1] as FakeRequest).headers['idempotency-key']).toBe(`${request.transactionToken}-release`);
    expect(response).toMatchObject({ success: true, message: 'Card verified', gatewayTransactionId: AUTHORIZED.id });
    release = { status: 400, json: NO_CHARGE };
    const failedRelease = await run(request);
    expect(failedRelease.response.success).toBe(true);
    expect(failedRelease.transcript.map((entry) => entry.text).join('\n')).toContain('was not released');
    next = { status: 402, json: DECLINED };
    const declined = await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD' }));
    expect(declined.all).toHaveLength(1);
    expect(declined.response).toMatchObject({ success: false, errorCode: 'card_declined' });
  });

  it('stores a card as a customer and charges it by <customerId>|<cardId>, sending no card number', async () => {
    next = { json: CUSTOMER };
    const stored = await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: card(), email: 'ada@example.com' }));
    expect(stored.sent.path).toBe('/customers');
    expect(jsonOf(stored.sent)).toMatchObject({ email: 'ada@example.com', card: { number: PAN, expMonth: '03', expYear: '2030' } });
    expect(stored.response).toMatchObject({ success: true, message: 'Card stored', thirdPartyToken: `${CUSTOMER.id}|${CUSTOMER.cards[0]?.id}` });

    next = { json: CHARGE };
    const charged = await run(purchase({ paymentMethod: { type: 'third_party_token', token: `${CUSTOMER.id}|${CUSTOMER.cards[0]?.id}` } }));
    expect(jsonOf(charged.sent)).toMatchObject({ customerId: CUSTOMER.id, card: CUSTOMER.cards[0]?.id });
    expect(charged.sent.rawBody).not.toContain(PAN);
    const before = fake.requests.length;
    expect((await run(purchase({ paymentMethod: { type: 'third_party_token', token: 'card_only' } }))).response).toMatchObject({ success: false, errorCode: 'processing_error' });
    expect(fake.requests.length).toBe(before);
    next = { json: { id: 'cust_1', cards: [] } };
    expect(await fault(gatewayRequest('store', CREDENTIALS, { paymentMethod: card() }))).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('cards') });
  });
});

describe('Shift4: declines and errors', () => {
  it.each([
    ['card_declined', 'card_declined'],
    ['insufficient_funds', 'insufficient_funds'],
    ['lost_or_stolen', 'pickup_card'],
    ['expired_card', 'expired_card'],
    ['incorrect_cvc', 'incorrect_cvc'],
    ['invalid_number', 'invalid_number'],
    ['invalid_expiry_month', 'invalid_expiry_date'],
    ['suspected_fraud', 'card_declined'],
    ['something_new', 'card_declined'],
  ])('maps a 402 card_error %s to %s, keeping the declined charge id', async (code, standard) => {
    next = { status: 402, json: { error: { ...DECLINED.error, code, message: `Declined: ${code}` } } };
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, errorCode: standard, message: `Declined: ${code}`, gatewayTransactionId: DECLINED.error.chargeId, errorDetail: `HTTP 402: card_error: ${code}: Declined: ${code}` });
  });

  it('a 401 is config_error; an invalid_request is processing_error', async () => {
    next = { status: 401, json: { error: { type: 'invalid_request', message: 'Provided API key is invalid' } } };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'config_error', message: 'Provided API key is invalid' });
    next = { status: 400, json: NO_CHARGE };
    expect((await run(gatewayRequest('capture', CREDENTIALS, { currencyCode: 'USD', reference: reference('char_x') }))).response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'Requested Charge does not exist' });
  });

  it('a pending charge is an unknown outcome', async () => {
    next = { json: { ...CHARGE, status: 'pending' } };
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
  });
});

describe('Shift4: capture, void, credit', () => {
  it('captures at /charges/{id}/capture with the amount', async () => {
    const { response, sent } = await run(gatewayRequest('capture', CREDENTIALS, { amount: 1500, currencyCode: 'USD', reference: reference(AUTHORIZED.id) }));
    expect(sent.path).toBe(`/charges/${AUTHORIZED.id}/capture`);
    expect(jsonOf(sent)).toEqual({ amount: 1500 });
    expect(response).toMatchObject({ success: true, message: 'Transaction captured', gatewayTransactionId: CHARGE.id });
  });

  it('refunds part with an amount; voids with an empty body', async () => {
    next = { json: REFUNDED };
    const credit = await run(gatewayRequest('credit', CREDENTIALS, { amount: 300, currencyCode: 'USD', reference: reference(CHARGE.id) }));
    expect(credit.sent.path).toBe(`/charges/${CHARGE.id}/refund`);
    expect(jsonOf(credit.sent)).toEqual({ amount: 300 });
    expect(credit.response).toMatchObject({ success: true, message: 'Transaction refunded', specificResponseFields: { shift4_v2: { refunded: true } } });
    const voided = await run(gatewayRequest('void', CREDENTIALS, { currencyCode: 'USD', reference: reference(AUTHORIZED.id) }));
    expect(voided.sent.path).toBe(`/charges/${AUTHORIZED.id}/refund`);
    expect(voided.sent.rawBody).toBe('{}');
    expect(voided.response).toMatchObject({ success: true, message: 'Transaction voided' });
  });

  it('credits a card with no charge to refer to at POST /credits (general credit)', async () => {
    next = { json: { id: 'cred_3VXn5TLpfBN1ciVNlb1N8VbW', created: 1434145000, objectType: 'credit', amount: 1500, currency: 'EUR', card: CHARGE.card } };
    const request = gatewayRequest('general_credit', CREDENTIALS, { paymentMethod: card(), amount: 1500, currencyCode: 'EUR' });
    const { response, sent } = await run(request);
    expect(sent.path).toBe('/credits');
    expect(sent.headers['idempotency-key']).toBe(request.transactionToken);
    expect(jsonOf(sent)).toMatchObject({ amount: 1500, currency: 'EUR', card: { number: PAN, expMonth: '03' } });
    expect(response).toMatchObject({ success: true, message: 'Transaction credited', gatewayTransactionId: 'cred_3VXn5TLpfBN1ciVNlb1N8VbW' });
    next = { status: 402, json: { error: { type: 'card_error', code: 'card_declined', message: 'The card was declined.' } } };
    expect((await run(request)).response).toMatchObject({ success: false, errorCode: 'card_declined' });
  });

  it('advertises what it implements under Spreedly’s names; one origin for test and live', () => {
    const { definition } = shift4V2Gateway;
    expect(definition.gatewayType).toBe('shift4_v2');
    expect([...definition.characteristics].sort()).toEqual(['supports_authorize', 'supports_capture', 'supports_credit', 'supports_general_credit', 'supports_purchase', 'supports_store', 'supports_verify', 'supports_void']);
    expect(definition.authModes[0]?.credentials.map((field) => [field.name, field.safe])).toEqual([['secret_key', false]]);
    expect(shift4V2Gateway.endpoint?.(purchase())).toBe(SHIFT4_BASE);
    expect(shift4V2Gateway.endpoint?.(purchase({ testMode: false }))).toBe(SHIFT4_BASE);
  });
});

describe('Shift4: faults', () => {
  it('a 5xx, garbage, an error body on a 2xx, a 4xx without an error object and a charge without id are faults', async () => {
    next = { status: 500, json: { error: { message: 'Internal' } } };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 500' });
    fake.setMode('garbage');
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    fake.setMode('normal');
    next = { json: DECLINED };
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    next = { status: 404, json: { message: 'Not Found' } };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('error') });
    next = { json: { amount: 1, currency: 'USD' } };
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

describe('Shift4: scrubbing', () => {
  it('keeps no PAN, CVC, expiry, holder name or secret key in the transcript', async () => {
    const { transcript } = await run(purchase());
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(findCardData(text, [PAN])).toEqual([]);
    expect(text).not.toContain(SECRET_KEY);
    expect(text).not.toContain(BASIC.slice(6));
    expect(text).not.toMatch(/"cvc"\s*:\s*"737"/);
    expect(text).not.toMatch(/"expMonth"\s*:\s*"03"/);
    expect(text).not.toContain('Ada Lovelace');
    expect(text).toContain('"id":"char_TOnen0ZcDMYzECNS4fItK9P4"');
  });
});
