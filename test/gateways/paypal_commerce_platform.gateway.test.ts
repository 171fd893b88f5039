import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { paypalCommercePlatformGateway as paypal } from '../../src/gateways/paypal_commerce_platform.gateway.js';
import { PAYPAL_LIVE_BASE, PAYPAL_TEST_BASE } from '../../src/gateways/paypal_commerce_platform/paypal-api.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the PayPal module (Orders v2, Payments v2, OAuth2 client credentials).
 * The answers are the examples of PayPal's public REST reference (Authentication: the token answer
 * and invalid_client; Orders v2 "Create order" with a card payment source, "Capture payment for
 * order"; Payments v2 "Capture authorized payment", "Refund captured payment", "Void authorized
 * payment" 204; the UNPROCESSABLE_ENTITY / INSTRUMENT_DECLINED error and the processor_response
 * codes of "Handle decline errors"), served by a local HTTP server.
 */

const SECRET = 'EGnHDxD_qRPdaLdZz8iCr8N7_MzF-YHPTkjs6NKYQvQSBngp4PTTVWkPZRbL-secret';
const PAN = '4032039317984658'; // PayPal's sandbox Visa
const ACCESS_TOKEN = 'A21AAFEpH4PsADK7qSS7pSRsgzfENtu-Q1ysgEDVDESseMHBYXVJYE8ovjj68elIDy8nF26AwPhfXTIeWAZHSLIsQkSYz9ifg';

/** Fresh client credentials: tokens are cached per credentials, so a test that counts token calls uses its own. */
const credentials = (login = `AeA1QIZXiflr1_-${randomUUID()}`) => ({ login, password: SECRET });
const SHARED = credentials('AeA1QIZXiflr1_-shared');

const TOKEN = { scope: 'https://uri.paypal.com/services/payments/payment', access_token: ACCESS_TOKEN, token_type: 'Bearer', app_id: 'APP-80W284485P519543T', expires_in: 31668, nonce: '2020-04-03T15:35:36ZaYZlGvEkV4yVSz8g6bAKFoGSEzuy3CQcz3ljhibkOHg' };
const links = (id: string) => [{ href: `https://api-m.paypal.com/v2/checkout/orders/${id}`, rel: 'self', method: 'GET' }];
const AUTHORIZED_ORDER = {
  id: '5O190127TN364715T',
  status: 'COMPLETED',
  payment_source: { card: { last_digits: '4658', brand: 'VISA', type: 'CREDIT' } },
  purchase_units: [
    {
      reference_id: 'd9f80740-38f0-11e8-b467-0ed5f89f718b',
      payments: {
        authorizations: [
          {
            id: '0AW2184448108334S',
            status: 'CREATED',
            amount: { currency_code: 'USD', value: '100.00' },
            seller_protection: { status: 'NOT_ELIGIBLE' },
            processor_response: { avs_code: 'Z', response_code: '0000' },
            expiration_time: '2022-04-01T21:20:49Z',
          },
        ],
      },
    },
  ],
  links: links('5O190127TN364715T'),
};
const captureObject = (status: string, processor: Record<string, string>) => ({
  id: '3C679366HH908993F',
  status,
  amount: { currency_code: 'EUR', value: '10.00' },
  final_capture: true,
  processor_response: processor,
  network_transaction_reference: { id: '123456789012345', network: 'VISA' },
  create_time: '2022-03-01T21:20:49Z',
});
const CAPTURED_ORDER = { id: '5O190127TN364715T', status: 'COMPLETED', purchase_units: [{ reference_id: 'default', payments: { captures: [captureObject('COMPLETED', { avs_code: 'Y', cvv_code: 'M', response_code: '0000' })] } }], links: links('x') };
const DECLINED_ORDER = { id: '5O190127TN364715T', status: 'COMPLETED', purchase_units: [{ reference_id: 'default', payments: { captures: [captureObject('DECLINED', { avs_code: 'N', cvv_code: 'N', response_code: '5120' })] } }] };
const INSTRUMENT_DECLINED = {
  name: 'UNPROCESSABLE_ENTITY',
  details: [{ issue: 'INSTRUMENT_DECLINED', description: "The instrument presented was either declined by the processor or bank, or it can't be used for this payment." }],
  message: 'The requested action could not be performed, semantically incorrect, or failed business validation.',
  debug_id: 'c9a75b43fc807',
};

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let tokenAnswer: FakeAnswer = { json: TOKEN };
/** What the API routes answer next, in order; the last one repeats. */
let answers: FakeAnswer[] = [{ status: 201, json: CAPTURED_ORDER }];

function apiRequests(from: number): FakeRequest[] {
  return fake.requests.slice(from).filter((request) => request.path !== '/v1/oauth2/token');
}

async function run(request: GatewayRequest, timeoutMs = 3000): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest[]; all: FakeRequest[] }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(paypal, request, transcript, { http, override: fake.url, timeoutMs });
  return { response, transcript, sent: apiRequests(before), all: fake.requests.slice(before) };
}

async function fault(request: GatewayRequest, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(paypal, request, [], { http, override: fake.url, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

const purchase = (overrides: Partial<GatewayRequest> = {}, creds: Record<string, string> = SHARED) => gatewayRequest('purchase', creds, { paymentMethod: testCard(PAN), ...overrides });
const reference = (id: string, transactionType = 'Authorization') => ({ gatewayTransactionId: id, transactionType, amount: 1000 });

beforeAll(async () => {
  const next = () => (answers.length > 1 ? (answers.shift() as FakeAnswer) : (answers[0] as FakeAnswer));
  fake = await FakeGatewayServer.start([
    { method: 'POST', path: '/v1/oauth2/token', handle: () => tokenAnswer },
    { method: 'POST', path: /^\/v2\/checkout\/orders(?:\/[^/]+\/(?:capture|authorize))?$/, handle: next },
    { method: 'POST', path: /^\/v2\/payments\/(?:authorizations|captures)\/[^/]+\/(?:capture|void|refund)$/, handle: next },
    { method: 'POST', path: /^\/v3\/vault\/(?:setup-tokens|payment-tokens)$/, handle: next },
  ]);
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  tokenAnswer = { json: TOKEN };
  answers = [{ status: 201, json: CAPTURED_ORDER }];
});

describe('PayPal: OAuth2 token', () => {
  it('fetches a token with Basic client_id:secret and grant_type=client_credentials, then reuses it until it expires', async () => {
    const creds = credentials();
    const first = await run(purchase({}, creds));
    const [token, order] = first.all;
    expect(token?.path).toBe('/v1/oauth2/token');
    expect(token?.headers.authorization).toBe(`Basic ${Buffer.from(`${creds.login}:${SECRET}`).toString('base64')}`);
    expect(token?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(token?.rawBody).toBe('grant_type=client_credentials');
    expect(order?.headers.authorization).toBe(`Bearer ${ACCESS_TOKEN}`);
    expect(first.response.success).toBe(true);

    const second = await run(purchase({}, creds));
    expect(second.all.map((request) => request.path)).toEqual(['/v2/checkout/orders']);
    // Other credentials get their own token.
    expect((await run(purchase({}, credentials()))).all[0]?.path).toBe('/v1/oauth2/token');
  });

  it('fetches a new token when the cached one has expired', async () => {
    const creds = credentials();
    tokenAnswer = { json: { ...TOKEN, expires_in: 30 } }; // inside the renewal margin: expired at once
    await run(purchase({}, creds));
    const again = await run(purchase({}, creds));
    expect(again.all.map((request) => request.path)).toEqual(['/v1/oauth2/token', '/v2/checkout/orders']);
  });

  it('on a 401 refreshes the token once and repeats the call with the same PayPal-Request-Id', async () => {
    const creds = credentials();
    await run(purchase({}, creds));
    answers = [{ status: 401, json: { error: 'invalid_token', error_description: 'Token signature verification failed' } }, { status: 201, json: CAPTURED_ORDER }];
    const request = purchase({}, creds);
    const { response, all } = await run(request);
    expect(all.map((sent) => sent.path)).toEqual(['/v2/checkout/orders', '/v1/oauth2/token', '/v2/checkout/orders']);
    expect(all[0]?.headers['paypal-request-id']).toBe(request.transactionToken);
    expect(all[2]?.headers['paypal-request-id']).toBe(request.transactionToken);
    expect(response.success).toBe(true);
  });

  it('a second 401 is a config_error, not a loop', async () => {
    answers = [{ status: 401, json: { error: 'invalid_token', error_description: 'The token passed in was not found in the system' } }];
    const { response, all } = await run(purchase({}, credentials()));
    expect(all.map((sent) => sent.path)).toEqual(['/v1/oauth2/token', '/v2/checkout/orders', '/v1/oauth2/token', '/v2/checkout/orders']);
    expect(response).toMatchObject({ success: false, errorCode: 'config_error', message: 'The token passed in was not found in the system' });
  });

  it('wrong client credentials (invalid_client) are a config_error and no order is sent', async () => {
    tokenAnswer = { status: 401, json: { error: 'invalid_client', error_description: 'Client Authentication failed' } };
    const { response, sent } = await run(purchase({}, credentials()));
    expect(sent).toEqual([]);
    expect(response).toMatchObject({ success: false, errorCode: 'config_error', message: 'Client Authentication failed' });
  });

  it('a token answer without access_token is a fault naming the field', async () => {
    tokenAnswer = { json: { token_type: 'Bearer', expires_in: 100 } };
    expect(await fault(purchase({}, credentials()))).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('access_token') });
  });
});

describe('PayPal: purchase and authorize', () => {
  it('creates an order with intent CAPTURE and the card as payment_source.card, PayPal-Request-Id = transaction token', async () => {
    const request = purchase({ orderId: 'order-42', description: 'Tea', amount: 1999, currencyCode: 'EUR', gatewaySpecificFields: { invoice_id: 'INV-7' } });
    const { response, sent } = await run(request);
    expect(sent).toHaveLength(1);
    const [order] = sent as [FakeRequest];
    expect(order.method).toBe('POST');
    expect(order.path).toBe('/v2/checkout/orders');
    expect(order.headers['paypal-request-id']).toBe(request.transactionToken);
    expect(order.headers['content-type']).toBe('application/json');
    expect(order.headers.prefer).toBe('return=representation');
    expect(jsonOf(order)).toEqual({
      intent: 'CAPTURE',
      purchase_units: [{ amount: { currency_code: 'EUR', value: '19.99' }, custom_id: 'order-42', invoice_id: 'INV-7', description: 'Tea' }],
      payment_source: {
        card: {
          name: 'Ada Lovelace',
          number: PAN,
          expiry: '2030-03',
          security_code: '737',
          billing_address: { address_line_1: '12 St James Sq', admin_area_2: 'London', postal_code: 'SW1Y 4JH', country_code: 'GB' },
        },
      },
    });
    expect(response).toMatchObject({
      success: true,
      message: 'Transaction approved',
      gatewayTransactionId: '3C679366HH908993F',
      avsCode: 'Y',
      cvvCode: 'M',
      errorCode: null,
      specificResponseFields: { paypal_commerce_platform: { status: 'COMPLETED', response_code: '0000', order_id: '5O190127TN364715T', network_transaction_id: '123456789012345' } },
    });
  });

  it('authorizes with intent AUTHORIZE; the authorization id is the transaction id', async () => {
    answers = [{ status: 201, json: AUTHORIZED_ORDER }];
    const { response, sent } = await run(gatewayRequest('authorize', SHARED, { paymentMethod: testCard(PAN, { cvc: null, address: false }) }));
    const body = jsonOf(sent[0] as FakeRequest);
    expect(body.intent).toBe('AUTHORIZE');
    expect((body.payment_source as { card: Record<string, unknown> }).card).toEqual({ name: 'Ada Lovelace', number: PAN, expiry: '2030-03' });
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized', gatewayTransactionId: '0AW2184448108334S', avsCode: 'Z', cvvCode: null });
  });

  it('finishes an order PayPal left CREATED with /capture (or /authorize) under its own request id', async () => {
    answers = [{ status: 201, json: { id: '5O190127TN364715T', status: 'CREATED', links: [] } }, { status: 201, json: CAPTURED_ORDER }];
    const request = purchase();
    const { response, sent } = await run(request);
    expect(sent.map((r) => r.path)).toEqual(['/v2/checkout/orders', '/v2/checkout/orders/5O190127TN364715T/capture']);
    expect(sent[1]?.headers['paypal-request-id']).toBe(`${request.transactionToken}-capture`);
    expect(response).toMatchObject({ success: true, gatewayTransactionId: '3C679366HH908993F' });

    answers = [{ status: 201, json: { id: 'O2', status: 'APPROVED' } }, { status: 201, json: AUTHORIZED_ORDER }];
    const auth = await run(gatewayRequest('authorize', SHARED, { paymentMethod: testCard(PAN) }));
    expect(auth.sent.map((r) => r.path)).toEqual(['/v2/checkout/orders', '/v2/checkout/orders/O2/authorize']);
    expect(auth.response).toMatchObject({ success: true, gatewayTransactionId: '0AW2184448108334S' });
  });

  it('sends JPY and HUF without decimals, KWD with three', async () => {
    const value = async (amount: number, currencyCode: string) => ((jsonOf((await run(purchase({ amount, currencyCode }))).sent[0] as FakeRequest).purchase_units as Array<{ amount: unknown }>)[0]?.amount);
    expect(await value(1500, 'JPY')).toEqual({ currency_code: 'JPY', value: '1500' });
    expect(await value(150000, 'HUF')).toEqual({ currency_code: 'HUF', value: '1500' });
    expect(await value(1234, 'KWD')).toEqual({ currency_code: 'KWD', value: '1.234' });
    const before = fake.requests.length;
    expect((await run(purchase({ amount: 150050, currencyCode: 'HUF' }))).response).toMatchObject({ success: false, errorCode: 'invalid_amount' });
    expect(fake.requests.length).toBe(before);
  });

  it('maps a DECLINED capture by its processor response code, with AVS and CVV', async () => {
    answers = [{ status: 201, json: DECLINED_ORDER }];
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, errorCode: 'insufficient_funds', gatewayTransactionId: '3C679366HH908993F', avsCode: 'N', cvvCode: 'N', errorDetail: 'DECLINED: 5120' });
  });

  it.each([
    ['5400', 'expired_card'],
    ['5110', 'incorrect_cvc'],
    ['00N7', 'incorrect_cvc'],
    ['0100', 'call_issuer'],
    ['9520', 'pickup_card'],
    ['5170', 'incorrect_address'],
    ['1330', 'incorrect_number'],
    ['8000', 'processing_error'],
    ['5100', 'card_declined'],
    ['9500', 'card_declined'],
  ])('maps processor response code %s to %s', async (code, standard) => {
    answers = [{ status: 201, json: { ...DECLINED_ORDER, purchase_units: [{ payments: { captures: [captureObject('DECLINED', { response_code: code })] } }] } }];
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: standard });
  });

  it('maps a DENIED authorization and Maestro AVS/CVV digits', async () => {
    answers = [{ status: 201, json: { ...AUTHORIZED_ORDER, purchase_units: [{ payments: { authorizations: [{ id: 'A1', status: 'DENIED', processor_response: { avs_code: '1', cvv_code: '1', response_code: '5180' } }] } }] } }];
    expect((await run(gatewayRequest('authorize', SHARED, { paymentMethod: testCard(PAN) }))).response).toMatchObject({ success: false, errorCode: 'card_declined', avsCode: 'N', cvvCode: 'N' });
  });

  it('maps a 422 INSTRUMENT_DECLINED to card_declined with its description, and other issues by name', async () => {
    answers = [{ status: 422, json: INSTRUMENT_DECLINED }];
    expect((await run(purchase())).response).toMatchObject({
      success: false,
      errorCode: 'card_declined',
      message: INSTRUMENT_DECLINED.details[0]?.description,
      errorDetail: 'HTTP 422: UNPROCESSABLE_ENTITY: INSTRUMENT_DECLINED',
      specificResponseFields: { paypal_commerce_platform: { debug_id: 'c9a75b43fc807' } },
    });
    answers = [{ status: 422, json: { ...INSTRUMENT_DECLINED, details: [{ issue: 'CARD_EXPIRED', description: 'The card is expired.' }] } }];
    expect((await run(purchase())).response).toMatchObject({ errorCode: 'expired_card' });
    answers = [{ status: 400, json: { name: 'INVALID_REQUEST', message: 'Request is not well-formed.', details: [{ field: '/purchase_units/0/amount/value', issue: 'INVALID_PARAMETER_SYNTAX' }] } }];
    expect((await run(purchase())).response).toMatchObject({ errorCode: 'processing_error', message: 'Request is not well-formed.' });
    answers = [{ status: 403, json: { name: 'NOT_AUTHORIZED', message: 'Authorization failed due to insufficient permissions.', details: [{ issue: 'PERMISSION_DENIED' }] } }];
    expect((await run(purchase())).response).toMatchObject({ errorCode: 'config_error' });
  });

  it('an order that needs payer action (3-D Secure) fails with processing_error', async () => {
    answers = [{ status: 201, json: { id: 'O3', status: 'PAYER_ACTION_REQUIRED', links: [{ rel: 'payer-action', href: 'https://www.sandbox.paypal.com/webapps/helios?action=verify&flow=3ds&cart_id=O3' }] } }];
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error' });
  });
});

describe('PayPal: capture, credit, void', () => {
  it('captures part of an authorization with final_capture', async () => {
    answers = [{ status: 201, json: { id: '2GG279541U471931P', status: 'COMPLETED', links: [] } }];
    const request = gatewayRequest('capture', SHARED, { amount: 600, reference: reference('0AW2184448108334S') });
    const { response, sent } = await run(request);
    expect(sent[0]?.path).toBe('/v2/payments/authorizations/0AW2184448108334S/capture');
    expect(sent[0]?.headers['paypal-request-id']).toBe(request.transactionToken);
    expect(jsonOf(sent[0] as FakeRequest)).toEqual({ amount: { currency_code: 'EUR', value: '6.00' }, final_capture: true });
    expect(response).toMatchObject({ success: true, message: 'Capture completed', gatewayTransactionId: '2GG279541U471931P' });
  });

  it('refunds part of a capture at /v2/payments/captures/{id}/refund', async () => {
    answers = [{ status: 201, json: { id: '1JU08902781691411', status: 'COMPLETED', links: [] } }];
    const { response, sent } = await run(gatewayRequest('credit', SHARED, { amount: 250, reference: reference('2GG279541U471931P', 'Capture') }));
    expect(sent[0]?.path).toBe('/v2/payments/captures/2GG279541U471931P/refund');
    expect(jsonOf(sent[0] as FakeRequest)).toEqual({ amount: { currency_code: 'EUR', value: '2.50' } });
    expect(response).toMatchObject({ success: true, message: 'Refund completed', gatewayTransactionId: '1JU08902781691411' });
    answers = [{ status: 201, json: { id: 'R2', status: 'FAILED', status_details: { reason: 'ECHECK' } } }];
    expect((await run(gatewayRequest('credit', SHARED, { reference: reference('C') }))).response).toMatchObject({ success: false, errorCode: 'card_declined' });
  });

  it('voids an authorization: 204 No Content is success', async () => {
    answers = [{ status: 204, body: '' }];
    const { response, sent } = await run(gatewayRequest('void', SHARED, { reference: reference('0AW2184448108334S') }));
    expect(sent[0]?.path).toBe('/v2/payments/authorizations/0AW2184448108334S/void');
    expect(response).toMatchObject({ success: true, message: 'Authorization voided', gatewayTransactionId: '0AW2184448108334S' });
    answers = [{ status: 200, json: { id: '0AW2184448108334S', status: 'VOIDED' } }];
    expect((await run(gatewayRequest('void', SHARED, { reference: reference('0AW2184448108334S') }))).response.success).toBe(true);
    answers = [{ status: 422, json: { name: 'UNPROCESSABLE_ENTITY', message: 'x', details: [{ issue: 'PREVIOUSLY_VOIDED', description: 'Authorization has been previously voided and hence cannot be voided again.' }] } }];
    expect((await run(gatewayRequest('void', SHARED, { reference: reference('0AW2184448108334S') }))).response).toMatchObject({ success: false, errorCode: 'processing_error' });
  });

  it('a reference without an id is refused before anything is sent', async () => {
    const before = fake.requests.length;
    const { response } = await run(gatewayRequest('capture', SHARED, { reference: { gatewayTransactionId: null, transactionType: 'Authorization', amount: 1000 } }));
    expect(fake.requests.length).toBe(before);
    expect(response.success).toBe(false);
  });
});

describe('PayPal: store (Vault v3) and stored cards', () => {
  const SETUP_TOKEN = { id: '5C991763VB2781612', customer: { id: 'customer_4029352050' }, status: 'APPROVED', payment_source: { card: { last_digits: '4658', expiry: '2030-03', name: 'Ada Lovelace' } }, links: [] };
  const PAYMENT_TOKEN = { id: '8kk8451t', customer: { id: 'customer_4029352050' }, payment_source: { card: { brand: 'VISA', last_digits: '4658', expiry: '2030-03' } }, links: [] };

  it('creates a setup token with the card, then a payment token from it; the payment token is the third_party_token', async () => {
    answers = [{ status: 201, json: SETUP_TOKEN }, { status: 201, json: PAYMENT_TOKEN }];
    const request = gatewayRequest('store', SHARED, { paymentMethod: testCard(PAN) });
    const { response, sent } = await run(request);
    expect(sent.map((r) => r.path)).toEqual(['/v3/vault/setup-tokens', '/v3/vault/payment-tokens']);
    expect(jsonOf(sent[0] as FakeRequest)).toEqual({
      payment_source: { card: { name: 'Ada Lovelace', number: PAN, expiry: '2030-03', security_code: '737', billing_address: { address_line_1: '12 St James Sq', admin_area_2: 'London', postal_code: 'SW1Y 4JH', country_code: 'GB' } } },
    });
    expect(sent[0]?.headers['paypal-request-id']).toBe(request.transactionToken);
    expect(jsonOf(sent[1] as FakeRequest)).toEqual({ payment_source: { token: { id: '5C991763VB2781612', type: 'SETUP_TOKEN' } } });
    expect(sent[1]?.headers['paypal-request-id']).toBe(`${request.transactionToken}-payment-token`);
    expect(response).toMatchObject({ success: true, thirdPartyToken: '8kk8451t', gatewayTransactionId: '8kk8451t', specificResponseFields: { paypal_commerce_platform: { customer_id: 'customer_4029352050' } } });
  });

  it('a setup token that needs payer action is a processing_error, and no payment token is created', async () => {
    answers = [{ status: 201, json: { ...SETUP_TOKEN, status: 'PAYER_ACTION_REQUIRED' } }];
    const { response, sent } = await run(gatewayRequest('store', SHARED, { paymentMethod: testCard(PAN) }));
    expect(sent).toHaveLength(1);
    expect(response).toMatchObject({ success: false, errorCode: 'processing_error' });
  });

  it('purchases with a stored card as payment_source.card.vault_id, sending no card number', async () => {
    const { response, sent } = await run(gatewayRequest('purchase', SHARED, { paymentMethod: { type: 'third_party_token', token: '8kk8451t' } }));
    expect(jsonOf(sent[0] as FakeRequest).payment_source).toEqual({ card: { vault_id: '8kk8451t' } });
    expect(response.success).toBe(true);
  });
});

describe('PayPal: answers that are not answers', () => {
  it('a 5xx, garbage, a reset and a missing field are faults; a timeout an unknown outcome', async () => {
    fake.setMode('error500');
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 500' });
    fake.setMode('garbage');
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    fake.setMode('normal');
    answers = [{ status: 201, json: { status: 'COMPLETED' } }];
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('id') });
    answers = [{ status: 422, json: { oops: true } }];
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('name') });
    fake.setMode('hang');
    expect(await fault(purchase(), 300)).toBeInstanceOf(GatewayResultUnknownError);
    fake.setMode('reset');
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('a COMPLETED order without its capture is an unknown outcome; unknown fields are ignored', async () => {
    answers = [{ status: 201, json: { id: 'O4', status: 'COMPLETED', purchase_units: [{}] } }];
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
    answers = [{ status: 201, json: { ...CAPTURED_ORDER, brand_new_field: { x: 1 } } }];
    expect((await run(purchase())).response.success).toBe(true);
  });
});

describe('PayPal: endpoints, definition and scrubbing', () => {
  it('sandbox and live bases; the override keeps the documented path', () => {
    expect(paypal.endpoint?.(purchase())).toBe(PAYPAL_TEST_BASE);
    expect(paypal.endpoint?.(purchase({ testMode: false }))).toBe(PAYPAL_LIVE_BASE);
    expect(PAYPAL_TEST_BASE).toBe('https://api-m.sandbox.paypal.com');
    expect(PAYPAL_LIVE_BASE).toBe('https://api-m.paypal.com');
  });

  it('advertises what it implements under the Spreedly gateway_type and credential names', () => {
    const { definition } = paypal;
    expect(definition.gatewayType).toBe('paypal_commerce_platform');
    expect([...definition.characteristics].sort()).toEqual(['supports_authorize', 'supports_capture', 'supports_credit', 'supports_purchase', 'supports_store', 'supports_void']);
    expect(definition.authModes[0]?.credentials.map((field) => [field.name, field.safe])).toEqual([['login', true], ['password', false]]);
  });

  it('keeps no PAN, CVV, expiry, secret or access token in the transcript', async () => {
    const creds = credentials();
    answers = [{ status: 201, json: { ...CAPTURED_ORDER, payment_source: { card: { number: PAN, security_code: '737', last_digits: '4658' } } } }];
    const { transcript } = await run(purchase({}, creds));
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(findCardData(text, [PAN])).toEqual([]);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(ACCESS_TOKEN);
    expect(text).not.toContain(Buffer.from(`${creds.login}:${SECRET}`).toString('base64'));
    expect(text).not.toMatch(/"security_code"\s*:\s*"737"/);
    expect(text).not.toContain('2030-03');
    expect(text).toContain(`POST ${fake.url}/v1/oauth2/token`);
    expect(text).toContain(`POST ${fake.url}/v2/checkout/orders`);
    expect(text).toContain('"status":"COMPLETED"');
  });
});
