import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ebanxGateway, EBANX_LIVE_BASE, EBANX_TEST_BASE } from '../../src/gateways/ebanx.gateway.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type AdapterPaymentMethod, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the EBANX module (Direct API). The answers are EBANX sandbox answers
 * recorded in ActiveMerchant's ebanx unit tests, unchanged, served by a local HTTP server. EBANX
 * signs neither requests nor answers: the integration key in the body is its only authentication.
 */

const INTEGRATION_KEY = 'test_ik_Coffer0123456789abcdefSECRET';
const CREDENTIALS = { integration_key: INTEGRATION_KEY };
const PAN = '4111111111111111';

/** Recorded answers (ActiveMerchant test/unit/gateways/ebanx_test.rb). */
const RECORDED = {
  PURCHASED: {"payment":{"hash":"592db57ad6933455efbb62a48d1dfa091dd7cd092109db99","pin":"081043552","merchant_payment_code":"ca2251ed6ac582162b17d77dfd7fb98a","order_number":null,"status":"CO","status_date":"2017-05-30 15:10:01","open_date":"2017-05-30 15:10:01","confirm_date":"2017-05-30 15:10:01","transfer_date":null,"amount_br":"3.31","amount_ext":"1.00","amount_iof":"0.01","currency_rate":"3.3000","currency_ext":"USD","due_date":"2017-06-02","instalments":"1","payment_type_code":"visa","transaction_status":{"acquirer":"EBANX","code":"OK","description":"Sandbox - Test credit card, transaction captured"},"pre_approved":true,"capture_available":false,"customer":{"document":"85351346893","email":"unspecified@example.com","name":"LONGBOB LONGSEN","birth_date":null}},"status":"SUCCESS"},
  DECLINED: {"payment":{"hash":"592dd2f17965cd3d7a17e71a3fe943b8363c72d60caffacc","pin":"655998606","merchant_payment_code":"e71e467805aef9064599bc5a76e98e23","order_number":null,"status":"CA","status_date":"2017-05-30 17:15:45","open_date":"2017-05-30 17:15:45","confirm_date":null,"transfer_date":null,"amount_br":"3.31","amount_ext":"1.00","amount_iof":"0.01","currency_rate":"3.3000","currency_ext":"USD","due_date":"2017-06-02","instalments":"1","payment_type_code":"visa","transaction_status":{"acquirer":"EBANX","code":"NOK","description":"Sandbox - Test credit card, transaction declined reason insufficientFunds"},"pre_approved":false,"capture_available":false,"customer":{"document":"85351346893","email":"unspecified@example.com","name":"LONGBOB LONGSEN","birth_date":null}},"status":"SUCCESS"},
  AUTHORIZED: {"payment":{"hash":"592dc02dbe421478a132bf5c2ecfe52c86ac01b454ae799b","pin":"296389224","merchant_payment_code":"8e5c943c3c93adbed8d8a7347ca333fe","order_number":null,"status":"PE","status_date":null,"open_date":"2017-05-30 15:55:40","confirm_date":null,"transfer_date":null,"amount_br":"3.31","amount_ext":"1.00","amount_iof":"0.01","currency_rate":"3.3000","currency_ext":"USD","due_date":"2017-06-02","instalments":"1","payment_type_code":"visa","transaction_status":{"acquirer":"EBANX","code":"OK","description":"Sandbox - Test credit card, transaction will be approved"},"pre_approved":true,"capture_available":true,"customer":{"document":"85351346893","email":"unspecified@example.com","name":"LONGBOB LONGSEN","birth_date":null}},"status":"SUCCESS"},
  CAPTURED: {"payment":{"hash":"5dee94502bd59660b801c441ad5a703f2c4123f5fc892ccb","pin":"675968133","country":"br","merchant_payment_code":"b98b2892b80771b9dadf2ebc482cb65d","order_number":null,"status":"CO","status_date":"2019-12-09 18:37:05","open_date":"2019-12-09 18:37:04","confirm_date":"2019-12-09 18:37:05","transfer_date":null,"amount_br":"4.19","amount_ext":"1.00","amount_iof":"0.02","currency_rate":"4.1700","currency_ext":"USD","due_date":"2019-12-12","instalments":"1","payment_type_code":"visa","details":{"billing_descriptor":"DEMONSTRATION"},"transaction_status":{"acquirer":"EBANX","code":"OK","description":"Accepted"},"pre_approved":true,"capture_available":false,"customer":{"document":"85351346893","email":"unspecified@example.com","name":"LONGBOB LONGSEN","birth_date":null}},"status":"SUCCESS"},
  REFUNDED: {"payment":{"hash":"59306246f2a0c5f327a15dd6492687e197aca7eda179da08","pin":"446189033","merchant_payment_code":"b5e1f7298f8fa645e8a903fbdc5ce44a","order_number":null,"status":"CO","status_date":"2017-06-01 15:51:49","open_date":"2017-06-01 15:51:49","confirm_date":"2017-06-01 15:51:49","transfer_date":null,"amount_br":"3.31","amount_ext":"1.00","amount_iof":"0.01","currency_rate":"3.3000","currency_ext":"USD","due_date":"2017-06-04","instalments":"1","payment_type_code":"visa","transaction_status":{"acquirer":"EBANX","code":"OK","description":"Sandbox - Test credit card, transaction captured"},"pre_approved":true,"capture_available":false,"refunds":[{"id":"20739","merchant_refund_code":null,"status":"RE","request_date":"2017-06-01 15:51:50","pending_date":null,"confirm_date":null,"cancel_date":null,"amount_ext":"1.00","description":"full refund"}],"customer":{"document":"85351346893","email":"unspecified@example.com","name":"LONGBOB LONGSEN","birth_date":null}},"refund":{"id":"20739","merchant_refund_code":null,"status":"RE","request_date":"2017-06-01 15:51:50","pending_date":null,"confirm_date":null,"cancel_date":null,"amount_ext":"1.00","description":"full refund"},"operation":"refund","status":"SUCCESS"},
  CANCELLED: {"payment":{"hash":"5930629dde0899dc53b3557ea9887aa8f3d264a91d115d40","pin":"465556618","merchant_payment_code":"8b97c49aecffbb309dadd08c87ccbdd0","order_number":null,"status":"CA","status_date":"2017-06-01 15:53:18","open_date":"2017-06-01 15:53:17","confirm_date":null,"transfer_date":null,"amount_br":"3.31","amount_ext":"1.00","amount_iof":"0.01","currency_rate":"3.3000","currency_ext":"USD","due_date":"2017-06-04","instalments":"1","payment_type_code":"visa","transaction_status":{"acquirer":"EBANX","code":"NOK","description":"Sandbox - Test credit card, transaction cancelled"},"pre_approved":false,"capture_available":false,"customer":{"document":"85351346893","email":"unspecified@example.com","name":"LONGBOB LONGSEN","birth_date":null}},"operation":"cancel","status":"SUCCESS"},
  VERIFIED: {"status":"SUCCESS","payment_type_code":"creditcard","card_verification":{"transaction_status":{"code":"OK","description":"Accepted"},"transaction_type":"ZERO DOLLAR"}},
  NOT_VERIFIED: {"status":"SUCCESS","payment_type_code":"discover","card_verification":{"transaction_status":{"code":"NOK","description":"Not accepted"},"transaction_type":"GHOST AUTHORIZATION"}},
  STORED: {"status":"SUCCESS","payment_type_code":"visa","token":"a61a7c98535718801395991b5112f888d359c2d632e2c3bb8afe75aa23f3334d7fd8dc57d7721f8162503773063de59ee85901b5714a92338c6d9c0352aee78c","masked_card_number":"411111xxxxxx1111"},
  PARTIAL_CAPTURE_UNAVAILABLE: {"status":"ERROR","status_code":"BP-CAP-11","status_message":"Partial capture not available"},
  INVALID_KEY: {"status":"ERROR","status_code":"DA-1","status_message":"Invalid integration key"},
} as const;

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let next: FakeAnswer;

/** The parameters of a request: the JSON of `request_body`, or the plain form fields. */
function parametersOf(sent: FakeRequest): Record<string, unknown> {
  const form = new URLSearchParams(sent.rawBody);
  const wrapped = form.get('request_body');
  return wrapped === null ? Object.fromEntries(form) : (JSON.parse(wrapped) as Record<string, unknown>);
}

async function run(request: GatewayRequest, timeoutMs = 3000): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest; parameters: Record<string, unknown> }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(ebanxGateway, request, transcript, { http, override: fake.url, timeoutMs });
  expect(fake.requests.length - before).toBe(1);
  const sent = fake.requests[fake.requests.length - 1] as FakeRequest;
  return { response, transcript, sent, parameters: parametersOf(sent) };
}

async function fault(request: GatewayRequest, override = fake.url, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(ebanxGateway, request, [], { http, override, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

type CreditCard = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;
const card = (overrides: Partial<CreditCard> = {}): CreditCard => ({ ...(testCard(PAN) as CreditCard), address: { address1: null, address2: null, city: null, state: null, zip: null, country: 'BR' }, ...overrides });
const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD', amount: 100, ...overrides });
const reference = (hash: string, amount = 100) => ({ gatewayTransactionId: hash, transactionType: 'Authorization', amount });

beforeAll(async () => {
  fake = await FakeGatewayServer.start(['direct', 'capture', 'cancel', 'refund', 'verifycard', 'token'].map((operation) => ({ method: 'POST', path: `/ws/${operation}`, handle: () => next })));
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  next = { json: RECORDED.PURCHASED };
});

describe('EBANX: payments', () => {
  it('purchases at POST /ws/direct with the JSON in request_body and the transaction token as merchant_payment_code', async () => {
    const request = purchase({ orderId: 'order-9', email: 'ada@example.com', gatewaySpecificFields: { document: '85351346893', instalments: 3, soft_descriptor: 'COFFER' } });
    const { response, sent, parameters } = await run(request);
    expect(sent.path).toBe('/ws/direct');
    expect(sent.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect([...new URLSearchParams(sent.rawBody).keys()]).toEqual(['request_body']);
    expect(parameters).toEqual({
      integration_key: INTEGRATION_KEY,
      operation: 'request',
      mode: 'full',
      payment: {
        name: 'Ada Lovelace',
        email: 'ada@example.com',
        document: '85351346893',
        country: 'br',
        payment_type_code: 'creditcard',
        merchant_payment_code: request.transactionToken,
        order_number: 'order-9',
        currency_code: 'USD',
        amount_total: 1,
        instalments: 3,
        creditcard: { card_number: PAN, card_name: 'Ada Lovelace', card_due_date: '03/2030', card_cvv: '737', soft_descriptor: 'COFFER' },
      },
    });
    expect(response).toMatchObject({
      success: true,
      message: 'Sandbox - Test credit card, transaction captured',
      gatewayTransactionId: '592db57ad6933455efbb62a48d1dfa091dd7cd092109db99',
      specificResponseFields: { ebanx: { status: 'CO', transaction_status_code: 'OK', payment_type_code: 'visa' } },
    });
  });

  it('sends amount_total in major units by the currency exponent: 10.50 USD, CLP whole pesos', async () => {
    expect(((await run(purchase({ amount: 1050, currencyCode: 'USD' }))).parameters.payment as Record<string, unknown>).amount_total).toBe(10.5);
    expect(((await run(purchase({ amount: 1500, currencyCode: 'CLP' }))).parameters.payment as Record<string, unknown>).amount_total).toBe(1500);
    expect(((await run(purchase({ amount: 1234, currencyCode: 'KWD' }))).parameters.payment as Record<string, unknown>).amount_total).toBe(1.234);
  });

  it('maps the recorded insufficient-funds decline (CA, NOK) to insufficient_funds', async () => {
    next = { json: RECORDED.DECLINED };
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, errorCode: 'insufficient_funds', message: 'Sandbox - Test credit card, transaction declined reason insufficientFunds', gatewayTransactionId: '592dd2f17965cd3d7a17e71a3fe943b8363c72d60caffacc' });
  });

  it.each([
    ['Card expired', 'expired_card'],
    ['Invalid security code (CVV)', 'incorrect_cvc'],
    ['Stolen card', 'pickup_card'],
    ['Not accepted', 'card_declined'],
  ])('maps a decline reading "%s" to %s', async (description, code) => {
    next = { json: { ...RECORDED.DECLINED, payment: { ...RECORDED.DECLINED.payment, transaction_status: { acquirer: 'EBANX', code: 'NOK', description } } } };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: code });
  });

  it('authorizes with auto_capture false and succeeds on PE (recorded answer)', async () => {
    next = { json: RECORDED.AUTHORIZED };
    const { response, parameters } = await run(gatewayRequest('authorize', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD', amount: 100 }));
    expect((parameters.payment as { creditcard: Record<string, unknown> }).creditcard.auto_capture).toBe(false);
    expect(response).toMatchObject({ success: true, gatewayTransactionId: '592dc02dbe421478a132bf5c2ecfe52c86ac01b454ae799b' });
  });

  it('a purchase EBANX leaves pending (PE) is an unknown outcome', async () => {
    next = { json: RECORDED.AUTHORIZED };
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('pays with an EBANX token instead of the card, and sends card-on-file data', async () => {
    const { parameters } = await run(purchase({ paymentMethod: { type: 'third_party_token', token: 'a61a7c98535718801395991b5112f888' }, gatewaySpecificFields: { country: 'BR', customer_name: 'Ada Lovelace' }, storedCredential: { initiator: 'merchant', reasonType: 'recurring', networkTransactionId: 'MCC123456' } }));
    expect(parameters.payment).toMatchObject({ name: 'Ada Lovelace', country: 'br', creditcard: { token: 'a61a7c98535718801395991b5112f888' }, cof_info: { cof_type: 'stored', initiator: 'MIT', trans_type: 'SCHEDULED_RECURRING', mandate_id: 'MCC123456' } });
    expect(JSON.stringify(parameters)).not.toContain('card_number');
    const initial = await run(purchase({ storedCredential: { initiator: 'cardholder', reasonType: 'unscheduled', networkTransactionId: null } }));
    expect((initial.parameters.payment as Record<string, unknown>).cof_info).toEqual({ cof_type: 'initial', initiator: 'CIT', trans_type: 'CUSTOMER_COF' });
  });

  it('refuses a card without a country, sending nothing', async () => {
    const before = fake.requests.length;
    const response = await executeOperation(ebanxGateway, purchase({ paymentMethod: card({ address: { country: null } }) }), [], { http, override: fake.url, timeoutMs: 3000 });
    expect(response).toMatchObject({ success: false, errorCode: 'processing_error' });
    expect(fake.requests.length).toBe(before);
  });
});

describe('EBANX: capture, void, credit, verify, store', () => {
  it('captures at /ws/capture with the hash; the amount only when partial (recorded answer)', async () => {
    next = { json: RECORDED.CAPTURED };
    const full = await run(gatewayRequest('capture', CREDENTIALS, { amount: 100, currencyCode: 'USD', reference: reference('5dee94502bd59660b801c441ad5a703f2c4123f5fc892ccb') }));
    expect(full.sent.path).toBe('/ws/capture');
    expect(full.parameters).toEqual({ integration_key: INTEGRATION_KEY, hash: '5dee94502bd59660b801c441ad5a703f2c4123f5fc892ccb', merchant_capture_code: expect.any(String) });
    expect(full.response).toMatchObject({ success: true, message: 'Accepted', gatewayTransactionId: '5dee94502bd59660b801c441ad5a703f2c4123f5fc892ccb' });
    const partial = await run(gatewayRequest('capture', CREDENTIALS, { amount: 60, currencyCode: 'USD', reference: reference('5dee94502bd59660b801c441ad5a703f2c4123f5fc892ccb') }));
    expect(partial.parameters.amount).toBe('0.60');
    next = { json: RECORDED.PARTIAL_CAPTURE_UNAVAILABLE };
    expect((await run(gatewayRequest('capture', CREDENTIALS, { amount: 60, currencyCode: 'USD', reference: reference('x') }))).response).toMatchObject({ success: false, errorCode: 'unsupported_feature', errorDetail: 'BP-CAP-11: Partial capture not available' });
  });

  it('cancels at /ws/cancel and succeeds on CA (recorded answer)', async () => {
    next = { json: RECORDED.CANCELLED };
    const { response, sent, parameters } = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('5930629dde0899dc53b3557ea9887aa8f3d264a91d115d40') }));
    expect(sent.path).toBe('/ws/cancel');
    expect(parameters).toEqual({ integration_key: INTEGRATION_KEY, hash: '5930629dde0899dc53b3557ea9887aa8f3d264a91d115d40' });
    expect(response).toMatchObject({ success: true, message: 'Transaction cancelled' });
  });

  it('refunds part at /ws/refund with a merchant_refund_code and answers the refund id (recorded answer)', async () => {
    next = { json: RECORDED.REFUNDED };
    const request = gatewayRequest('credit', CREDENTIALS, { amount: 50, currencyCode: 'USD', reference: reference('59306246f2a0c5f327a15dd6492687e197aca7eda179da08') });
    const { response, sent, parameters } = await run(request);
    expect(sent.path).toBe('/ws/refund');
    expect(parameters).toEqual({ integration_key: INTEGRATION_KEY, operation: 'request', hash: '59306246f2a0c5f327a15dd6492687e197aca7eda179da08', amount: '0.50', description: 'Refund', merchant_refund_code: request.transactionToken });
    expect(response).toMatchObject({ success: true, message: 'Refund requested', gatewayTransactionId: '20739', specificResponseFields: { ebanx: { refund_status: 'RE' } } });
  });

  it('verifies at /ws/verifycard (recorded answers)', async () => {
    next = { json: RECORDED.VERIFIED };
    const { response, sent, parameters } = await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: card() }));
    expect(sent.path).toBe('/ws/verifycard');
    expect(parameters).toEqual({ integration_key: INTEGRATION_KEY, payment_type_code: 'creditcard', country: 'br', card: { card_number: PAN, card_name: 'Ada Lovelace', card_due_date: '03/2030', card_cvv: '737' } });
    expect(response).toMatchObject({ success: true, message: 'Accepted' });
    next = { json: RECORDED.NOT_VERIFIED };
    expect((await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: card() }))).response).toMatchObject({ success: false, errorCode: 'card_declined', message: 'Not accepted' });
  });

  it('stores at /ws/token and answers the token as third_party_token (recorded answer)', async () => {
    next = { json: RECORDED.STORED };
    const { response, sent } = await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: card() }));
    expect(sent.path).toBe('/ws/token');
    expect(response).toMatchObject({ success: true, thirdPartyToken: RECORDED.STORED.token, specificResponseFields: { ebanx: { payment_type_code: 'visa', masked_card_number: '411111xxxxxx1111' } } });
  });

  it('advertises what it implements under Spreedly’s gateway_type and credential name; sandbox and live endpoints', () => {
    const { definition } = ebanxGateway;
    expect(definition.gatewayType).toBe('ebanx');
    expect([...definition.characteristics].sort()).toEqual(['supports_authorize', 'supports_capture', 'supports_credit', 'supports_purchase', 'supports_store', 'supports_verify', 'supports_void']);
    expect(definition.authModes[0]?.credentials).toEqual([{ name: 'integration_key', label: 'Integration Key', safe: false }]);
    expect(ebanxGateway.endpoint?.(purchase())).toBe(EBANX_TEST_BASE);
    expect(ebanxGateway.endpoint?.(purchase({ testMode: false }))).toBe(EBANX_LIVE_BASE);
  });
});

describe('EBANX: errors and faults', () => {
  it('maps ERROR answers: an invalid integration key is config_error, others processing_error', async () => {
    next = { json: RECORDED.INVALID_KEY };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'config_error', message: 'Invalid integration key', errorDetail: 'DA-1: Invalid integration key' });
    next = { json: { status: 'ERROR', status_code: 'BP-REF-CAN-2', status_message: 'Payment not found with this hash: ' } };
    expect((await run(gatewayRequest('credit', CREDENTIALS, { amount: 100, currencyCode: 'USD', reference: reference('nope') }))).response).toMatchObject({ success: false, errorCode: 'processing_error' });
  });

  it('a 5xx, garbage, and an answer without the payment hash are faults; a timeout is unknown', async () => {
    fake.setMode('error500');
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 500' });
    fake.setMode('garbage');
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    fake.setMode('normal');
    next = { json: { payment: { status: 'CO' }, status: 'SUCCESS' } };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('hash') });
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

describe('EBANX: scrubbing', () => {
  it('keeps no PAN, CVV, due date or integration key in the transcript, inside the URL-encoded request_body or in form fields', async () => {
    const { transcript } = await run(purchase());
    next = { json: RECORDED.CANCELLED };
    const voided = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('5930629dde0899dc53b3557ea9887aa8f3d264a91d115d40') }));
    next = { json: RECORDED.STORED };
    const stored = await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: card() }));
    const text = [...transcript, ...voided.transcript, ...stored.transcript].map((entry) => entry.text).join('\n');
    expect(findCardData(text, [PAN])).toEqual([]);
    expect(text).not.toContain(INTEGRATION_KEY);
    expect(text).not.toContain(RECORDED.STORED.token);
    const bodies = [...text.matchAll(/request_body=([^&\s]+)/g)].map((match) => decodeURIComponent((match[1] as string).replace(/\+/g, ' ')));
    expect(bodies).toHaveLength(2);
    for (const body of bodies) {
      expect(body).not.toContain('737');
      expect(body).not.toContain('03/2030');
      expect(body).toContain('"integration_key":"[FILTERED]"');
    }
    expect(text).toContain('integration_key=[FILTERED]');
    expect(text).toContain('"hash":"592db57ad6933455efbb62a48d1dfa091dd7cd092109db99"');
  });
});
