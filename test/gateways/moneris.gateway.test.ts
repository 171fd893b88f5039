import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { monerisGateway, MONERIS_LIVE_BASE, MONERIS_TEST_BASE } from '../../src/gateways/moneris.gateway.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the Moneris module (XML gateway API, POST /gateway2/servlet/MpgRequest).
 * The receipts follow Moneris's "Definitions of Response Fields" (ReceiptId, ReferenceNum,
 * ResponseCode, ISO, AuthCode, TransTime, TransDate, TransType, Complete, Message, TransAmount,
 * CardType, TransID, TimedOut, AvsResultCode, CvdResultCode, DataKey, ResSuccess) with codes from
 * its "Response Codes" page, as the sample receipts of its API reference show them. Served by a
 * local HTTP server; each test asserts the exact request document and how the receipt maps.
 */

const API_TOKEN = 'yesguy-secret-token';
const STORE_ID = 'store5';
const CREDENTIALS = { store_id: STORE_ID, api_token: API_TOKEN };
const PAN = '4242424242424242';

function receipt(fields: Record<string, string>): FakeAnswer {
  const defaults: Record<string, string> = {
    ReceiptId: 'order-1',
    ReferenceNum: '660109300018229310',
    ResponseCode: '027',
    ISO: '01',
    AuthCode: '013511',
    TransTime: '18:41:13',
    TransDate: '2026-11-23',
    TransType: '00',
    Complete: 'true',
    Message: 'APPROVED           *                    =',
    TransAmount: '10.00',
    CardType: 'V',
    TransID: '58-0_3',
    TimedOut: 'false',
    BankTotals: 'null',
    Ticket: 'null',
  };
  const inner = Object.entries({ ...defaults, ...fields })
    .map(([name, value]) => `<${name}>${value}</${name}>`)
    .join('');
  return { body: `<?xml version="1.0" standalone="yes"?><response><receipt>${inner}</receipt></response>`, contentType: 'text/xml' };
}

const APPROVED = receipt({});
const DECLINED = receipt({ ResponseCode: '481', ISO: '05', AuthCode: '000000', Message: 'DECLINED           *                    =', TransID: '59-0_3' });
const NOT_PROCESSED = receipt({ ReceiptId: 'null', ReferenceNum: 'null', ResponseCode: 'null', ISO: 'null', AuthCode: 'null', Complete: 'false', Message: 'API token mismatch', TransID: 'null', TransAmount: 'null', CardType: 'null', TransType: 'null' });

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let next: FakeAnswer = APPROVED;

async function run(request: GatewayRequest, timeoutMs = 3000): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(monerisGateway, request, transcript, { http, override: fake.url, timeoutMs });
  expect(fake.requests.length - before).toBeLessThanOrEqual(1);
  return { response, transcript, sent: fake.requests[fake.requests.length - 1] as FakeRequest };
}

async function fault(request: GatewayRequest, override = fake.url, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(monerisGateway, request, [], { http, override, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

const HEAD = `<?xml version="1.0" encoding="UTF-8"?><request><store_id>${STORE_ID}</store_id><api_token>${API_TOKEN}</api_token>`;
const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', CREDENTIALS, { paymentMethod: testCard(PAN), currencyCode: 'CAD', ...overrides });
const reference = (id: string, transactionType = 'Authorization') => ({ gatewayTransactionId: id, transactionType, amount: 1000 });

beforeAll(async () => {
  fake = await FakeGatewayServer.start([{ method: 'POST', path: '/gateway2/servlet/MpgRequest', handle: () => next }]);
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  next = APPROVED;
});

describe('Moneris: purchase, preauth, card_verification', () => {
  it('sends <purchase> with every element in schema order, amount as decimal, expdate YYMM, crypt_type 7 and cvd_info', async () => {
    const { response, sent } = await run(purchase({ orderId: 'order-1', amount: 1999 }));
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/gateway2/servlet/MpgRequest');
    expect(sent.headers['content-type']).toBe('application/xml');
    expect(sent.rawBody).toBe(
      `${HEAD}<purchase><order_id>order-1</order_id><cust_id>Ada Lovelace</cust_id><amount>19.99</amount><pan>${PAN}</pan><expdate>3003</expdate><crypt_type>7</crypt_type>` +
        `<cvd_info><cvd_indicator>1</cvd_indicator><cvd_value>737</cvd_value></cvd_info></purchase></request>`,
    );
    expect(response).toMatchObject({
      success: true,
      message: 'Transaction approved',
      gatewayTransactionId: '58-0_3;order-1',
      errorCode: null,
      specificResponseFields: { moneris: { response_code: '027', iso: '01', auth_code: '013511', reference_num: '660109300018229310' } },
    });
  });

  it('authorizes with <preauth>; the transaction token is the default order_id; avs_info only with avs_enabled', async () => {
    const request = gatewayRequest('authorize', { ...CREDENTIALS, avs_enabled: 'true' }, { paymentMethod: testCard(PAN, { cvc: null }), currencyCode: 'USD', gatewaySpecificFields: { cust_id: 'cust-7' } });
    const { response, sent } = await run(request);
    expect(sent.rawBody).toBe(
      `${HEAD}<preauth><order_id>${request.transactionToken}</order_id><cust_id>cust-7</cust_id><amount>10.00</amount><pan>${PAN}</pan><expdate>3003</expdate><crypt_type>7</crypt_type>` +
        `<avs_info><avs_street_number>12</avs_street_number><avs_street_name>St James Sq</avs_street_name><avs_zipcode>SW1Y 4JH</avs_zipcode></avs_info></preauth></request>`,
    );
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized' });
  });

  it('sends cof_info when cof_enabled and the credential-on-file fields are given', async () => {
    const request = purchase({ credentials: gatewayRequest('purchase', { ...CREDENTIALS, cof_enabled: 'true' }).credentials, gatewaySpecificFields: { payment_indicator: 'U', payment_information: '2', issuer_id: '139X3130ASCXAS9' } });
    const { sent } = await run(request);
    expect(sent.rawBody).toContain('<cof_info><issuer_id>139X3130ASCXAS9</issuer_id><payment_indicator>U</payment_indicator><payment_information>2</payment_information></cof_info></purchase>');
    const without = await run(purchase({ gatewaySpecificFields: { payment_indicator: 'U', payment_information: '2' } }));
    expect(without.sent.rawBody).not.toContain('cof_info');
  });

  it('maps ResponseCode 481 (declined) to card_declined with Moneris’s message', async () => {
    next = DECLINED;
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, message: 'DECLINED', errorCode: 'card_declined', errorDetail: '481: DECLINED', gatewayTransactionId: '59-0_3;order-1' });
  });

  it.each([
    ['051', 'EXPIRED CARD', 'expired_card'],
    ['076', 'DECLINED LOW FUNDS', 'insufficient_funds'],
    ['057', 'LOST OR STOLEN', 'pickup_card'],
    ['088', 'PLACE CALL', 'call_issuer'],
    ['097', 'MOD 10 FAILURE', 'incorrect_number'],
    ['208', 'INVALID EXPIRY', 'invalid_expiry_date'],
    ['487', 'INVALID CVV', 'incorrect_cvc'],
    ['150', 'MERCHANT NOT ON FILE', 'config_error'],
    ['476', 'DECLINED', 'card_declined'],
    ['999', 'SOMETHING NEW', 'card_declined'],
  ])('maps ResponseCode %s (%s) to %s', async (code, message, standard) => {
    next = receipt({ ResponseCode: code, Message: `${message} *=` });
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: standard, message });
  });

  it('ResponseCode 0–49 with Complete false, and ResponseCode null, are failures', async () => {
    next = receipt({ Complete: 'false' });
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error' });
    next = NOT_PROCESSED;
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'config_error', message: 'API token mismatch', gatewayTransactionId: null });
    next = receipt({ ResponseCode: 'null', Complete: 'false', Message: 'Global Error Receipt', ReceiptId: 'Global Error Receipt' });
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error' });
  });

  it('maps AvsResultCode and the last character of CvdResultCode', async () => {
    next = receipt({ AvsResultCode: 'Y', CvdResultCode: '1M' });
    expect((await run(purchase())).response).toMatchObject({ avsCode: 'Y', cvvCode: 'M', cvvMessage: 'Match' });
    next = receipt({ AvsResultCode: 'null', CvdResultCode: '1N' });
    expect((await run(purchase())).response).toMatchObject({ avsCode: null, cvvCode: 'N' });
  });

  it('verifies with <card_verification> and no amount', async () => {
    const request = gatewayRequest('verify', CREDENTIALS, { paymentMethod: testCard(PAN) });
    next = receipt({ ReceiptId: request.transactionToken, ResponseCode: '001', TransAmount: '0.00' });
    const { response, sent } = await run(request);
    expect(sent.rawBody).toBe(
      `${HEAD}<card_verification><order_id>${request.transactionToken}</order_id><cust_id>Ada Lovelace</cust_id><pan>${PAN}</pan><expdate>3003</expdate><crypt_type>7</crypt_type>` +
        `<cvd_info><cvd_indicator>1</cvd_indicator><cvd_value>737</cvd_value></cvd_info></card_verification></request>`,
    );
    expect(response).toMatchObject({ success: true, message: 'Card verified' });
  });

  it('purchases, preauthorizes and verifies with a vault data key (res_purchase_cc, res_preauth_cc, res_card_verification_cc)', async () => {
    const token = { type: 'third_party_token' as const, token: 'ot-yl8vTdGxVg7jJl3DDsLRYaPzk' };
    const bought = await run(purchase({ paymentMethod: token, orderId: 'o-2' }));
    expect(bought.sent.rawBody).toBe(`${HEAD}<res_purchase_cc><data_key>${token.token}</data_key><order_id>o-2</order_id><amount>10.00</amount><crypt_type>7</crypt_type></res_purchase_cc></request>`);
    const held = await run(gatewayRequest('authorize', CREDENTIALS, { paymentMethod: token, currencyCode: 'CAD', orderId: 'o-3' }));
    expect(held.sent.rawBody).toContain('<res_preauth_cc><data_key>');
    const checked = await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: token, orderId: 'o-4' }));
    expect(checked.sent.rawBody).toBe(`${HEAD}<res_card_verification_cc><order_id>o-4</order_id><data_key>${token.token}</data_key><crypt_type>7</crypt_type></res_card_verification_cc></request>`);
  });

  it('refuses currencies other than CAD and USD before sending (Moneris has no currency element)', async () => {
    const before = fake.requests.length;
    expect((await run(purchase({ currencyCode: 'JPY', amount: 1500 }))).response).toMatchObject({ success: false, errorCode: 'invalid_amount' });
    expect((await run(purchase({ currencyCode: 'EUR' }))).response).toMatchObject({ success: false, errorCode: 'invalid_amount' });
    expect(fake.requests.length).toBe(before);
  });
});

describe('Moneris: completion, refund, void, store', () => {
  it('captures part of a preauth with <completion> by txn_number and order_id', async () => {
    next = receipt({ TransID: '60-0_3', TransType: '02' });
    const { response, sent } = await run(gatewayRequest('capture', CREDENTIALS, { amount: 750, currencyCode: 'CAD', reference: reference('58-0_3;order-1') }));
    expect(sent.rawBody).toBe(`${HEAD}<completion><order_id>order-1</order_id><comp_amount>7.50</comp_amount><txn_number>58-0_3</txn_number><crypt_type>7</crypt_type></completion></request>`);
    expect(response).toMatchObject({ success: true, message: 'Capture approved', gatewayTransactionId: '60-0_3;order-1' });
  });

  it('refunds part of a purchase with <refund>', async () => {
    next = receipt({ TransID: '61-0_3', TransType: '04' });
    const { response, sent } = await run(gatewayRequest('credit', CREDENTIALS, { amount: 300, currencyCode: 'CAD', reference: reference('58-0_3;order-1', 'Purchase') }));
    expect(sent.rawBody).toBe(`${HEAD}<refund><order_id>order-1</order_id><amount>3.00</amount><txn_number>58-0_3</txn_number><crypt_type>7</crypt_type></refund></request>`);
    expect(response).toMatchObject({ success: true, message: 'Refund approved', gatewayTransactionId: '61-0_3;order-1' });
  });

  it('voids a purchase or capture with <purchasecorrection>, an authorization with a 0.00 completion, and refuses others', async () => {
    const corrected = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('58-0_3;order-1', 'Purchase') }));
    expect(corrected.sent.rawBody).toBe(`${HEAD}<purchasecorrection><order_id>order-1</order_id><txn_number>58-0_3</txn_number><crypt_type>7</crypt_type></purchasecorrection></request>`);
    expect(corrected.response).toMatchObject({ success: true, message: 'Transaction voided' });
    const reversed = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('58-0_3;order-1') }));
    expect(reversed.sent.rawBody).toBe(`${HEAD}<completion><order_id>order-1</order_id><comp_amount>0.00</comp_amount><txn_number>58-0_3</txn_number><crypt_type>7</crypt_type></completion></request>`);
    expect(reversed.response).toMatchObject({ success: true, message: 'Authorization reversed' });
    const before = fake.requests.length;
    expect((await run(gatewayRequest('void', CREDENTIALS, { reference: reference('58-0_3;order-1', 'Credit') }))).response).toMatchObject({ success: false, errorCode: 'unsupported_feature' });
    expect(fake.requests.length).toBe(before);
  });

  it('stores with <res_add_cc> and returns the DataKey as the third-party token', async () => {
    next = receipt({ DataKey: 'ot-yl8vTdGxVg7jJl3DDsLRYaPzk', ReceiptId: 'null', ReferenceNum: 'null', ResponseCode: '001', Message: 'Successfully registered CC details.', TransID: 'null', ResSuccess: 'true', PaymentType: 'cc' });
    const { response, sent } = await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) }));
    expect(sent.rawBody).toBe(`${HEAD}<res_add_cc><cust_id>Ada Lovelace</cust_id><email>ada@example.com</email><pan>${PAN}</pan><expdate>3003</expdate><crypt_type>7</crypt_type></res_add_cc></request>`);
    expect(response).toMatchObject({ success: true, message: 'Card stored', thirdPartyToken: 'ot-yl8vTdGxVg7jJl3DDsLRYaPzk', gatewayTransactionId: 'ot-yl8vTdGxVg7jJl3DDsLRYaPzk' });
    next = receipt({ DataKey: 'null', ResponseCode: 'null', Complete: 'false', Message: 'Invalid card number', ResSuccess: 'false', TransID: 'null' });
    expect((await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) }))).response).toMatchObject({ success: false, thirdPartyToken: null, errorCode: 'processing_error' });
  });
});

describe('Moneris: answers that are not answers', () => {
  it('a 5xx, an HTML page, XML without a receipt and a non-2xx are faults', async () => {
    fake.setMode('error500');
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 500' });
    fake.setMode('garbage', { body: 'not xml at all' });
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 200, not XML' });
    fake.setMode('normal');
    next = { body: '<?xml version="1.0"?><error>busy</error>', contentType: 'text/xml' };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('response') });
    next = { status: 403, body: '<html>Forbidden</html>' };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 403' });
  });

  it('TimedOut true, or an approval without TransID, is an unknown outcome', async () => {
    next = receipt({ ResponseCode: 'null', Complete: 'false', TimedOut: 'true', Message: 'Timed out' });
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
    next = receipt({ TransID: 'null' });
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('a timeout or a reset after sending is a GatewayResultUnknownError; a refused connection a GatewayFaultError', async () => {
    fake.setMode('hang');
    expect(await fault(purchase(), fake.url, 300)).toBeInstanceOf(GatewayResultUnknownError);
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

  it('a reference that is not TransID;ReceiptId is a fault before sending; a missing credential a config_error', async () => {
    expect(await fault(gatewayRequest('capture', CREDENTIALS, { currencyCode: 'CAD', reference: reference('58-0_3') }))).toBeInstanceOf(GatewayFaultError);
    const before = fake.requests.length;
    expect((await run(gatewayRequest('purchase', { store_id: STORE_ID }, { paymentMethod: testCard(PAN), currencyCode: 'CAD' }))).response).toMatchObject({ success: false, errorCode: 'config_error' });
    expect(fake.requests.length).toBe(before);
  });
});

describe('Moneris: definition and scrubbing', () => {
  it('advertises what it implements under Spreedly’s gateway_type and credential names; esqa for test, www3 for live', async () => {
    const { definition } = monerisGateway;
    expect(definition.gatewayType).toBe('moneris');
    expect([...definition.characteristics].sort()).toEqual(['supports_authorize', 'supports_capture', 'supports_credit', 'supports_purchase', 'supports_store', 'supports_verify', 'supports_void']);
    expect(definition.authModes[0]?.credentials.map((field) => field.name)).toEqual(['store_id', 'api_token', 'avs_enabled', 'cof_enabled']);
    expect(monerisGateway.endpoint?.(purchase())).toBe(MONERIS_TEST_BASE);
    expect(monerisGateway.endpoint?.(purchase({ testMode: false }))).toBe(MONERIS_LIVE_BASE);
    const { sent } = await run(purchase({ testMode: false }));
    expect(sent.path).toBe('/gateway2/servlet/MpgRequest');
  });

  it('keeps no PAN, CVD, expiry, store id or API token in the transcript', async () => {
    next = receipt({ DataKey: 'ot-abc', ResSuccess: 'true', ResponseCode: '001' });
    const { transcript } = await run(purchase());
    const stored = await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) }));
    const text = [...transcript, ...stored.transcript].map((entry) => entry.text).join('\n');
    expect(findCardData(text, [PAN])).toEqual([]);
    expect(text).not.toContain(API_TOKEN);
    expect(text).not.toContain(`<store_id>${STORE_ID}`);
    expect(text).not.toContain('<cvd_value>737');
    expect(text).not.toContain('<expdate>3003');
    expect(text).toContain(`POST ${fake.url}/gateway2/servlet/MpgRequest`);
    expect(text).toContain('<pan>[FILTERED]</pan>');
    expect(text).toContain('<ResponseCode>001</ResponseCode>');
  });
});
