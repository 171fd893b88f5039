import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nmiGateway, NMI_BASE } from '../../src/gateways/nmi.gateway.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the NMI module (Payment API, POST /api/transact.php). The answers have
 * the shape of NMI's documented "Transaction Response Variables" (response, responsetext, authcode,
 * transactionid, avsresponse, cvvresponse, orderid, type, response_code) with codes from its
 * "Result Code Table"; the approval is the reference's sample answer. Served by a local HTTP server;
 * each test asserts the exact request and how the answer maps.
 */

const SECURITY_KEY = '6457Thfj624V5r7WUwc5v6a68Zsd6YEm';
const PAN = '4111111111111111';
const KEY_CREDENTIALS = { security_key: SECURITY_KEY };
const LOGIN_CREDENTIALS = { login: 'demo', password: 'Passw0rd-secret' };

const form = (fields: Record<string, string>): FakeAnswer => ({ body: new URLSearchParams(fields).toString(), contentType: 'text/html' });
const APPROVED = { response: '1', responsetext: 'SUCCESS', authcode: '123456', transactionid: '3280866052', avsresponse: 'N', cvvresponse: 'M', orderid: '55845', type: 'sale', response_code: '100' };
const DECLINED = { response: '2', responsetext: 'DECLINE', authcode: '', transactionid: '3280866053', avsresponse: 'N', cvvresponse: 'N', orderid: '', type: 'sale', response_code: '200' };
const AUTH_FAILED = { response: '3', responsetext: 'Authentication Failed', authcode: '', transactionid: '0', avsresponse: '', cvvresponse: '', orderid: '', type: 'sale', response_code: '300' };

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let next: FakeAnswer = form(APPROVED);

function sentFields(request: FakeRequest): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(request.rawBody));
}

async function run(request: GatewayRequest, timeoutMs = 3000): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(nmiGateway, request, transcript, { http, override: fake.url, timeoutMs });
  expect(fake.requests.length - before).toBeLessThanOrEqual(1);
  return { response, transcript, sent: fake.requests[fake.requests.length - 1] as FakeRequest };
}

async function fault(request: GatewayRequest, override = fake.url, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(nmiGateway, request, [], { http, override, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', KEY_CREDENTIALS, { paymentMethod: testCard(PAN), currencyCode: 'USD', ...overrides });
const reference = (id: string) => ({ gatewayTransactionId: id, transactionType: 'Authorization', amount: 1000 });

beforeAll(async () => {
  fake = await FakeGatewayServer.start([{ method: 'POST', path: '/api/transact.php', handle: () => next }]);
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  next = form(APPROVED);
});

describe('NMI: sale, auth, validate', () => {
  it('sends type=sale form-encoded to /api/transact.php with the security key, card, amount as decimal and address', async () => {
    const request = purchase({ orderId: 'order-42', description: 'Tea', ip: '192.0.2.1', amount: 1999 });
    const { response, sent } = await run(request);
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/api/transact.php');
    expect(sent.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(sentFields(sent)).toEqual({
      type: 'sale',
      amount: '19.99',
      currency: 'USD',
      payment: 'creditcard',
      ccnumber: PAN,
      ccexp: '0330',
      cvv: '737',
      first_name: 'Ada',
      last_name: 'Lovelace',
      address1: '12 St James Sq',
      city: 'London',
      zip: 'SW1Y 4JH',
      country: 'GB',
      email: 'ada@example.com',
      orderid: 'order-42',
      orderdescription: 'Tea',
      ipaddress: '192.0.2.1',
      security_key: SECURITY_KEY,
      test_mode: 'enabled',
    });
    expect(response).toMatchObject({
      success: true,
      message: 'Transaction approved',
      gatewayTransactionId: '3280866052',
      errorCode: null,
      avsCode: 'N',
      avsMessage: 'Street address and postal code do not match.',
      cvvCode: 'M',
      cvvMessage: 'Match',
      specificResponseFields: { nmi: { response: '1', response_code: '100', authcode: '123456', responsetext: 'SUCCESS' } },
    });
  });

  it('authorizes with type=auth and username/password (default mode); a live gateway sends no test_mode; the transaction token is the default orderid', async () => {
    const request = gatewayRequest('authorize', LOGIN_CREDENTIALS, { paymentMethod: testCard(PAN, { cvc: null, address: false }), testMode: false, currencyCode: 'USD' });
    const { response, sent } = await run(request);
    const fields = sentFields(sent);
    expect(fields).toMatchObject({ type: 'auth', amount: '10.00', username: 'demo', password: 'Passw0rd-secret', orderid: request.transactionToken });
    expect(fields).not.toHaveProperty('security_key');
    expect(fields).not.toHaveProperty('test_mode');
    expect(fields).not.toHaveProperty('cvv');
    expect(fields).not.toHaveProperty('address1');
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized' });
  });

  it('sends JPY without decimals and KWD with three; passes stored-credential fields through', async () => {
    expect(sentFields((await run(purchase({ amount: 1500, currencyCode: 'JPY' }))).sent)).toMatchObject({ amount: '1500', currency: 'JPY' });
    expect(sentFields((await run(purchase({ amount: 1234, currencyCode: 'KWD' }))).sent)).toMatchObject({ amount: '1.234', currency: 'KWD' });
    const mit = await run(purchase({ gatewaySpecificFields: { initiated_by: 'merchant', stored_credential_indicator: 'used', initial_transaction_id: 'NTID123', other: 'x' } }));
    expect(sentFields(mit.sent)).toMatchObject({ initiated_by: 'merchant', stored_credential_indicator: 'used', initial_transaction_id: 'NTID123' });
    expect(sentFields(mit.sent)).not.toHaveProperty('other');
  });

  it('sends the shipping address as shipping_* variables, the name split into first and last', async () => {
    const shippingAddress = { name: 'Charles Babbage', address1: '1 Dorset St', address2: 'Flat 2', city: 'London', state: 'LND', zip: 'W1U 4EG', country: 'GB', phone_number: '+44 20 7946 0000' };
    const { sent } = await run(purchase({ shippingAddress }));
    expect(sentFields(sent)).toMatchObject({
      shipping_firstname: 'Charles',
      shipping_lastname: 'Babbage',
      shipping_address1: '1 Dorset St',
      shipping_address2: 'Flat 2',
      shipping_city: 'London',
      shipping_state: 'LND',
      shipping_zip: 'W1U 4EG',
      shipping_country: 'GB',
      shipping_phone: '+44 20 7946 0000',
    });
  });

  it('maps response=2 / response_code 200 to card_declined with NMI’s text', async () => {
    next = form(DECLINED);
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, message: 'DECLINE', errorCode: 'card_declined', errorDetail: '200: DECLINE', gatewayTransactionId: '3280866053', cvvCode: 'N' });
  });

  it.each([
    ['201', 'Do not honor', 'card_declined'],
    ['202', 'Insufficient funds', 'insufficient_funds'],
    ['203', 'Over limit', 'insufficient_funds'],
    ['221', 'No such card issuer', 'incorrect_number'],
    ['223', 'Expired card', 'expired_card'],
    ['224', 'Invalid expiration date', 'invalid_expiry_date'],
    ['225', 'Invalid card security code', 'incorrect_cvc'],
    ['240', 'Call issuer for further information', 'call_issuer'],
    ['250', 'Pick up card', 'pickup_card'],
    ['253', 'Fraudulent card', 'pickup_card'],
    ['264', 'Declined-Retry in a few days', 'card_declined'],
    ['461', 'Unsupported card type', 'card_declined'],
  ])('maps response_code %s (%s) to %s', async (code, text, standard) => {
    next = form({ ...DECLINED, response_code: code, responsetext: text });
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: standard, message: text });
  });

  it.each([
    ['300', 'Invalid Credit Card Number REFID:3154536', 'processing_error'],
    ['410', 'Invalid merchant configuration', 'config_error'],
    ['411', 'Merchant account is inactive', 'config_error'],
    ['420', 'Communication error', 'processing_error'],
    ['430', 'Duplicate transaction REFID:1234', 'processing_error'],
    ['460', 'Processor feature not available', 'unsupported_feature'],
    ['999', 'Something new', 'processing_error'],
  ])('maps response=3 with response_code %s to %s', async (code, text, standard) => {
    next = form({ ...AUTH_FAILED, response_code: code, responsetext: text });
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: standard, message: text });
  });

  it('maps "Authentication Failed" (a wrong key) to config_error', async () => {
    next = form(AUTH_FAILED);
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'config_error', message: 'Authentication Failed' });
  });

  it('maps AVS and CVV letters; an unknown or empty one is left out', async () => {
    next = form({ ...APPROVED, avsresponse: 'Y', cvvresponse: 'N' });
    expect((await run(purchase())).response).toMatchObject({ avsCode: 'Y', cvvCode: 'N', cvvMessage: 'No Match' });
    next = form({ ...APPROVED, avsresponse: '0', cvvresponse: '' });
    expect((await run(purchase())).response).toMatchObject({ success: true, avsCode: null, cvvCode: null });
  });

  it('validates a card with type=validate and no amount', async () => {
    next = form({ ...APPROVED, type: 'validate' });
    const { response, sent } = await run(gatewayRequest('verify', KEY_CREDENTIALS, { paymentMethod: testCard(PAN) }));
    const fields = sentFields(sent);
    expect(fields).toMatchObject({ type: 'validate', ccnumber: PAN, ccexp: '0330' });
    expect(fields).not.toHaveProperty('amount');
    expect(response).toMatchObject({ success: true, message: 'Card verified' });
  });

  it('purchases with a customer vault id and no card data', async () => {
    const { response, sent } = await run(purchase({ paymentMethod: { type: 'third_party_token', token: '1138209445' } }));
    const fields = sentFields(sent);
    expect(fields).toMatchObject({ type: 'sale', customer_vault_id: '1138209445', amount: '10.00' });
    expect(fields).not.toHaveProperty('ccnumber');
    expect(response.success).toBe(true);
  });
});

describe('NMI: capture, refund, void, store', () => {
  it('captures part of an authorization by transactionid', async () => {
    next = form({ ...APPROVED, type: 'capture', authcode: '', avsresponse: '', cvvresponse: '' });
    const { response, sent } = await run(gatewayRequest('capture', KEY_CREDENTIALS, { amount: 750, currencyCode: 'USD', reference: reference('3280866052') }));
    expect(sentFields(sent)).toEqual({ type: 'capture', transactionid: '3280866052', amount: '7.50', currency: 'USD', security_key: SECURITY_KEY, test_mode: 'enabled' });
    expect(response).toMatchObject({ success: true, message: 'Capture approved', gatewayTransactionId: '3280866052' });
  });

  it('refunds part of a sale with type=refund', async () => {
    next = form({ ...APPROVED, type: 'refund', transactionid: '3280866099' });
    const { response, sent } = await run(gatewayRequest('credit', KEY_CREDENTIALS, { amount: 300, currencyCode: 'USD', reference: reference('3280866052') }));
    expect(sentFields(sent)).toMatchObject({ type: 'refund', transactionid: '3280866052', amount: '3.00' });
    expect(response).toMatchObject({ success: true, message: 'Refund approved', gatewayTransactionId: '3280866099' });
  });

  it('voids without an amount; a refused void keeps its code', async () => {
    next = form({ ...APPROVED, type: 'void', transactionid: '' });
    const { response, sent } = await run(gatewayRequest('void', KEY_CREDENTIALS, { reference: reference('3280866052') }));
    expect(sentFields(sent)).toEqual({ type: 'void', transactionid: '3280866052', security_key: SECURITY_KEY, test_mode: 'enabled' });
    expect(response).toMatchObject({ success: true, message: 'Transaction voided', gatewayTransactionId: '3280866052' });
    next = form({ ...AUTH_FAILED, responsetext: 'Only transactions pending settlement can be voided REFID:4', response_code: '300' });
    expect((await run(gatewayRequest('void', KEY_CREDENTIALS, { reference: reference('1') }))).response).toMatchObject({ success: false, errorCode: 'processing_error' });
  });

  it('stores with customer_vault=add_customer and returns customer_vault_id as the third-party token', async () => {
    next = form({ response: '1', responsetext: 'Customer Added', authcode: '', transactionid: '', avsresponse: '', cvvresponse: '', orderid: '', type: '', response_code: '100', customer_vault_id: '1138209445' });
    const { response, sent } = await run(gatewayRequest('store', KEY_CREDENTIALS, { paymentMethod: testCard(PAN) }));
    const fields = sentFields(sent);
    expect(fields).toMatchObject({ customer_vault: 'add_customer', ccnumber: PAN, ccexp: '0330', first_name: 'Ada', security_key: SECURITY_KEY });
    expect(fields).not.toHaveProperty('type');
    expect(response).toMatchObject({ success: true, message: 'Card stored', thirdPartyToken: '1138209445', gatewayTransactionId: '1138209445' });
    next = form({ ...DECLINED, response: '3', responsetext: 'Invalid Credit Card Number', response_code: '300' });
    expect((await run(gatewayRequest('store', KEY_CREDENTIALS, { paymentMethod: testCard(PAN) }))).response).toMatchObject({ success: false, thirdPartyToken: null });
  });
});

describe('NMI: answers that are not answers', () => {
  it('a 5xx, an HTML page, an unknown response value and a non-2xx are faults', async () => {
    next = { status: 503, body: 'busy' };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 503' });
    fake.setMode('garbage');
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('response') });
    fake.setMode('normal');
    next = form({ ...APPROVED, response: '7' });
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    next = { status: 404, body: 'Not Found' };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 404' });
  });

  it('an approval without transactionid (or a store without customer_vault_id) is an unknown outcome', async () => {
    next = form({ response: '1', responsetext: 'SUCCESS' });
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
    expect(await fault(gatewayRequest('store', KEY_CREDENTIALS, { paymentMethod: testCard(PAN) }))).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('a timeout or a reset after sending is a GatewayResultUnknownError; a refused connection a GatewayFaultError', async () => {
    fake.setMode('hang');
    expect(await fault(purchase(), fake.url, 300)).toBeInstanceOf(GatewayResultUnknownError);
    // Reset after the request went out: NMI may have charged, so the outcome is unknown.
    fake.setMode('reset');
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
    fake.setMode('normal');
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    expect(await fault(purchase(), `http://127.0.0.1:${port}`)).toMatchObject({ name: 'GatewayFaultError', detail: 'ECONNREFUSED' });
  });

  it('refuses before sending: no credential, no expiry, an amount the currency cannot hold', async () => {
    const before = fake.requests.length;
    expect((await run(gatewayRequest('purchase', { login: 'demo' }, { paymentMethod: testCard(PAN) }))).response).toMatchObject({ success: false, errorCode: 'config_error' });
    const noExpiry = { ...testCard(PAN), month: null } as GatewayRequest['paymentMethod'];
    expect((await run(purchase({ paymentMethod: noExpiry }))).response).toMatchObject({ success: false, errorCode: 'invalid_expiry_date' });
    expect(fake.requests.length).toBe(before);
  });
});

describe('NMI: definition and scrubbing', () => {
  it('advertises what it implements under Spreedly’s gateway_type and credential names; one URL for test and live', () => {
    const { definition } = nmiGateway;
    expect(definition.gatewayType).toBe('nmi');
    expect([...definition.characteristics].sort()).toEqual(['supports_authorize', 'supports_capture', 'supports_credit', 'supports_purchase', 'supports_store', 'supports_verify', 'supports_void']);
    expect(definition.authModes.map((mode) => [mode.authModeType, mode.credentials.map((field) => field.name)])).toEqual([
      ['default', ['login', 'password']],
      ['security_key_only', ['security_key']],
    ]);
    expect(nmiGateway.endpoint?.(purchase())).toBe(NMI_BASE);
    expect(nmiGateway.endpoint?.(purchase({ testMode: false }))).toBe(NMI_BASE);
  });

  it('keeps no PAN, CVV, expiry, security key or password in the transcript', async () => {
    for (const credentials of [KEY_CREDENTIALS, LOGIN_CREDENTIALS]) {
      const { transcript } = await run(gatewayRequest('purchase', credentials, { paymentMethod: testCard(PAN) }));
      const text = transcript.map((entry) => entry.text).join('\n');
      expect(findCardData(text, [PAN])).toEqual([]);
      expect(text).not.toContain(SECURITY_KEY);
      expect(text).not.toContain('Passw0rd-secret');
      expect(text).not.toMatch(/cvv=737/);
      expect(text).not.toMatch(/ccexp=0330/);
      expect(text).toContain(`POST ${fake.url}/api/transact.php`);
      expect(text).toContain('responsetext=SUCCESS');
      expect(text).toContain('type=sale');
    }
  });
});
