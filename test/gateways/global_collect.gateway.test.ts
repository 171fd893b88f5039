import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { globalCollectGateway, GLOBAL_COLLECT_LIVE_BASE, GLOBAL_COLLECT_TEST_BASE } from '../../src/gateways/global_collect.gateway.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type AdapterPaymentMethod, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the Worldline Connect (GlobalCollect) module. The answers follow the
 * examples of the Connect server API reference (create payment PENDING_APPROVAL / CAPTURE_REQUESTED,
 * the 402 decline with `paymentResult`, approve, cancel with `voidResponseId`, refund
 * REFUND_REQUESTED, ACCOUNT_VERIFIED, error bodies), as ActiveMerchant's unit tests also carry them;
 * the v1HMAC signature is recomputed here from Connect's documented recipe, independently of the module.
 */

const MERCHANT_ID = '1428';
const API_KEY_ID = '96f16a41890565d0';
const SECRET_API_KEY = 'ConnectSecretApiKey+0123456789abcdef=';
const CREDENTIALS = { merchant_id: MERCHANT_ID, api_key_id: API_KEY_ID, secret_api_key: SECRET_API_KEY };
const PAN = '4567350000427977';
const PAYMENT_ID = '000000142800000000920000100001';

const cardOutput = { paymentProductId: 1, authorisationCode: 'OK1131', fraudResults: { fraudServiceResult: 'no-advice', avsResult: 'Y', cvvResult: 'M' }, card: { cardNumber: '************7977', expiryDate: '0920' } };
const payment = (status: string, statusOutput: Record<string, unknown>, id = PAYMENT_ID) => ({
  id,
  paymentOutput: { amountOfMoney: { amount: 4005, currencyCode: 'USD' }, references: { paymentReference: '0' }, paymentMethod: 'card', cardPaymentMethodSpecificOutput: cardOutput },
  status,
  statusOutput: { statusCodeChangeDateTime: '20191203162910', ...statusOutput },
});
const PENDING_APPROVAL = { creationOutput: { additionalReference: '00000014280000000092', externalReference: PAYMENT_ID }, payment: payment('PENDING_APPROVAL', { isCancellable: true, statusCategory: 'PENDING_MERCHANT', statusCode: 600, isAuthorized: true, isRefundable: false }) };
const CAPTURE_REQUESTED = { payment: payment('CAPTURE_REQUESTED', { isCancellable: true, statusCategory: 'PENDING_CONNECT_OR_3RD_PARTY', statusCode: 800, isAuthorized: true, isRefundable: false }) };
const REJECTION = { code: '430330', requestId: '55635', message: 'Not authorised' };
const DECLINED_402 = {
  errorId: '460ec7ed-f8be-4bd7-bf09-a4cbe07f774e',
  errors: [{ code: '430330', message: 'Not authorised' }],
  paymentResult: { creationOutput: { externalReference: '000000142800000000640000100001' }, payment: payment('REJECTED', { errors: [REJECTION], isCancellable: false, statusCode: 100, isAuthorized: false }, '000000142800000000640000100001') },
};
const VERIFIED = { payment: payment('ACCOUNT_VERIFIED', { isCancellable: false, statusCategory: 'ACCOUNT_VERIFIED', statusCode: 300, isAuthorized: false }) };
const CANCELLED = { payment: payment('CANCELLED', { isCancellable: false, statusCategory: 'UNSUCCESSFUL', statusCode: 99999, isAuthorized: false }), cardPaymentMethodSpecificOutput: { voidResponseId: '00' } };
const REFUND_REQUESTED = { id: '00000014280000000092000-100001', refundOutput: { amountOfMoney: { amount: 4005, currencyCode: 'USD' }, paymentMethod: 'card' }, status: 'REFUND_REQUESTED', statusOutput: { isCancellable: true, statusCode: 800 } };
const INVALID_PAYMENT_ID = { errorId: '6a3ffb94-e1ed-41bc-b9fb-4a8759b3fed7', errors: [{ code: '1002', propertyName: 'paymentId', message: 'INVALID_PAYMENT_ID' }] };

/** Connect's recipe, written out: method, content type, Date, X-GCS headers (name:value), path, each line ending in \n. */
function expectedAuthorization(sent: FakeRequest, secret = SECRET_API_KEY): string {
  const data = `POST\napplication/json\n${sent.headers.date as string}\nx-gcs-idempotence-key:${sent.headers['x-gcs-idempotence-key'] as string}\n${sent.path}\n`;
  return `GCS v1HMAC:${API_KEY_ID}:${createHmac('sha256', secret).update(data).digest('base64')}`;
}

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let answers: FakeAnswer[];

async function run(request: GatewayRequest, timeoutMs = 3000): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest[] }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(globalCollectGateway, request, transcript, { http, override: fake.url, timeoutMs });
  return { response, transcript, sent: fake.requests.slice(before) };
}

async function fault(request: GatewayRequest, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(globalCollectGateway, request, [], { http, override: fake.url, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

type CreditCard = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;
const card = (overrides: Partial<CreditCard> = {}): CreditCard => ({ ...(testCard(PAN) as CreditCard), ...overrides });
const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD', amount: 4005, ...overrides });
const reference = (id: string) => ({ gatewayTransactionId: id, transactionType: 'Authorization', amount: 4005 });
const next = (...list: FakeAnswer[]) => {
  answers = list;
};

beforeAll(async () => {
  fake = await FakeGatewayServer.start([{ method: 'POST', path: /^\/v1\/1428\//, handle: () => answers.shift() ?? { status: 500, json: {} } }]);
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  next({ status: 201, json: { payment: CAPTURE_REQUESTED.payment } });
});

describe('Worldline Connect: v1HMAC-signed payments', () => {
  it('purchases with one POST /v1/{merchantId}/payments (requiresApproval false), signed as Connect documents', async () => {
    const request = purchase({ orderId: 'order-1', description: 'Tea', email: 'ada@example.com' });
    const { response, sent } = await run(request);
    expect(sent).toHaveLength(1);
    const [first] = sent as [FakeRequest];
    expect(first.path).toBe('/v1/1428/payments');
    expect(first.headers['content-type']).toBe('application/json');
    expect(first.headers['x-gcs-idempotence-key']).toBe(request.transactionToken);
    expect(first.headers.date).toMatch(/^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$/);
    expect(Math.abs(Date.parse(first.headers.date as string) - Date.now())).toBeLessThan(60_000);
    expect(first.headers.authorization).toBe(expectedAuthorization(first));
    expect(jsonOf(first)).toEqual({
      order: {
        amountOfMoney: { amount: 4005, currencyCode: 'USD' },
        customer: {
          personalInformation: { name: { firstName: 'Ada', surname: 'Lovelace' } },
          billingAddress: { street: '12 St James Sq', zip: 'SW1Y 4JH', city: 'London', countryCode: 'GB' },
          contactDetails: { emailAddress: 'ada@example.com' },
        },
        references: { merchantReference: 'order-1', descriptor: 'Tea' },
      },
      cardPaymentMethodSpecificInput: {
        paymentProductId: 1,
        skipAuthentication: true,
        skipFraudService: true,
        authorizationMode: 'FINAL_AUTHORIZATION',
        requiresApproval: false,
        card: { cvv: '737', cardNumber: PAN, expiryDate: '0330', cardholderName: 'Ada Lovelace' },
      },
    });
    expect(response).toMatchObject({ success: true, message: 'Transaction approved', gatewayTransactionId: PAYMENT_ID, avsCode: 'Y', cvvCode: 'M', specificResponseFields: { global_collect: { status: 'CAPTURE_REQUESTED', status_code: '800', authorisation_code: 'OK1131' } } });
  });

  it('approves a purchase Connect still holds (PENDING_APPROVAL) with a second, suffixed idempotence key', async () => {
    next({ status: 201, json: PENDING_APPROVAL }, { status: 200, json: CAPTURE_REQUESTED });
    const request = purchase();
    const { response, sent } = await run(request);
    expect(sent.map((one) => one.path)).toEqual(['/v1/1428/payments', `/v1/1428/payments/${PAYMENT_ID}/approve`]);
    const approve = sent[1] as FakeRequest;
    expect(approve.headers['x-gcs-idempotence-key']).toBe(`${request.transactionToken}-approve`);
    expect(approve.headers.authorization).toBe(expectedAuthorization(approve));
    expect(jsonOf(approve)).toEqual({ amount: 4005 });
    expect(response).toMatchObject({ success: true, gatewayTransactionId: PAYMENT_ID, avsCode: 'Y' });
  });

  it('authorizes with requiresApproval true and succeeds on isAuthorized', async () => {
    next({ status: 201, json: PENDING_APPROVAL });
    const { response, sent } = await run(gatewayRequest('authorize', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD', amount: 4005, gatewaySpecificFields: { pre_authorization: 'true' } }));
    expect(jsonOf(sent[0] as FakeRequest).cardPaymentMethodSpecificInput).toMatchObject({ requiresApproval: true, authorizationMode: 'PRE_AUTHORIZATION' });
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized', gatewayTransactionId: PAYMENT_ID });
  });

  it('sends amounts in minor units by currency exponent: JPY whole yen, KWD fils; product ids by brand', async () => {
    expect(jsonOf((await run(purchase({ amount: 1500, currencyCode: 'JPY' }))).sent[0] as FakeRequest).order).toMatchObject({ amountOfMoney: { amount: 1500, currencyCode: 'JPY' } });
    next({ status: 201, json: CAPTURE_REQUESTED });
    expect(jsonOf((await run(purchase({ amount: 1234, currencyCode: 'KWD' }))).sent[0] as FakeRequest).order).toMatchObject({ amountOfMoney: { amount: 1234, currencyCode: 'KWD' } });
    next({ status: 201, json: CAPTURE_REQUESTED });
    const amex = (await run(purchase({ paymentMethod: card({ cardType: 'american_express' }) }))).sent[0] as FakeRequest;
    expect(jsonOf(amex).cardPaymentMethodSpecificInput).toMatchObject({ paymentProductId: 2 });
  });

  it('refuses a card brand without a payment product, sending nothing', async () => {
    const { response, sent } = await run(purchase({ paymentMethod: card({ cardType: 'maestro' }) }));
    expect(sent).toHaveLength(0);
    expect(response).toMatchObject({ success: false, errorCode: 'unsupported_feature' });
  });

  it('pays with a Connect token instead of card data', async () => {
    const { sent } = await run(purchase({ paymentMethod: { type: 'third_party_token', token: 'bfa8a7e4-4530-4b7f-8c8f-6e3e0a5f1f10' }, gatewaySpecificFields: { payment_product_id: 1 } }));
    const input = jsonOf(sent[0] as FakeRequest).cardPaymentMethodSpecificInput as Record<string, unknown>;
    expect(input).toMatchObject({ token: 'bfa8a7e4-4530-4b7f-8c8f-6e3e0a5f1f10', paymentProductId: 1 });
    expect(input).not.toHaveProperty('card');
  });
});

describe('Worldline Connect: declines and errors', () => {
  it('reads a 402 decline with its paymentResult: the rejected payment and its error code', async () => {
    next({ status: 402, json: DECLINED_402 });
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, errorCode: 'card_declined', message: 'Not authorised', errorDetail: '430330: Not authorised', gatewayTransactionId: '000000142800000000640000100001' });
  });

  it.each([
    ['430360', 'insufficient_funds'],
    ['430357', 'pickup_card'],
    ['430306', 'expired_card'],
    ['430409', 'call_issuer'],
    ['430285', 'card_declined'],
    ['499999', 'card_declined'],
  ])('maps Connect error %s on a rejected payment to %s', async (code, standard) => {
    next({ status: 402, json: { ...DECLINED_402, errors: [{ code, message: 'Not authorised' }], paymentResult: { payment: payment('REJECTED', { errors: [{ code, message: 'Not authorised' }], statusCode: 100, isAuthorized: false }) } } });
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: standard });
  });

  it('maps refusals: validation errors by property, 401/403 as config errors, other codes as processing errors', async () => {
    next({ status: 400, json: { errorId: 'x', errors: [{ code: '21000020', propertyName: 'cardPaymentMethodSpecificInput.card.cardNumber', message: 'VALUE_OUT_OF_RANGE' }] } });
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'invalid_number', errorDetail: '21000020: cardPaymentMethodSpecificInput.card.cardNumber: VALUE_OUT_OF_RANGE' });
    next({ status: 401, json: { errorId: 'x', errors: [{ code: '9002', message: 'MISSING_OR_INVALID_AUTHORIZATION' }] } });
    expect((await run(purchase())).response).toMatchObject({ errorCode: 'config_error', message: 'MISSING_OR_INVALID_AUTHORIZATION' });
    next({ status: 403, body: 'Forbidden' });
    expect((await run(purchase())).response).toMatchObject({ errorCode: 'config_error', errorDetail: 'HTTP 403' });
    next({ status: 404, json: INVALID_PAYMENT_ID });
    expect((await run(gatewayRequest('capture', CREDENTIALS, { amount: 4005, currencyCode: 'USD', reference: reference('nope') }))).response).toMatchObject({ errorCode: 'processing_error', message: 'INVALID_PAYMENT_ID' });
  });

  it('a 409 "request in progress" for our idempotence key is an unknown outcome; another 409 a refusal', async () => {
    next({ status: 409, json: { errorId: 'x', errors: [{ code: '1409', message: 'DUPLICATE_REQUEST_IN_PROGRESS' }] } });
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
    next({ status: 409, json: { errorId: 'x', errors: [{ code: '410120', message: 'PAYMENT_NOT_CANCELLABLE' }] } });
    expect((await run(gatewayRequest('void', CREDENTIALS, { reference: reference(PAYMENT_ID) }))).response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'PAYMENT_NOT_CANCELLABLE' });
  });
});

describe('Worldline Connect: capture, void, credit, verify, store', () => {
  it('captures part of an authorization with POST /payments/{id}/approve', async () => {
    next({ status: 200, json: CAPTURE_REQUESTED });
    const { response, sent } = await run(gatewayRequest('capture', CREDENTIALS, { amount: 3000, currencyCode: 'USD', reference: reference(PAYMENT_ID) }));
    expect((sent[0] as FakeRequest).path).toBe(`/v1/1428/payments/${PAYMENT_ID}/approve`);
    expect(jsonOf(sent[0] as FakeRequest)).toEqual({ amount: 3000 });
    expect((sent[0] as FakeRequest).headers.authorization).toBe(expectedAuthorization(sent[0] as FakeRequest));
    expect(response).toMatchObject({ success: true, message: 'Transaction captured' });
  });

  it('voids with POST /payments/{id}/cancel: CANCELLED succeeds, anything else fails', async () => {
    next({ status: 200, json: CANCELLED });
    const { response, sent } = await run(gatewayRequest('void', CREDENTIALS, { reference: reference(PAYMENT_ID) }));
    expect((sent[0] as FakeRequest).path).toBe(`/v1/1428/payments/${PAYMENT_ID}/cancel`);
    expect(response).toMatchObject({ success: true, message: 'Transaction cancelled' });
    next({ status: 200, json: { payment: payment('REJECTED', { statusCategory: 'UNSUCCESSFUL', statusCode: 99999, isAuthorized: false }), cardPaymentMethodSpecificOutput: { voidResponseId: '98' } } });
    expect((await run(gatewayRequest('void', CREDENTIALS, { reference: reference(PAYMENT_ID) }))).response).toMatchObject({ success: false, errorCode: 'card_declined' });
  });

  it('refunds part with POST /payments/{id}/refund; REFUND_REQUESTED succeeds, REJECTED fails', async () => {
    next({ status: 201, json: REFUND_REQUESTED });
    const { response, sent } = await run(gatewayRequest('credit', CREDENTIALS, { amount: 1000, currencyCode: 'USD', orderId: 'r-1', reference: reference(PAYMENT_ID) }));
    expect((sent[0] as FakeRequest).path).toBe(`/v1/1428/payments/${PAYMENT_ID}/refund`);
    expect(jsonOf(sent[0] as FakeRequest)).toEqual({ amountOfMoney: { amount: 1000, currencyCode: 'USD' }, refundReferences: { merchantReference: 'r-1' } });
    expect(response).toMatchObject({ success: true, message: 'Refund requested', gatewayTransactionId: REFUND_REQUESTED.id });
    next({ status: 201, json: { ...REFUND_REQUESTED, status: 'REJECTED', statusOutput: { statusCategory: 'UNSUCCESSFUL', statusCode: 1850 } } });
    expect((await run(gatewayRequest('credit', CREDENTIALS, { amount: 1000, currencyCode: 'USD', reference: reference(PAYMENT_ID) }))).response).toMatchObject({ success: false, errorDetail: 'REJECTED (1850)' });
  });

  it('verifies with a zero-amount payment: ACCOUNT_VERIFIED succeeds', async () => {
    next({ status: 201, json: VERIFIED });
    const { response, sent } = await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD' }));
    expect(jsonOf(sent[0] as FakeRequest).order).toMatchObject({ amountOfMoney: { amount: 0, currencyCode: 'USD' } });
    expect(response).toMatchObject({ success: true, message: 'Card verified' });
    next({ status: 201, json: PENDING_APPROVAL });
    expect((await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD' }))).response).toMatchObject({ success: false });
  });

  it('stores a card with POST /tokens and answers the token', async () => {
    next({ status: 201, json: { token: 'bfa8a7e4-4530-4b7f-8c8f-6e3e0a5f1f10', isNewToken: true } });
    const { response, sent } = await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: card() }));
    expect((sent[0] as FakeRequest).path).toBe('/v1/1428/tokens');
    expect(jsonOf(sent[0] as FakeRequest)).toEqual({ paymentProductId: 1, card: { customer: { billingAddress: { countryCode: 'GB' } }, data: { cardWithoutCvv: { cardNumber: PAN, expiryDate: '0330', cardholderName: 'Ada Lovelace' } } } });
    expect(response).toMatchObject({ success: true, thirdPartyToken: 'bfa8a7e4-4530-4b7f-8c8f-6e3e0a5f1f10', specificResponseFields: { global_collect: { is_new_token: true } } });
  });

  it('advertises what it implements under ActiveMerchant’s gateway_type and credential names; sandbox and live endpoints', () => {
    const { definition } = globalCollectGateway;
    expect(definition.gatewayType).toBe('global_collect');
    expect([...definition.characteristics].sort()).toEqual(['supports_authorize', 'supports_capture', 'supports_credit', 'supports_purchase', 'supports_store', 'supports_verify', 'supports_void']);
    expect(definition.authModes[0]?.credentials.map((field) => [field.name, field.safe])).toEqual([['merchant_id', true], ['api_key_id', true], ['secret_api_key', false]]);
    expect(globalCollectGateway.endpoint?.(purchase())).toBe(GLOBAL_COLLECT_TEST_BASE);
    expect(globalCollectGateway.endpoint?.(purchase({ testMode: false }))).toBe(GLOBAL_COLLECT_LIVE_BASE);
  });
});

describe('Worldline Connect: faults', () => {
  it('a 5xx, garbage, a 4xx without errors and an answer without payment.id are faults; a hang is unknown', async () => {
    next({ status: 500, json: { errorId: 'x', errors: [{ code: '9999', message: 'UNKNOWN_SERVER_ERROR' }] } });
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 500' });
    next({ status: 400, json: { message: 'nope' } });
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('errors') });
    fake.setMode('garbage');
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    fake.setMode('normal');
    next({ status: 201, json: { payment: { status: 'CAPTURE_REQUESTED' } } });
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('payment.id') });
    next({ status: 201, json: { payment: payment('PENDING_PAYMENT', { statusCategory: 'PENDING_CONNECT_OR_3RD_PARTY', statusCode: 50, isAuthorized: false }) } });
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
    fake.setMode('hang');
    expect(await fault(purchase(), 300)).toBeInstanceOf(GatewayResultUnknownError);
    fake.setMode('normal');
  });
});

describe('Worldline Connect: scrubbing', () => {
  it('keeps no PAN, CVV, expiry, secret API key or signature in the transcript', async () => {
    next({ status: 201, json: { payment: { ...CAPTURE_REQUESTED.payment, paymentOutput: { cardPaymentMethodSpecificOutput: { ...cardOutput, card: { cardNumber: PAN, expiryDate: '0330' } } } } } });
    const { transcript, sent } = await run(purchase());
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(findCardData(text, [PAN])).toEqual([]);
    expect(text).not.toContain(SECRET_API_KEY);
    expect(text).not.toContain((sent[0] as FakeRequest).headers.authorization as string);
    expect(text).not.toMatch(/"cvv"\s*:\s*"737"/);
    expect(text).not.toContain('0330');
    expect(text).toMatch(/authorization: \[FILTERED\]/i);
    expect(text).toContain('"status":"CAPTURE_REQUESTED"');
  });
});
