import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { elavonGateway } from '../../src/gateways/elavon.gateway.js';
import { ELAVON_LIVE_BASE, ELAVON_TEST_BASE } from '../../src/gateways/elavon/elavon-api.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the Elavon Converge module (XML API, processxml.do). The answers are
 * shaped like the response samples of Elavon's Converge developer guide (ccsale / ccauthonly /
 * cccomplete / ccreturn / ccvoid / ccverify / ccgettoken responses, "Error codes") as ActiveMerchant's
 * Elavon unit tests also record them, served by a local HTTP server. Each test asserts the exact
 * request (the `xmldata` form field's `<txn>`) and how the answer maps.
 */

const PIN = 'V0J6ZPB1LM5R0Q0T2YKH9L9HHDNS6D2OEZKW8WV9VGYZ8XUQ6KQ3RMHJ9IY1YP0P';
const PAN = '4000000000000002';
const CREDENTIALS = { merchant_id: '0019595', user: 'webpage', pin: PIN };

const xml = (fields: Record<string, string>) => `<?xml version="1.0" encoding="UTF-8"?>\n<txn>${Object.entries(fields).map(([name, value]) => `<${name}>${value}</${name}>`).join('')}</txn>`;

const APPROVED_SALE = {
  ssl_issuer_response: '00',
  ssl_card_number: '40**********0002',
  ssl_oar_data: '010012318808182231420000047554200000000000093840023122123188',
  ssl_result: '0',
  ssl_txn_id: '180820AD3-27AEE6EF-8CA7-4811-8D1F-E420C3B5041E',
  ssl_avs_response: 'M',
  ssl_approval_code: '093840',
  ssl_amount: '10.00',
  ssl_transaction_type: 'SALE',
  ssl_ps2000_data: 'A8181831435010530042VE',
  ssl_result_message: 'APPROVAL',
  ssl_cvv2_response: 'M',
  ssl_partner_app_id: 'VM',
};
const DECLINED = { ssl_issuer_response: '05', ssl_result: '1', ssl_txn_id: '180820AD3-DECLINED-0001', ssl_avs_response: 'N', ssl_approval_code: '', ssl_result_message: 'DECLINED', ssl_cvv2_response: 'N' };
const INVALID_CARD = { errorCode: '5000', errorName: 'Credit Card Number Invalid', errorMessage: 'The Credit Card Number supplied in the authorization request appears to be invalid.' };
const INVALID_LOGIN = { errorCode: '4025', errorName: 'Invalid Credentials', errorMessage: 'The credentials supplied in the authorization request are invalid.' };
const STORED = { ssl_card_number: '40**********0002', ssl_result: '0', ssl_txn_id: '', ssl_token_response: 'SUCCESS', ssl_transaction_type: 'GETTOKEN', ssl_token: '4421912014039991', ssl_add_token_response: 'Card Added' };

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let next: FakeAnswer = { body: xml(APPROVED_SALE) };

const parser = new XMLParser({ parseTagValue: false });

/** The `<txn>` the module sent, field by field in order. */
function sentTxn(request: FakeRequest): Array<[string, string]> {
  const data = new URLSearchParams(request.rawBody).get('xmldata') ?? '';
  expect(data.startsWith('<txn>')).toBe(true);
  const parsed = parser.parse(data) as { txn: Record<string, string> };
  return Object.entries(parsed.txn).map(([name, value]) => [name, String(value)]);
}

async function run(request: GatewayRequest): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(elavonGateway, request, transcript, { http, override: fake.url, timeoutMs: 3000 });
  expect(fake.requests.length - before).toBeLessThanOrEqual(1);
  return { response, transcript, sent: fake.requests[fake.requests.length - 1] as FakeRequest };
}

async function fault(request: GatewayRequest, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(elavonGateway, request, [], { http, override: fake.url, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', CREDENTIALS, { paymentMethod: testCard(PAN), currencyCode: 'USD', ...overrides });
const reference = (id: string, transactionType = 'Authorization') => ({ gatewayTransactionId: id, transactionType, amount: 1000 });

beforeAll(async () => {
  fake = await FakeGatewayServer.start([{ method: 'POST', path: /^\/VirtualMerchant(?:Demo)?\/processxml\.do$/, handle: () => next }], { garbageBody: 'Service Temporarily Unavailable' });
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  next = { body: xml(APPROVED_SALE), contentType: 'application/xml' };
});

describe('Elavon: purchase and authorize', () => {
  it('POSTs the xmldata form field to the demo processxml.do with credentials, ccsale and every card and AVS field in order', async () => {
    const request = purchase({ orderId: 'order-42', description: 'Tea', ip: '192.0.2.1', amount: 1999 });
    const { response, sent } = await run(request);
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/VirtualMerchantDemo/processxml.do');
    expect(sent.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect([...new URLSearchParams(sent.rawBody).keys()]).toEqual(['xmldata']);
    expect(sentTxn(sent)).toEqual([
      ['ssl_merchant_id', '0019595'],
      ['ssl_user_id', 'webpage'],
      ['ssl_pin', PIN],
      ['ssl_transaction_type', 'ccsale'],
      ['ssl_amount', '19.99'],
      ['ssl_card_number', PAN],
      ['ssl_exp_date', '0330'],
      ['ssl_cvv2cvc2', '737'],
      ['ssl_cvv2cvc2_indicator', '1'],
      ['ssl_first_name', 'Ada'],
      ['ssl_last_name', 'Lovelace'],
      ['ssl_avs_address', '12 St James Sq'],
      ['ssl_avs_zip', 'SW1Y4JH'],
      ['ssl_city', 'London'],
      ['ssl_country', 'GB'],
      ['ssl_email', 'ada@example.com'],
      ['ssl_invoice_number', 'order-42'],
      ['ssl_description', 'Tea'],
      ['ssl_cardholder_ip', '192.0.2.1'],
    ]);
    expect(response).toMatchObject({
      success: true,
      message: 'Transaction approved',
      gatewayTransactionId: '180820AD3-27AEE6EF-8CA7-4811-8D1F-E420C3B5041E',
      errorCode: null,
      avsCode: 'M',
      avsMessage: 'Street address and postal code match.',
      cvvCode: 'M',
      cvvMessage: 'Match',
      specificResponseFields: { elavon: { result: '0', result_message: 'APPROVAL', approval_code: '093840', ps2000_data: 'A8181831435010530042VE' } },
    });
  });

  it('authorizes with ccauthonly, leaves out an absent CVV and address, and goes live when not in sandbox', async () => {
    const request = gatewayRequest('authorize', CREDENTIALS, { paymentMethod: testCard(PAN, { cvc: null, address: false }), testMode: false });
    const { response, sent } = await run(request);
    expect(sent.path).toBe('/VirtualMerchant/processxml.do');
    const fields = Object.fromEntries(sentTxn(sent));
    expect(fields.ssl_transaction_type).toBe('ccauthonly');
    expect(fields).not.toHaveProperty('ssl_cvv2cvc2');
    expect(fields).not.toHaveProperty('ssl_cvv2cvc2_indicator');
    expect(fields).not.toHaveProperty('ssl_avs_address');
    expect(fields).not.toHaveProperty('ssl_transaction_currency');
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized' });
    expect(elavonGateway.endpoint?.(request)).toBe(ELAVON_LIVE_BASE);
    expect(elavonGateway.endpoint?.({ ...request, testMode: true })).toBe(ELAVON_TEST_BASE);
  });

  it('sends the amount in the currency’s own decimals, and ssl_transaction_currency only for a multi-currency terminal', async () => {
    const multi = { ...CREDENTIALS, multi_currency: 'true' };
    const yen = Object.fromEntries(sentTxn((await run(gatewayRequest('purchase', multi, { amount: 1500, currencyCode: 'JPY' }))).sent));
    expect(yen).toMatchObject({ ssl_amount: '1500', ssl_transaction_currency: 'JPY' });
    const dinar = Object.fromEntries(sentTxn((await run(gatewayRequest('purchase', multi, { amount: 1234, currencyCode: 'KWD' }))).sent));
    expect(dinar).toMatchObject({ ssl_amount: '1.234', ssl_transaction_currency: 'KWD' });
    const plain = Object.fromEntries(sentTxn((await run(purchase({ amount: 5 }))).sent));
    expect(plain.ssl_amount).toBe('0.05');
    expect(plain).not.toHaveProperty('ssl_transaction_currency');
  });

  it('purchases with a Converge token (ssl_token) instead of a card', async () => {
    const { sent } = await run(purchase({ paymentMethod: { type: 'third_party_token', token: '4421912014039991' } }));
    const fields = Object.fromEntries(sentTxn(sent));
    expect(fields.ssl_token).toBe('4421912014039991');
    expect(fields).not.toHaveProperty('ssl_card_number');
    expect(fields).not.toHaveProperty('ssl_exp_date');
  });

  it('maps a decline (ssl_result 1, issuer 05) to card_declined with AVS and CVV', async () => {
    next = { body: xml(DECLINED) };
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, message: 'DECLINED', errorCode: 'card_declined', errorDetail: '05: DECLINED', gatewayTransactionId: '180820AD3-DECLINED-0001', avsCode: 'N', cvvCode: 'N' });
  });

  it.each([
    ['51', 'DECLINED', 'insufficient_funds'],
    ['54', 'EXPIRED CARD', 'expired_card'],
    ['N7', 'DECLINED CVV2', 'incorrect_cvc'],
    ['04', 'PICK UP CARD', 'pickup_card'],
    ['01', 'CALL AUTH. CENTER', 'call_issuer'],
    ['', 'EXPIRED CARD', 'expired_card'],
    ['ZZ', 'SOMETHING NEW', 'card_declined'],
  ])('maps issuer response %s / %s to %s', async (issuer, message, standard) => {
    next = { body: xml({ ...DECLINED, ssl_issuer_response: issuer, ssl_result_message: message }) };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: standard, message });
  });

  it.each([
    [INVALID_CARD, 'invalid_number'],
    [INVALID_LOGIN, 'config_error'],
    [{ errorCode: '5001', errorName: 'Exp Date Invalid', errorMessage: 'The Credit Card Expiration Date supplied in the authorization request appears to be invalid.' }, 'invalid_expiry_date'],
    [{ errorCode: '9999', errorName: 'Something else', errorMessage: 'Unknown.' }, 'processing_error'],
  ])('maps a refused request (errorCode %o) to its standard code', async (error, standard) => {
    next = { body: xml(error) };
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, errorCode: standard, message: error.errorMessage, errorDetail: `${error.errorCode}: ${error.errorName}`, gatewayTransactionId: null });
  });

  it('refuses a payment method it cannot send, and a card without expiry, sending nothing', async () => {
    const before = fake.requests.length;
    const bank = await run(purchase({ paymentMethod: { type: 'bank_account', routingNumber: { reveal: () => '1' } as never, accountNumber: { reveal: () => '2' } as never, accountType: null, holderType: null, firstName: null, lastName: null } }));
    expect(bank.response).toMatchObject({ success: false, errorCode: 'unsupported_feature' });
    const card = testCard(PAN);
    const noExpiry = await run(purchase({ paymentMethod: { ...card, month: null } as never }));
    expect(noExpiry.response).toMatchObject({ success: false, errorCode: 'invalid_expiry_date' });
    expect(fake.requests.length).toBe(before);
  });
});

describe('Elavon: reference operations, verify and store', () => {
  it('captures with cccomplete, refunds with ccreturn (partial amounts) by ssl_txn_id', async () => {
    const captured = await run(gatewayRequest('capture', CREDENTIALS, { reference: reference('AUTH-TXN-1'), amount: 600, currencyCode: 'USD' }));
    expect(sentTxn(captured.sent).slice(3)).toEqual([
      ['ssl_transaction_type', 'cccomplete'],
      ['ssl_txn_id', 'AUTH-TXN-1'],
      ['ssl_amount', '6.00'],
    ]);
    expect(captured.response).toMatchObject({ success: true, message: 'Capture approved' });
    const refunded = await run(gatewayRequest('credit', CREDENTIALS, { reference: reference('SALE-TXN-2', 'Purchase'), amount: 250, currencyCode: 'USD' }));
    expect(sentTxn(refunded.sent).slice(3)).toEqual([
      ['ssl_transaction_type', 'ccreturn'],
      ['ssl_txn_id', 'SALE-TXN-2'],
      ['ssl_amount', '2.50'],
    ]);
    next = { body: xml({ errorCode: '5091', errorName: 'Invalid amount', errorMessage: 'The amount exceeded the original transaction amount.' }) };
    expect((await run(gatewayRequest('credit', CREDENTIALS, { reference: reference('SALE-TXN-2', 'Purchase') }))).response).toMatchObject({ success: false, errorCode: 'invalid_amount' });
  });

  it('voids an authorization with ccdelete and a sale with ccvoid', async () => {
    const auth = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('AUTH-TXN-3') }));
    expect(sentTxn(auth.sent).slice(3)).toEqual([
      ['ssl_transaction_type', 'ccdelete'],
      ['ssl_txn_id', 'AUTH-TXN-3'],
    ]);
    expect(auth.response).toMatchObject({ success: true, message: 'Transaction voided' });
    const sale = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('SALE-TXN-4', 'Purchase') }));
    expect(Object.fromEntries(sentTxn(sale.sent)).ssl_transaction_type).toBe('ccvoid');
    next = { body: xml({ errorCode: '5040', errorName: 'Invalid Transaction ID', errorMessage: 'The transaction ID is invalid for this transaction type' }) };
    expect((await run(gatewayRequest('void', CREDENTIALS, { reference: reference('X', 'Capture') }))).response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'The transaction ID is invalid for this transaction type' });
  });

  it('verifies with ccverify (no amount)', async () => {
    next = { body: xml({ ...APPROVED_SALE, ssl_transaction_type: 'CARDVERIFICATION', ssl_issuer_response: '85' }) };
    const { response, sent } = await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: testCard(PAN) }));
    const fields = Object.fromEntries(sentTxn(sent));
    expect(fields.ssl_transaction_type).toBe('ccverify');
    expect(fields).not.toHaveProperty('ssl_amount');
    expect(fields.ssl_card_number).toBe(PAN);
    expect(response).toMatchObject({ success: true, message: 'Card verified', avsCode: 'M', cvvCode: 'M' });
  });

  it('stores with ccgettoken and ssl_add_token=Y; ssl_token becomes the third-party token', async () => {
    next = { body: xml(STORED) };
    const { response, sent } = await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) }));
    const fields = Object.fromEntries(sentTxn(sent));
    expect(fields).toMatchObject({ ssl_transaction_type: 'ccgettoken', ssl_card_number: PAN, ssl_add_token: 'Y' });
    expect(response).toMatchObject({ success: true, message: 'Card stored', thirdPartyToken: '4421912014039991', gatewayTransactionId: '4421912014039991' });
    next = { body: xml({ ...STORED, ssl_result: '1', ssl_token: '', ssl_token_response: 'FAILURE' }) };
    expect((await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) }))).response).toMatchObject({ success: false, message: 'FAILURE', thirdPartyToken: null });
    next = { body: xml(INVALID_CARD) };
    expect((await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) }))).response).toMatchObject({ success: false, errorCode: 'invalid_number' });
  });

  it('refuses a capture without a reference id as a fault, before sending', async () => {
    const before = fake.requests.length;
    expect(await fault(gatewayRequest('capture', CREDENTIALS, { reference: { gatewayTransactionId: null, transactionType: 'Authorization', amount: 1 } }))).toBeInstanceOf(GatewayFaultError);
    expect(fake.requests.length).toBe(before);
  });
});

describe('Elavon: faults, unknown outcomes and the transcript', () => {
  it.each(['error500', 'garbage', 'reset'] as const)('turns %s into a GatewayFaultError', async (mode) => {
    fake.setMode(mode);
    const error = await fault(purchase());
    expect(error instanceof GatewayFaultError || (mode === 'reset' && error instanceof GatewayResultUnknownError)).toBe(true);
  });

  it('no answer in time is an unknown outcome', async () => {
    fake.setMode('hang');
    expect(await fault(purchase(), 300)).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('an XML answer without <txn>, or without ssl_result, is a fault; an approval without ssl_txn_id is an unknown outcome; unknown fields are ignored', async () => {
    next = { body: '<?xml version="1.0"?><html><body>maintenance</body></html>' };
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    next = { body: xml({ ssl_result_message: 'APPROVAL' }) };
    const missing = await fault(purchase());
    expect(missing).toBeInstanceOf(GatewayFaultError);
    expect((missing as GatewayFaultError).detail).toContain('ssl_result');
    next = { body: xml({ ssl_result: '0', ssl_result_message: 'APPROVAL', ssl_txn_id: '' }) };
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
    next = { body: xml({ ...APPROVED_SALE, ssl_brand_new_field: 'x' }) };
    expect((await run(purchase())).response.success).toBe(true);
  });

  it('keeps no card number, CVV or PIN in the transcript', async () => {
    const { transcript } = await run(purchase());
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(text).toContain('%3Cssl_pin%3E[FILTERED]%3C%2Fssl_pin%3E');
    expect(text).toContain('%3Cssl_cvv2cvc2%3E[FILTERED]%3C%2Fssl_cvv2cvc2%3E');
    expect(text).toContain('<ssl_result_message>APPROVAL</ssl_result_message>');
    expect(text).not.toContain(PAN);
    expect(text).not.toContain(PIN);
    expect(text).not.toMatch(/ssl_cvv2cvc2%3E737/);
    expect(findCardData(text, [PAN])).toEqual([]);
  });
});
