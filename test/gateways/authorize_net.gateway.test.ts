import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { googlePanOnly, WALLET_CRYPTOGRAM, walletMethod } from '../helpers/wallet-methods.js';
import { authorizeNetGateway, ANET_LIVE_BASE, ANET_TEST_BASE } from '../../src/gateways/authorize_net.gateway.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the Authorize.Net module (JSON API, POST /xml/v1/request.api). The
 * answers have the shape of the API reference's response samples for createTransactionRequest
 * (transactionResponse with responseCode, authCode, avsResultCode, cvvResultCode, transId,
 * accountNumber, messages/errors; top-level messages with resultCode), served with the UTF-8
 * byte-order mark Authorize.Net puts before its JSON.
 */

const LOGIN = '5KP3u95bQpv';
const KEY = '346HZ32z3fP4hTG2';
const CREDENTIALS = { login: LOGIN, password: KEY };
const PAN = '4111111111111111';

const BOM = '\uFEFF';
const json = (value: unknown, status = 200): FakeAnswer => ({ status, body: `${BOM}${JSON.stringify(value)}`, contentType: 'application/json; charset=utf-8' });
const OK = { resultCode: 'Ok', message: [{ code: 'I00001', text: 'Successful.' }] };
const UNSUCCESSFUL = { resultCode: 'Error', message: [{ code: 'E00027', text: 'The transaction was unsuccessful.' }] };
const approved = (extra: Record<string, unknown> = {}) => ({
  transactionResponse: {
    responseCode: '1',
    authCode: 'HW617E',
    avsResultCode: 'Y',
    cvvResultCode: 'M',
    cavvResultCode: '',
    transId: '2149186775',
    refTransID: '',
    transHash: '',
    testRequest: '0',
    accountNumber: 'XXXX1111',
    accountType: 'Visa',
    messages: [{ code: '1', description: 'This transaction has been approved.' }],
    networkTransId: '123456789NNNH',
    ...extra,
  },
  refId: '123456',
  messages: OK,
});
const declined = (errorCode: string, errorText: string, responseCode = '2', extra: Record<string, unknown> = {}) => ({
  transactionResponse: { responseCode, authCode: '000000', avsResultCode: 'P', cvvResultCode: '', transId: '0', accountNumber: 'XXXX1111', accountType: 'Visa', errors: [{ errorCode, errorText }], ...extra },
  messages: UNSUCCESSFUL,
});

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let next: FakeAnswer = json(approved());

const sent = (request: FakeRequest) => JSON.parse(request.rawBody) as { createTransactionRequest: Record<string, unknown> & { transactionRequest: Record<string, unknown> } };

async function run(request: GatewayRequest, timeoutMs = 3000): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; request: FakeRequest }> {
  const transcript: TranscriptEntry[] = [];
  const response = await executeOperation(authorizeNetGateway, request, transcript, { http, override: fake.url, timeoutMs });
  return { response, transcript, request: fake.lastRequest() };
}

async function fault(request: GatewayRequest, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(authorizeNetGateway, request, [], { http, override: fake.url, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', CREDENTIALS, { paymentMethod: testCard(PAN), currencyCode: 'USD', ...overrides });
const reference = (id: string) => ({ gatewayTransactionId: id, transactionType: 'Authorization', amount: 1000 });

beforeAll(async () => {
  fake = await FakeGatewayServer.start([{ method: 'POST', path: '/xml/v1/request.api', handle: () => next }]);
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  next = json(approved());
});

describe('Authorize.Net: authCaptureTransaction, authOnlyTransaction, verify', () => {
  it('sends createTransactionRequest in schema order with the card, decimal amount, order and billTo; maps the approval', async () => {
    const request = purchase({ amount: 1999, orderId: 'order-42', description: 'Tea', ip: '192.0.2.1', email: 'buyer@example.com' });
    const { response, request: received } = await run(request);
    expect(received.method).toBe('POST');
    expect(received.path).toBe('/xml/v1/request.api');
    expect(received.headers['content-type']).toBe('application/json');
    const body = sent(received);
    expect(Object.keys(body)).toEqual(['createTransactionRequest']);
    expect(Object.keys(body.createTransactionRequest)).toEqual(['merchantAuthentication', 'refId', 'transactionRequest']);
    expect(body.createTransactionRequest.merchantAuthentication).toEqual({ name: LOGIN, transactionKey: KEY });
    expect(body.createTransactionRequest.refId).toBe(request.transactionToken.slice(0, 20));
    const transaction = body.createTransactionRequest.transactionRequest;
    expect(Object.keys(transaction)).toEqual(['transactionType', 'amount', 'currencyCode', 'payment', 'order', 'customer', 'billTo', 'customerIP']);
    expect(transaction).toEqual({
      transactionType: 'authCaptureTransaction',
      amount: '19.99',
      currencyCode: 'USD',
      payment: { creditCard: { cardNumber: PAN, expirationDate: '2030-03', cardCode: '737' } },
      order: { invoiceNumber: 'order-42', description: 'Tea' },
      customer: { email: 'buyer@example.com' },
      billTo: { firstName: 'Ada', lastName: 'Lovelace', address: '12 St James Sq', city: 'London', zip: 'SW1Y 4JH', country: 'GB' },
      customerIP: '192.0.2.1',
    });
    expect(response).toMatchObject({
      success: true,
      message: 'This transaction has been approved',
      gatewayTransactionId: '2149186775#1111#purchase',
      errorCode: null,
      avsCode: 'Y',
      cvvCode: 'M',
      cvvMessage: 'Match',
      fraudReview: false,
      networkTransactionId: '123456789NNNH',
      specificResponseFields: { authorize_net: { response_code: '1', response_reason_code: '1', auth_code: 'HW617E', trans_id: '2149186775', account_number: 'XXXX1111' } },
    });
  });

  it('authorizes with authOnlyTransaction; shipTo follows billTo; no cardCode or billTo when the card has none; JPY and KWD amounts', async () => {
    const shippingAddress = { name: 'Charles Babbage', address1: '1 Dorset St', address2: 'Flat 2', city: 'London', state: 'LND', zip: 'W1U 4EG', country: 'GB', phone_number: null };
    const { request: received } = await run(gatewayRequest('authorize', CREDENTIALS, { paymentMethod: testCard(PAN, { cvc: null, address: false }), currencyCode: 'USD', shippingAddress }));
    const transaction = sent(received).createTransactionRequest.transactionRequest;
    expect(Object.keys(transaction)).toEqual(['transactionType', 'amount', 'currencyCode', 'payment', 'customer', 'billTo', 'shipTo']);
    expect(transaction).toMatchObject({ transactionType: 'authOnlyTransaction', amount: '10.00', payment: { creditCard: { cardNumber: PAN, expirationDate: '2030-03' } }, billTo: { firstName: 'Ada', lastName: 'Lovelace' } });
    expect(transaction.shipTo).toEqual({ firstName: 'Charles', lastName: 'Babbage', address: '1 Dorset St Flat 2', city: 'London', state: 'LND', zip: 'W1U 4EG', country: 'GB' });
    const long = testCard(PAN) as Extract<GatewayRequest['paymentMethod'], { type: 'credit_card' }>;
    const longCard = { ...long, firstName: 'A'.repeat(60), address: { ...long.address, address1: 'B'.repeat(70), zip: '9'.repeat(25) } };
    expect(sent((await run(purchase({ paymentMethod: longCard }))).request).createTransactionRequest.transactionRequest.billTo).toMatchObject({ firstName: 'A'.repeat(50), address: 'B'.repeat(60), zip: '9'.repeat(20) });
    expect(sent((await run(purchase({ amount: 1500, currencyCode: 'JPY' }))).request).createTransactionRequest.transactionRequest).toMatchObject({ amount: '1500', currencyCode: 'JPY' });
    expect(sent((await run(purchase({ amount: 1234, currencyCode: 'KWD' }))).request).createTransactionRequest.transactionRequest).toMatchObject({ amount: '1.234', currencyCode: 'KWD' });
  });

  it('verifies with a $0 authOnlyTransaction', async () => {
    const { response, request: received } = await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: testCard(PAN), currencyCode: null }));
    expect(sent(received).createTransactionRequest.transactionRequest).toMatchObject({ transactionType: 'authOnlyTransaction', amount: '0.00', payment: { creditCard: { cardNumber: PAN } } });
    expect(response).toMatchObject({ success: true, gatewayTransactionId: '2149186775#1111#verify' });
  });

  it('maps responseCode 2 / reason 2 to card_declined with the reason text', async () => {
    next = json(declined('2', 'This transaction has been declined.'));
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, message: 'This transaction has been declined', errorCode: 'card_declined', errorDetail: '2: This transaction has been declined.', avsCode: 'I', gatewayTransactionId: '0#1111#purchase' });
  });

  it.each([
    ['2', '3', 'card_declined'],
    ['2', '4', 'pickup_card'],
    ['3', '6', 'incorrect_number'],
    ['2', '37', 'invalid_number'],
    ['3', '7', 'invalid_expiry_date'],
    ['3', '8', 'expired_card'],
    ['2', '27', 'incorrect_address'],
    ['2', '44', 'incorrect_cvc'],
    ['2', '45', 'incorrect_cvc'],
    ['2', '65', 'incorrect_cvc'],
    ['3', '78', 'invalid_cvc'],
    ['2', '5', 'card_declined'],
    ['3', '11', 'processing_error'],
  ])('maps responseCode %s with reason %s to %s', async (responseCode, reason, standard) => {
    next = json(declined(reason, 'Reason text.', responseCode));
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: standard, message: 'Reason text' });
  });

  it('a request refused as a whole (E00007 wrong credentials) is a config_error decline', async () => {
    next = json({ messages: { resultCode: 'Error', message: [{ code: 'E00007', text: 'User authentication failed due to invalid authentication values.' }] } });
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'config_error', message: 'User authentication failed due to invalid authentication values', gatewayTransactionId: null });
    next = json({ messages: { resultCode: 'Error', message: [{ code: 'E00003', text: 'The element is invalid.' }] } });
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error' });
  });

  it('responseCode 4 (held for review) succeeds with fraudReview; 310/311 (already actioned) is not a success', async () => {
    next = json(approved({ responseCode: '4', messages: [{ code: '252', description: 'Your order has been received. Thank you for your business!' }] }));
    expect((await run(purchase())).response).toMatchObject({ success: true, fraudReview: true });
    next = json(approved({ messages: [{ code: '311', description: 'This transaction has already been captured.' }] }));
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'This transaction has already been captured' });
  });

  it('maps AVS letters as ActiveMerchant does (B and P → I, unknown left out) and CVV letters', async () => {
    next = json(approved({ avsResultCode: 'B', cvvResultCode: 'N' }));
    expect((await run(purchase())).response).toMatchObject({ avsCode: 'I', cvvCode: 'N', cvvMessage: 'No Match' });
    next = json(approved({ avsResultCode: 'Q', cvvResultCode: '' }));
    expect((await run(purchase())).response).toMatchObject({ success: true, avsCode: null, cvvCode: null });
  });
});

describe('Authorize.Net: wallet tokens (Apple Pay, Google Pay)', () => {
  it('sends the DPAN with isPaymentToken and the cryptogram in payment.creditCard; the transcript holds neither', async () => {
    const { response, request: received, transcript } = await run(purchase({ paymentMethod: walletMethod(PAN) }));
    expect(response.success).toBe(true);
    const transaction = sent(received).createTransactionRequest.transactionRequest;
    expect(transaction.payment).toEqual({ creditCard: { cardNumber: PAN, expirationDate: '2034-12', isPaymentToken: true, cryptogram: WALLET_CRYPTOGRAM } });
    expect(transaction.billTo).toEqual({ firstName: 'Ada', lastName: 'Lovelace' });
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(text).not.toContain(WALLET_CRYPTOGRAM);
    expect(text).not.toContain(PAN);
  });

  it('sends no cryptogram on a merchant-initiated charge, and a PAN_ONLY Google Pay card as a plain card', async () => {
    const mit = sent((await run(purchase({ paymentMethod: walletMethod(PAN), storedCredential: { initiator: 'merchant', reasonType: 'unscheduled', networkTransactionId: null } }))).request);
    expect(mit.createTransactionRequest.transactionRequest.payment).toEqual({ creditCard: { cardNumber: PAN, expirationDate: '2034-12', isPaymentToken: true } });
    const plain = sent((await run(purchase({ paymentMethod: googlePanOnly(PAN) }))).request);
    expect(plain.createTransactionRequest.transactionRequest.payment).toEqual({ creditCard: { cardNumber: PAN, expirationDate: '2034-12' } });
  });
});

describe('Authorize.Net: capture, refund, void', () => {
  it('captures part of an authorization with priorAuthCaptureTransaction by refTransId', async () => {
    next = json(approved({ authCode: '', avsResultCode: 'P', cvvResultCode: '', transId: '2149186775' }));
    const { response, request: received } = await run(gatewayRequest('capture', CREDENTIALS, { amount: 750, currencyCode: 'USD', reference: reference('2149186775#1111#authorize') }));
    const transaction = sent(received).createTransactionRequest.transactionRequest;
    expect(transaction).toEqual({ transactionType: 'priorAuthCaptureTransaction', amount: '7.50', refTransId: '2149186775' });
    expect(response).toMatchObject({ success: true, gatewayTransactionId: '2149186775#1111#capture' });
  });

  it('refunds part with refundTransaction: the last four as cardNumber, expirationDate XXXX, refTransId', async () => {
    next = json(approved({ transId: '2149186848', avsResultCode: 'P', cvvResultCode: '' }));
    const { response, request: received } = await run(gatewayRequest('credit', CREDENTIALS, { amount: 300, currencyCode: 'USD', reference: reference('2149186775#1111#capture') }));
    const transaction = sent(received).createTransactionRequest.transactionRequest;
    expect(Object.keys(transaction)).toEqual(['transactionType', 'amount', 'payment', 'refTransId']);
    expect(transaction).toEqual({ transactionType: 'refundTransaction', amount: '3.00', payment: { creditCard: { cardNumber: '1111', expirationDate: 'XXXX' } }, refTransId: '2149186775' });
    expect(response).toMatchObject({ success: true, gatewayTransactionId: '2149186848#1111#refund' });
  });

  it('refuses a refund whose reference carries no last four, before sending', async () => {
    const before = fake.requests.length;
    expect((await run(gatewayRequest('credit', CREDENTIALS, { amount: 300, currencyCode: 'USD', reference: reference('2149186775') }))).response).toMatchObject({ success: false, errorCode: 'processing_error' });
    expect(fake.requests.length).toBe(before);
  });

  it('voids with voidTransaction and refTransId only; a refused void keeps its code', async () => {
    next = json(approved({ authCode: '', avsResultCode: 'P', cvvResultCode: '' }));
    const { response, request: received } = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('2149186775#1111#authorize') }));
    expect(sent(received).createTransactionRequest.transactionRequest).toEqual({ transactionType: 'voidTransaction', refTransId: '2149186775' });
    expect(response).toMatchObject({ success: true, gatewayTransactionId: '2149186775#1111#void' });
    next = json(declined('16', 'The transaction cannot be found.', '3'));
    expect((await run(gatewayRequest('void', CREDENTIALS, { reference: reference('1#1111#authorize') }))).response).toMatchObject({ success: false, errorCode: 'processing_error' });
  });
});

describe('Authorize.Net: store (customer profiles) and purchases with them', () => {
  const PROFILE_OK = { customerProfileId: '190178', customerPaymentProfileIdList: ['157497'], customerShippingAddressIdList: [], validationDirectResponseList: [], messages: OK };

  it('stores with createCustomerProfileRequest (one payment profile, validationMode none) and returns customerProfileId|paymentProfileId', async () => {
    next = json(PROFILE_OK);
    const request = gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) });
    const { response, request: received } = await run(request);
    const body = JSON.parse(received.rawBody) as { createCustomerProfileRequest: Record<string, any> };
    const profileRequest = body.createCustomerProfileRequest;
    expect(Object.keys(profileRequest)).toEqual(['merchantAuthentication', 'refId', 'profile', 'validationMode']);
    expect(Object.keys(profileRequest.profile)).toEqual(['merchantCustomerId', 'email', 'paymentProfiles']);
    expect(profileRequest).toEqual({
      merchantAuthentication: { name: LOGIN, transactionKey: KEY },
      refId: request.transactionToken.slice(0, 20),
      profile: {
        merchantCustomerId: request.transactionToken.slice(0, 20),
        email: 'ada@example.com',
        paymentProfiles: {
          customerType: 'individual',
          billTo: { firstName: 'Ada', lastName: 'Lovelace', address: '12 St James Sq', city: 'London', zip: 'SW1Y 4JH', country: 'GB' },
          payment: { creditCard: { cardNumber: PAN, expirationDate: '2030-03', cardCode: '737' } },
        },
      },
      validationMode: 'none',
    });
    expect(response).toMatchObject({ success: true, message: 'Successful', thirdPartyToken: '190178|157497', gatewayTransactionId: '190178' });
  });

  it('a refused store (E00039 duplicate, E00007) fails with its message; a success without ids is an unknown outcome', async () => {
    next = json({ messages: { resultCode: 'Error', message: [{ code: 'E00039', text: 'A duplicate record with ID 39223 already exists.' }] } });
    expect((await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) }))).response).toMatchObject({ success: false, errorCode: 'processing_error', thirdPartyToken: null, message: 'A duplicate record with ID 39223 already exists' });
    next = json({ messages: { resultCode: 'Error', message: [{ code: 'E00007', text: 'User authentication failed due to invalid authentication values.' }] } });
    expect((await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) }))).response).toMatchObject({ success: false, errorCode: 'config_error' });
    next = json({ customerPaymentProfileIdList: [], messages: OK });
    expect(await fault(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) }))).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('purchases with profile.customerProfileId and paymentProfile.paymentProfileId, sending no card or billTo', async () => {
    const { response, request: received } = await run(purchase({ paymentMethod: { type: 'third_party_token', token: '190178|157497' }, email: null }));
    const transaction = sent(received).createTransactionRequest.transactionRequest;
    expect(Object.keys(transaction)).toEqual(['transactionType', 'amount', 'currencyCode', 'profile']);
    expect(transaction.profile).toEqual({ customerProfileId: '190178', paymentProfile: { paymentProfileId: '157497' } });
    expect(received.rawBody).not.toContain(PAN);
    expect(response).toMatchObject({ success: true, gatewayTransactionId: '2149186775#1111#purchase' });
  });
});

describe('Authorize.Net: answers that are not answers', () => {
  it('a 5xx, garbage, a non-2xx and a missing or unknown required field are faults', async () => {
    next = { status: 503, body: 'busy' };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 503' });
    fake.setMode('garbage');
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    fake.setMode('normal');
    next = { status: 404, body: 'Not Found' };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 404' });
    next = json({ transactionResponse: approved().transactionResponse });
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('messages') });
    next = json(approved({ responseCode: '9' }));
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('transactionResponse.responseCode') });
  });

  it('ignores unknown fields; an approval without transId is an unknown outcome', async () => {
    next = json({ ...approved({ somethingNew: { x: 1 } }), extra: true });
    expect((await run(purchase())).response.success).toBe(true);
    next = json(approved({ transId: '0' }));
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('a timeout or a reset after sending is a GatewayResultUnknownError', async () => {
    fake.setMode('hang');
    expect(await fault(purchase(), 300)).toBeInstanceOf(GatewayResultUnknownError);
    fake.setMode('reset');
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('refuses before sending: no transaction key, no expiry, not a card', async () => {
    const before = fake.requests.length;
    expect((await run(gatewayRequest('purchase', { login: LOGIN }, { paymentMethod: testCard(PAN), currencyCode: 'USD' }))).response).toMatchObject({ success: false, errorCode: 'config_error' });
    const noExpiry = { ...testCard(PAN), month: null } as GatewayRequest['paymentMethod'];
    expect((await run(purchase({ paymentMethod: noExpiry }))).response).toMatchObject({ success: false, errorCode: 'invalid_expiry_date' });
    expect((await run(purchase({ paymentMethod: { type: 'sprel' } }))).response).toMatchObject({ success: false, errorCode: 'unsupported_feature' });
    expect((await run(purchase({ paymentMethod: { type: 'third_party_token', token: '190178' } }))).response).toMatchObject({ success: false, errorCode: 'processing_error' });
    expect(fake.requests.length).toBe(before);
  });
});

describe('Authorize.Net: definition and scrubbing', () => {
  it('advertises what it implements under Spreedly’s gateway_type and credential names; sandbox and live hosts', () => {
    const { definition } = authorizeNetGateway;
    expect(definition.gatewayType).toBe('authorize_net');
    expect([...definition.characteristics].sort()).toEqual(['supports_authorize', 'supports_capture', 'supports_credit', 'supports_purchase', 'supports_store', 'supports_verify', 'supports_void']);
    expect(definition.authModes.map((mode) => mode.credentials.map((field) => [field.name, field.safe]))).toEqual([
      [
        ['login', true],
        ['password', false],
      ],
    ]);
    expect(authorizeNetGateway.endpoint?.(purchase())).toBe(ANET_TEST_BASE);
    expect(authorizeNetGateway.endpoint?.(purchase({ testMode: false }))).toBe(ANET_LIVE_BASE);
  });

  it('keeps no PAN, CVV, expiry or transaction key in the transcript', async () => {
    const { transcript } = await run(purchase());
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(findCardData(text, [PAN])).toEqual([]);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('"cardCode":"737"');
    expect(text).not.toContain('2030-03');
    expect(text).toContain(`POST ${fake.url}/xml/v1/request.api`);
    expect(text).toContain(`"name":"${LOGIN}"`);
    expect(text).toContain('This transaction has been approved.');

    next = json({ customerProfileId: '190178', customerPaymentProfileIdList: ['157497'], messages: OK });
    const stored = (await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) }))).transcript.map((entry) => entry.text).join('\n');
    expect(findCardData(stored, [PAN])).toEqual([]);
    expect(stored).not.toContain(KEY);
    expect(stored).not.toContain('"cardCode":"737"');
    expect(stored).toContain('createCustomerProfileRequest');
  });
});
