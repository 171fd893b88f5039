import https from 'node:https';
import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { adyenGateway } from '../../src/gateways/adyen.gateway.js';
import { ADYEN_TEST_BASE, DEFAULT_RETURN_URL } from '../../src/gateways/adyen/adyen-api.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';
import { TestCa } from '../fakes/mtls-receiver.js';
import { googlePanOnly, WALLET_CRYPTOGRAM, walletMethod } from '../helpers/wallet-methods.js';

/**
 * Canned-response tests of the Adyen module (Checkout API v71). The answers are the examples of
 * Adyen's public API reference (Adyen/adyen-openapi CheckoutService-v71: post-payments-card-direct-200,
 * generic-401/403/422/500, captures/refunds/cancels 201, storedPaymentMethods 201) and of its
 * "Refusal reasons" and "Testing result codes" pages, served by a local HTTP server. Each test
 * asserts the exact request and how the answer maps.
 */

const API_KEY = 'AQEyhmfxK4PJYhZFw0m/n3Q5qf3VaY9UCJ1+XWZe9W27jmlZiq1dF8ZMBAG4G7Q=-secretKeyTail';
const PAN = '4988438843884305';
const CVC = '737';
const API_KEY_CREDENTIALS = { merchant_account: 'CofferECOM', api_key: API_KEY };
const BASIC_CREDENTIALS = { merchant_account: 'CofferECOM', username: 'ws@Company.Coffer', password: 'Wsp4ssw0rd!-secret' };

/** Adyen's documented answers. */
const AUTHORISED = {
  additionalData: {
    cvcResult: '1 Matches',
    authCode: '044925',
    avsResult: '4 AVS not supported for this card type',
    avsResultRaw: '4',
    cvcResultRaw: 'M',
    refusalReasonRaw: 'AUTHORISED',
    acquirerCode: 'TestPmmAcquirer',
    acquirerReference: '8PQMP9VEP3H',
  },
  pspReference: '993617895204576J',
  resultCode: 'Authorised',
  merchantReference: 'string',
};
const REFUSED = { pspReference: '89783918347627F', refusalReason: 'Refused', resultCode: 'Refused', refusalReasonCode: '2' };
const GENERIC_401 = { status: 401, errorCode: '000', message: 'HTTP Status Response - Unauthorized', errorType: 'security' };
const GENERIC_403 = { status: 403, errorCode: '901', message: 'Invalid Merchant Account', errorType: 'security', pspReference: '881611827877203B' };
const GENERIC_422 = { status: 422, errorCode: '14_030', message: 'Return URL is missing.', errorType: 'validation', pspReference: '8816118280275544' };
const GENERIC_500 = { status: 500, errorCode: '905', message: 'Payment details are not supported', errorType: 'configuration', pspReference: '8516091485743033' };
const CAPTURE_201 = { merchantAccount: 'CofferECOM', paymentPspReference: '993617894903480A', reference: 'r', pspReference: '993617894906488A', status: 'received', amount: { value: 2000, currency: 'EUR' } };
const STORED_201 = { expiryMonth: '03', expiryYear: '2030', holderName: 'Ada Lovelace', id: 'KHQC5N7G84BLNK43', lastFour: '4305', shopperReference: 'shopper-1', type: 'scheme' };

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
/** What the server answers next, whatever the route. */
let next: FakeAnswer = { json: AUTHORISED };

async function run(request: GatewayRequest, timeoutMs = 3000): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(adyenGateway, request, transcript, { http, override: fake.url, timeoutMs });
  expect(fake.requests.length - before).toBeLessThanOrEqual(1);
  return { response, transcript, sent: fake.requests[fake.requests.length - 1] as FakeRequest };
}

async function fault(request: GatewayRequest, override = fake.url, timeoutMs = 3000): Promise<{ error: unknown; transcript: TranscriptEntry[] }> {
  const transcript: TranscriptEntry[] = [];
  try {
    await executeOperation(adyenGateway, request, transcript, { http, override, timeoutMs });
  } catch (error) {
    return { error, transcript };
  }
  throw new Error('expected the module to throw');
}

const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', API_KEY_CREDENTIALS, { paymentMethod: testCard(PAN), ...overrides });
const reference = (id: string, transactionType = 'Authorization') => ({ gatewayTransactionId: id, transactionType, amount: 1000 });

beforeAll(async () => {
  const answer = () => next;
  fake = await FakeGatewayServer.start([
    // Live paths carry /checkout before the version.
    { method: 'POST', path: /^(?:\/checkout)?\/v71\/payments$/, handle: answer },
    { method: 'POST', path: /^\/v71\/payments\/([^/]+)\/(captures|refunds|cancels)$/, handle: answer },
    { method: 'POST', path: '/v71/storedPaymentMethods', handle: answer },
  ]);
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  next = { json: AUTHORISED };
});

describe('Adyen: purchase and authorize', () => {
  it('sends a raw scheme card to POST /v71/payments with every required field, X-API-Key and the transaction token as Idempotency-Key', async () => {
    const request = purchase({ orderId: 'order-42', email: 'ada@example.com', ip: '192.0.2.1', amount: 1999, currencyCode: 'EUR' });
    const { response, sent } = await run(request);

    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/v71/payments');
    expect(sent.headers['x-api-key']).toBe(API_KEY);
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.headers['idempotency-key']).toBe(request.transactionToken);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(jsonOf(sent)).toEqual({
      merchantAccount: 'CofferECOM',
      amount: { value: 1999, currency: 'EUR' },
      reference: 'order-42',
      paymentMethod: { type: 'scheme', number: PAN, expiryMonth: '03', expiryYear: '2030', holderName: 'Ada Lovelace', cvc: CVC },
      billingAddress: { street: '12 St James Sq', houseNumberOrName: 'N/A', postalCode: 'SW1Y 4JH', city: 'London', country: 'GB' },
      shopperInteraction: 'Ecommerce',
      returnUrl: DEFAULT_RETURN_URL,
      shopperEmail: 'ada@example.com',
      shopperIP: '192.0.2.1',
      captureDelayHours: 0,
    });
    expect(response).toMatchObject({
      success: true,
      message: 'Transaction approved',
      gatewayTransactionId: '993617895204576J',
      errorCode: null,
      avsCode: 'E',
      avsMessage: 'AVS data is invalid or AVS is not allowed for this card type.',
      cvvCode: 'M',
      cvvMessage: 'Match',
      specificResponseFields: { adyen: { result_code: 'Authorised', auth_code: '044925' } },
    });
  });

  it('authorizes with manual capture, uses Basic auth for a web service user and gateway-specific fields', async () => {
    const request = gatewayRequest('authorize', BASIC_CREDENTIALS, { paymentMethod: testCard(PAN, { cvc: null, address: false }), gatewaySpecificFields: { return_url: 'https://shop.example/back', shopper_statement: 'COFFER*TEA' } });
    const { response, sent } = await run(request);
    expect(sent.headers.authorization).toBe(`Basic ${Buffer.from('ws@Company.Coffer:Wsp4ssw0rd!-secret').toString('base64')}`);
    expect(sent.headers['x-api-key']).toBeUndefined();
    const body = jsonOf(sent);
    expect(body).toMatchObject({ additionalData: { manualCapture: 'true' }, returnUrl: 'https://shop.example/back', shopperStatement: 'COFFER*TEA', reference: request.transactionToken });
    expect(body).not.toHaveProperty('captureDelayHours');
    expect(body).not.toHaveProperty('billingAddress');
    expect(body.paymentMethod).not.toHaveProperty('cvc');
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized' });
  });

  it('sends JPY in whole yen, KWD in fils and IDR in whole rupiah (Adyen differs from ISO there)', async () => {
    expect(jsonOf((await run(purchase({ amount: 1500, currencyCode: 'JPY' }))).sent).amount).toEqual({ value: 1500, currency: 'JPY' });
    expect(jsonOf((await run(purchase({ amount: 1234, currencyCode: 'KWD' }))).sent).amount).toEqual({ value: 1234, currency: 'KWD' });
    expect(jsonOf((await run(purchase({ amount: 150000, currencyCode: 'IDR' }))).sent).amount).toEqual({ value: 1500, currency: 'IDR' });
    expect(jsonOf((await run(purchase({ amount: 15, currencyCode: 'ISK' }))).sent).amount).toEqual({ value: 1500, currency: 'ISK' });
  });

  it('refuses an IDR amount Adyen cannot express, sending nothing', async () => {
    const before = fake.requests.length;
    const { response } = await run(purchase({ amount: 150050, currencyCode: 'IDR' }));
    expect(fake.requests.length).toBe(before);
    expect(response).toMatchObject({ success: false, errorCode: 'invalid_amount' });
  });

  it('maps a refusal (resultCode Refused, refusalReasonCode 2) to card_declined with its pspReference', async () => {
    next = { json: REFUSED };
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, message: 'Refused', errorCode: 'card_declined', gatewayTransactionId: '89783918347627F', errorDetail: '2: Refused' });
  });

  it.each([
    ['12', 'Not enough balance', 'insufficient_funds'],
    ['6', 'Expired Card', 'expired_card'],
    ['24', 'CVC Declined', 'incorrect_cvc'],
    ['3', 'Referral', 'call_issuer'],
    ['5', 'Blocked Card', 'pickup_card'],
    ['8', 'Invalid Card Number', 'incorrect_number'],
    ['32', 'AVS Declined', 'incorrect_address'],
    ['20', 'FRAUD', 'card_declined'],
  ])('maps refusalReasonCode %s (%s) to %s', async (code, reason, standard) => {
    next = { json: { pspReference: '8815', resultCode: 'Refused', refusalReason: reason, refusalReasonCode: code, additionalData: { refusalReasonRaw: `${reason.toUpperCase()}` } } };
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, errorCode: standard, message: reason === reason.toUpperCase() ? reason : `${reason} | ${reason.toUpperCase()}` });
  });

  it('maps resultCode Error to processing_error', async () => {
    next = { json: { pspReference: '8816', resultCode: 'Error', refusalReason: 'Acquirer Error', refusalReasonCode: '4' } };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'Acquirer Error' });
  });

  it('maps AVS and CVC results by their leading number', async () => {
    next = { json: { ...AUTHORISED, additionalData: { avsResult: '7 Both postal code and address match', cvcResult: '2 Does not match' } } };
    expect((await run(purchase())).response).toMatchObject({ avsCode: 'D', cvvCode: 'N', cvvMessage: 'No Match' });
    next = { json: { ...AUTHORISED, additionalData: { avsResult: '20 Name, address and postal code matches.', cvcResult: 'no digit' } } };
    expect((await run(purchase())).response).toMatchObject({ avsCode: 'V', cvvCode: null });
    next = { json: { pspReference: 'P', resultCode: 'Authorised' } };
    expect((await run(purchase())).response).toMatchObject({ success: true, avsCode: null, cvvCode: null });
  });

  it('treats a redirect it did not ask for as a failure (no 3-D Secure flow), and Pending as an unknown outcome', async () => {
    next = { json: { pspReference: 'P1', resultCode: 'RedirectShopper', action: { type: 'redirect', url: 'https://checkoutshopper-test.adyen.com/x' } } };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error', pending: false, gatewayTransactionId: 'P1', specificResponseFields: { adyen: { result_code: 'RedirectShopper' } } });
    next = { json: { pspReference: 'P2', resultCode: 'Pending' } };
    expect((await fault(purchase())).error).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('maps 4xx service errors: 401/403 to config_error, validation errorCodes as ActiveMerchant does', async () => {
    next = { status: 401, json: GENERIC_401 };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'config_error', message: 'HTTP Status Response - Unauthorized' });
    next = { status: 403, json: GENERIC_403 };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'config_error', errorDetail: '901: Invalid Merchant Account' });
    next = { status: 422, json: GENERIC_422 };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'Return URL is missing.' });
    next = { status: 422, json: { status: 422, errorCode: '101', message: 'Invalid card number', errorType: 'validation' } };
    expect((await run(purchase())).response).toMatchObject({ errorCode: 'incorrect_number' });
    next = { status: 422, json: { status: 422, errorCode: 103, message: 'CVC is not the right length', errorType: 'validation' } };
    expect((await run(purchase())).response).toMatchObject({ errorCode: 'invalid_cvc' });
  });

  it('purchases with a stored card: storedPaymentMethodId, shopperReference, ContAuth and the recurring model', async () => {
    const request = gatewayRequest('purchase', API_KEY_CREDENTIALS, { paymentMethod: { type: 'third_party_token', token: 'shopper-1|KHQC5N7G84BLNK43' }, gatewaySpecificFields: { recurring_processing_model: 'Subscription' } });
    const { response, sent } = await run(request);
    expect(jsonOf(sent)).toMatchObject({
      paymentMethod: { type: 'scheme', storedPaymentMethodId: 'KHQC5N7G84BLNK43' },
      shopperReference: 'shopper-1',
      shopperInteraction: 'ContAuth',
      recurringProcessingModel: 'Subscription',
    });
    expect(response.success).toBe(true);
    const bad = await run(gatewayRequest('purchase', API_KEY_CREDENTIALS, { paymentMethod: { type: 'third_party_token', token: 'no-separator' } }));
    expect(bad.response).toMatchObject({ success: false, errorCode: 'invalid_number' });
  });
});

describe('Adyen: wallet tokens (Apple Pay, Google Pay)', () => {
  it('sends an Apple Pay DPAN as a scheme card with applepay as the payment data source and the cryptogram as mpiData.cavv', async () => {
    const { response, sent, transcript } = await run(purchase({ paymentMethod: walletMethod(PAN) }));
    expect(response.success).toBe(true);
    const body = jsonOf(sent);
    expect(body).toMatchObject({
      paymentMethod: { type: 'scheme', number: PAN, expiryMonth: '12', expiryYear: '2034', holderName: 'Ada Lovelace' },
      shopperInteraction: 'Ecommerce',
      mpiData: { authenticationResponse: 'Y', directoryResponse: 'Y', eci: '07', cavv: WALLET_CRYPTOGRAM },
      additionalData: { 'paymentdatasource.type': 'applepay' },
    });
    expect((body.paymentMethod as Record<string, unknown>).cvc).toBeUndefined();
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(text).not.toContain(WALLET_CRYPTOGRAM);
    expect(text).not.toContain(PAN);
  });

  it('marks a Google Pay DPAN tokenized and a PAN_ONLY card not, sending no mpiData for the latter', async () => {
    const dpan = jsonOf((await run(purchase({ paymentMethod: walletMethod(PAN, { type: 'google_pay', eci: '05' }) }))).sent);
    expect(dpan.additionalData).toEqual({ 'paymentdatasource.type': 'googlepay', 'paymentdatasource.tokenized': 'true' });
    expect(dpan.mpiData).toMatchObject({ eci: '05', cavv: WALLET_CRYPTOGRAM });
    const card = jsonOf((await run(purchase({ paymentMethod: googlePanOnly(PAN) }))).sent);
    expect(card.additionalData).toEqual({ 'paymentdatasource.type': 'googlepay', 'paymentdatasource.tokenized': 'false' });
    expect(card.mpiData).toBeUndefined();
  });

  it('sends no cryptogram on a merchant-initiated charge: ContAuth with the network transaction id', async () => {
    const { sent } = await run(purchase({ paymentMethod: walletMethod(PAN), storedCredential: { initiator: 'merchant', reasonType: 'recurring', networkTransactionId: 'nti-9' } }));
    const body = jsonOf(sent);
    expect(body.mpiData).toBeUndefined();
    expect(body).toMatchObject({ shopperInteraction: 'ContAuth', recurringProcessingModel: 'Subscription', additionalData: { networkTxReference: 'nti-9', 'paymentdatasource.type': 'applepay' } });
  });
});

describe('Adyen: capture, credit, void, verify, store', () => {
  it('captures part of an authorization at /payments/{pspReference}/captures', async () => {
    next = { status: 201, json: CAPTURE_201 };
    const request = gatewayRequest('capture', API_KEY_CREDENTIALS, { amount: 2000, reference: reference('993617894903480A') });
    const { response, sent } = await run(request);
    expect(sent.path).toBe('/v71/payments/993617894903480A/captures');
    expect(sent.headers['idempotency-key']).toBe(request.transactionToken);
    expect(jsonOf(sent)).toEqual({ merchantAccount: 'CofferECOM', reference: request.transactionToken, amount: { value: 2000, currency: 'EUR' } });
    expect(response).toMatchObject({ success: true, message: 'Capture received', gatewayTransactionId: '993617894903480A#993617894906488A' });
  });

  it("refunds a capture through its payment's pspReference with capturePspReference", async () => {
    next = { status: 201, json: { ...CAPTURE_201, pspReference: '993617894906999R' } };
    const { response, sent } = await run(gatewayRequest('credit', API_KEY_CREDENTIALS, { amount: 500, reference: reference('993617894903480A#993617894906488A', 'Capture') }));
    expect(sent.path).toBe('/v71/payments/993617894903480A/refunds');
    expect(jsonOf(sent)).toMatchObject({ amount: { value: 500, currency: 'EUR' }, capturePspReference: '993617894906488A' });
    expect(response).toMatchObject({ success: true, message: 'Refund received' });
  });

  it('voids at /cancels without an amount', async () => {
    next = { status: 201, json: { merchantAccount: 'CofferECOM', paymentPspReference: '993617894903480A', reference: 'r', pspReference: '993617894906488A', status: 'received' } };
    const { response, sent } = await run(gatewayRequest('void', API_KEY_CREDENTIALS, { reference: reference('993617894903480A') }));
    expect(sent.path).toBe('/v71/payments/993617894903480A/cancels');
    expect(jsonOf(sent)).not.toHaveProperty('amount');
    expect(response).toMatchObject({ success: true, message: 'Cancellation received' });
  });

  it('verifies with a zero-value authorization', async () => {
    const { response, sent } = await run(gatewayRequest('verify', API_KEY_CREDENTIALS, { paymentMethod: testCard(PAN), currencyCode: null }));
    expect(jsonOf(sent)).toMatchObject({ amount: { value: 0, currency: 'USD' }, paymentMethod: { type: 'scheme', number: PAN } });
    expect(response).toMatchObject({ success: true, message: 'Card verified' });
  });

  it('stores a card at /storedPaymentMethods and returns shopperReference|id as the third-party token', async () => {
    next = { status: 201, json: STORED_201 };
    const request = gatewayRequest('store', API_KEY_CREDENTIALS, { paymentMethod: testCard(PAN), gatewaySpecificFields: { shopper_reference: 'shopper-1' } });
    const { response, sent } = await run(request);
    expect(sent.path).toBe('/v71/storedPaymentMethods');
    expect(jsonOf(sent)).toEqual({
      merchantAccount: 'CofferECOM',
      shopperReference: 'shopper-1',
      paymentMethod: { type: 'scheme', number: PAN, expiryMonth: '03', expiryYear: '2030', holderName: 'Ada Lovelace', cvc: CVC },
      recurringProcessingModel: 'UnscheduledCardOnFile',
      shopperEmail: undefined,
    });
    expect(response).toMatchObject({ success: true, thirdPartyToken: 'shopper-1|KHQC5N7G84BLNK43', gatewayTransactionId: 'KHQC5N7G84BLNK43' });
  });
});

describe('Adyen: answers that are not answers', () => {
  it('a 5xx is a GatewayFaultError, whatever its body', async () => {
    next = { status: 500, json: GENERIC_500 };
    const { error } = await fault(purchase());
    expect(error).toBeInstanceOf(GatewayFaultError);
    expect((error as GatewayFaultError).detail).toBe('HTTP 500');
  });

  it('garbage, a 4xx that is not a ServiceError, and a missing resultCode are faults, never crashes', async () => {
    fake.setMode('garbage');
    expect((await fault(purchase())).error).toBeInstanceOf(GatewayFaultError);
    fake.setMode('normal');
    next = { status: 404, body: 'Not Found', contentType: 'text/plain' };
    expect((await fault(purchase())).error).toBeInstanceOf(GatewayFaultError);
    next = { status: 400, json: { oops: true } };
    expect((await fault(purchase())).error).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('errorCode') });
    next = { json: { pspReference: 'P' } };
    expect((await fault(purchase())).error).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('resultCode') });
    next = { status: 201, json: { status: 'received' } };
    expect((await fault(gatewayRequest('capture', API_KEY_CREDENTIALS, { reference: reference('X') }))).error).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('pspReference') });
  });

  it('an approval without a pspReference is an unknown outcome (money may have moved)', async () => {
    next = { json: { resultCode: 'Authorised' } };
    expect((await fault(purchase())).error).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('a timeout is a GatewayResultUnknownError; a refused connection a GatewayFaultError', async () => {
    fake.setMode('hang');
    expect((await fault(purchase(), fake.url, 300)).error).toBeInstanceOf(GatewayResultUnknownError);
    fake.setMode('normal');
    const port = await new Promise<number>((resolve) => {
      const probe = net.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as net.AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    const refused = await fault(purchase(), `http://127.0.0.1:${port}`);
    expect(refused.error).toMatchObject({ name: 'GatewayFaultError', detail: 'ECONNREFUSED' });
  });
});

describe('Adyen: endpoints and credentials', () => {
  it('test mode goes to checkout-test.adyen.com; live to the prefix with /checkout; the override keeps the path', async () => {
    const test = purchase();
    expect(adyenGateway.endpoint?.(test)).toBe(ADYEN_TEST_BASE);
    const live = gatewayRequest('purchase', { ...API_KEY_CREDENTIALS, subdomain: '1797a841fbb37ca7-AdyenDemo' }, { testMode: false, paymentMethod: testCard(PAN) });
    expect(adyenGateway.endpoint?.(live)).toBe('https://1797a841fbb37ca7-AdyenDemo-checkout-live.adyenpayments.com/checkout');
    const { sent } = await run(live);
    expect(sent.path).toBe('/checkout/v71/payments');
  });

  it('a live call without the prefix is a config_error, nothing sent', async () => {
    const before = fake.requests.length;
    const { response } = await run(gatewayRequest('purchase', API_KEY_CREDENTIALS, { testMode: false, paymentMethod: testCard(PAN) }));
    expect(fake.requests.length).toBe(before);
    expect(response).toMatchObject({ success: false, errorCode: 'config_error' });
  });

  it('advertises what it implements, under the Spreedly gateway_type and credential names', () => {
    const { definition } = adyenGateway;
    expect(definition.gatewayType).toBe('adyen');
    // supports_populate_mit_fields: stored credentials (ContAuth, networkTxReference; docs/gateways/adyen.md).
    expect([...definition.characteristics].sort()).toEqual([
      'supports_authorize', 'supports_capture', 'supports_credit', 'supports_populate_mit_fields', 'supports_purchase', 'supports_store', 'supports_verify', 'supports_void',
    ]);
    expect(definition.authModes[0]?.credentials.map((field) => field.name)).toEqual(['merchant_account', 'username', 'password', 'subdomain']);
  });
});

describe('Adyen: scrubbing', () => {
  it('keeps no PAN, CVC, expiry, API key or password in the transcript of a full exchange', async () => {
    for (const credentials of [API_KEY_CREDENTIALS, BASIC_CREDENTIALS]) {
      next = { json: { ...AUTHORISED, additionalData: { ...AUTHORISED.additionalData, cardSummary: '4305', 'card.number': PAN } } };
      const { transcript } = await run(gatewayRequest('purchase', credentials, { paymentMethod: testCard(PAN) }));
      next = { status: 201, json: STORED_201 };
      const stored = await run(gatewayRequest('store', credentials, { paymentMethod: testCard(PAN) }));
      const text = [...transcript, ...stored.transcript].map((entry) => entry.text).join('\n');
      expect(findCardData(text, [PAN])).toEqual([]);
      expect(text).not.toContain(API_KEY);
      expect(text).not.toContain('Wsp4ssw0rd');
      expect(text).not.toContain(Buffer.from('ws@Company.Coffer:Wsp4ssw0rd!-secret').toString('base64'));
      expect(text).not.toMatch(/"cvc"\s*:\s*"737"/);
      expect(text).not.toMatch(/"expiryMonth"\s*:\s*"03"/);
      // Still readable as the exchange it was.
      expect(text).toContain(`POST ${fake.url}/v71/payments`);
      expect(text).toContain('"resultCode":"Authorised"');
      expect(text).toContain('"merchantAccount":"CofferECOM"');
    }
  });
});

describe('Adyen: TLS', () => {
  it('a gateway whose certificate does not verify is a GatewayFaultError: nothing was sent', async () => {
    const ca = await TestCa.create('Untrusted Gateway CA');
    const pem = await ca.issueServer(['localhost'], ['127.0.0.1']);
    let requests = 0;
    const server = https.createServer({ cert: pem.cert, key: pem.key }, (_request, response) => {
      requests += 1;
      response.end('{}');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { error } = await fault(purchase(), `https://127.0.0.1:${(server.address() as net.AddressInfo).port}`);
      expect(error).toBeInstanceOf(GatewayFaultError);
      expect(requests).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
