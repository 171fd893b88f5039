import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { containsCardLike } from '../../src/domain/scrubbing/card-like.js';
import { litleGateway } from '../../src/gateways/litle.gateway.js';
import { litleTransactionId, splitLitleId } from '../../src/gateways/litle/litle-mapping.js';
import { LITLE_LIVE_BASE, LITLE_TEST_BASE } from '../../src/gateways/litle/litle-api.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type AdapterPaymentMethod, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the Worldpay eCommerce (Vantiv, formerly Litle) module: cnpAPI 9.14
 * online XML, POST …/communicator/online. The answers are the saleResponse, authorizationResponse,
 * captureResponse, creditResponse, authReversalResponse, voidResponse and registerTokenResponse
 * samples ActiveMerchant's Litle unit tests record, shaped as the cnpAPI reference describes them,
 * served by a local HTTP server; each test asserts the document sent and how the answer maps.
 */

const PASSWORD = 'cnp-API-password-9f3';
const USER = 'COFFERUSER';
const MERCHANT_ID = '101';
const PAN = '4457010000000009';
const CREDENTIALS = { user: USER, password: PASSWORD, merchant_id: MERCHANT_ID };

const answer = (kind: string, fields: Record<string, string>, attributes = '', fraud?: { avs: string; cvv: string }) =>
  `<litleOnlineResponse version='9.14' response='0' message='Valid Format' xmlns='http://www.litle.com/schema'><${kind} id='1' reportGroup='Default Report Group' customerId=''${attributes}>${Object.entries(fields)
    .map(([name, value]) => `<${name}>${value}</${name}>`)
    .join('')}${fraud === undefined ? '' : `<fraudResult><avsResult>${fraud.avs}</avsResult><cardValidationResult>${fraud.cvv}</cardValidationResult></fraudResult>`}</${kind}></litleOnlineResponse>`;

const SALE = { litleTxnId: '100000000000000006', orderId: '1', response: '000', responseTime: '2014-03-31T11:34:39', message: 'Approved', authCode: '11111 ' };
const DECLINED = { litleTxnId: '600000000000000002', orderId: '6', response: '110', responseTime: '2014-03-31T11:48:47', message: 'Insufficient Funds' };

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let next: FakeAnswer;

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false });

/** The request document: root attributes, authentication, and the transaction element (name, attributes, children in order). */
function sent(request: FakeRequest): { root: Record<string, string>; auth: unknown; kind: string; attributes: Record<string, string>; fields: Array<[string, unknown]> } {
  expect(request.headers['content-type']).toBe('text/xml; charset=UTF-8');
  const root = (parser.parse(request.rawBody) as { litleOnlineRequest: Record<string, unknown> }).litleOnlineRequest;
  const entries = Object.entries(root);
  const [kind, body] = entries.filter(([name]) => !name.startsWith('@_') && name !== 'authentication')[0] as [string, Record<string, unknown>];
  const children = Object.entries(body);
  return {
    root: Object.fromEntries(entries.filter(([name]) => name.startsWith('@_'))) as Record<string, string>,
    auth: root.authentication,
    kind,
    attributes: Object.fromEntries(children.filter(([name]) => name.startsWith('@_'))) as Record<string, string>,
    fields: children.filter(([name]) => !name.startsWith('@_')),
  };
}

async function run(request: GatewayRequest, expectedRequests = 1): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(litleGateway, request, transcript, { http, override: fake.url, timeoutMs: 3000 });
  expect(fake.requests.length - before).toBe(expectedRequests);
  return { response, transcript, sent: fake.requests[fake.requests.length - 1] as FakeRequest };
}

async function fault(request: GatewayRequest, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(litleGateway, request, [], { http, override: fake.url, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

const card = (overrides: Parameters<typeof testCard>[1] = {}) => testCard(PAN, overrides) as Extract<AdapterPaymentMethod, { type: 'credit_card' }>;
const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD', ...overrides });
const reference = (id: string, transactionType = 'Authorization') => ({ gatewayTransactionId: id, transactionType, amount: 1000 });

beforeAll(async () => {
  fake = await FakeGatewayServer.start([{ method: 'POST', path: /^\/(?:sandbox|vap)\/communicator\/online$/, handle: () => next }]);
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  next = { body: answer('saleResponse', SALE, '', { avs: '01', cvv: 'M' }), contentType: 'text/xml' };
});

describe('Worldpay eCommerce: sale and authorization', () => {
  it('POSTs a litleOnlineRequest with authentication and a sale in the schema’s order to the sandbox, and maps the approval', async () => {
    const request = purchase({ orderId: 'order-42', amount: 1999, email: 'ada@example.com' });
    const { response, sent: raw } = await run(request);
    expect(raw.path).toBe('/sandbox/communicator/online');
    const document = sent(raw);
    expect(document.root).toEqual({ '@_version': '9.14', '@_xmlns': 'http://www.litle.com/schema', '@_merchantId': MERCHANT_ID });
    expect(document.auth).toEqual({ user: USER, password: PASSWORD });
    expect(document.kind).toBe('sale');
    expect(document.attributes).toEqual({ '@_id': request.transactionToken.slice(0, 25), '@_reportGroup': 'Default Report Group' });
    expect(document.fields).toEqual([
      ['orderId', 'order-42'],
      ['amount', '1999'],
      ['orderSource', 'ecommerce'],
      ['billToAddress', { name: 'Ada Lovelace', addressLine1: '12 St James Sq', city: 'London', zip: 'SW1Y 4JH', country: 'GB', email: 'ada@example.com' }],
      ['card', { type: 'VI', number: PAN, expDate: '0330', cardValidationNum: '737' }],
    ]);
    expect(response).toMatchObject({
      success: true,
      message: 'Transaction approved',
      gatewayTransactionId: 'S100000000000000006',
      avsCode: 'X',
      cvvCode: 'M',
      specificResponseFields: { litle: { response: '000', auth_code: '11111', avs_result: '01', card_validation_result: 'M', duplicate: false } },
    });
  });

  it('authorizes with an authorization element, the transaction token as orderId, no CVV when absent, live URL outside sandbox', async () => {
    next = { body: answer('authorizationResponse', { ...SALE, litleTxnId: '100000000000000001' }) };
    const request = gatewayRequest('authorize', CREDENTIALS, { paymentMethod: card({ cvc: null }), currencyCode: 'USD', testMode: false });
    const { response, sent: raw } = await run(request);
    expect(raw.path).toBe('/vap/communicator/online');
    const document = sent(raw);
    expect(document.kind).toBe('authorization');
    expect(Object.fromEntries(document.fields)).toMatchObject({ orderId: request.transactionToken.slice(0, 25), card: { type: 'VI', number: PAN, expDate: '0330' } });
    expect((Object.fromEntries(document.fields).card as Record<string, string>).cardValidationNum).toBeUndefined();
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized', gatewayTransactionId: 'A100000000000000001' });
    expect(litleGateway.endpoint?.(request)).toBe(LITLE_LIVE_BASE);
    expect(litleGateway.endpoint?.({ ...request, testMode: true })).toBe(LITLE_TEST_BASE);
  });

  it('sends amounts in the currency’s minor unit (no currency element), and refuses a card type cnpAPI has no code for', async () => {
    expect(Object.fromEntries(sent((await run(purchase({ amount: 1500, currencyCode: 'JPY' }))).sent).fields).amount).toBe('1500');
    expect(Object.fromEntries(sent((await run(purchase({ amount: 1234, currencyCode: 'KWD' }))).sent).fields).amount).toBe('1234');
    expect(Object.fromEntries(sent((await run(purchase({ amount: 5 }))).sent).fields).amount).toBe('5');
    const maestro = await run(purchase({ paymentMethod: { ...card(), cardType: 'maestro' } }), 0);
    expect(maestro.response).toMatchObject({ success: false, errorCode: 'unsupported_feature' });
  });

  it('sends shipToAddress when the transaction has one, and a token instead of a card', async () => {
    const shipping = { name: 'Ada', address1: '1 Main St', address2: null, city: 'Boston', state: 'MA', zip: '02110', country: 'US', phone_number: '555-0100' };
    const { sent: raw } = await run(purchase({ paymentMethod: { type: 'third_party_token', token: 'T1111222233334444;0330' }, shippingAddress: shipping }));
    expect(sent(raw).fields.slice(2)).toEqual([
      ['orderSource', 'ecommerce'],
      ['shipToAddress', { name: 'Ada', addressLine1: '1 Main St', city: 'Boston', state: 'MA', zip: '02110', country: 'US', phone: '555-0100' }],
      ['token', { litleToken: '1111222233334444', expDate: '0330' }],
    ]);
    const bare = sent((await run(purchase({ paymentMethod: { type: 'third_party_token', token: '1111222233334444' } }))).sent);
    expect(Object.fromEntries(bare.fields).token).toEqual({ litleToken: '1111222233334444' });
    const bad = await run(purchase({ paymentMethod: { type: 'third_party_token', token: 'tok_abc' } }), 0);
    expect(bad.response).toMatchObject({ success: false, errorCode: 'invalid_number' });
  });

  it('maps the recorded decline (110 Insufficient Funds) with AVS 34 and CVV P', async () => {
    next = { body: answer('saleResponse', DECLINED, '', { avs: '34', cvv: 'P' }) };
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, message: 'Insufficient Funds', errorCode: 'insufficient_funds', errorDetail: '110: Insufficient Funds', gatewayTransactionId: 'S600000000000000002', avsCode: 'I', cvvCode: 'P' });
  });

  it.each([
    ['301', 'Invalid Account Number', 'incorrect_number'],
    ['305', 'Expired Card', 'expired_card'],
    ['352', 'Decline CVV2/CID Fail', 'incorrect_cvc'],
    ['303', 'Pick Up Card', 'pickup_card'],
    ['120', 'Call Issuer', 'call_issuer'],
    ['501', 'The account was closed', 'account_closed'],
    ['349', 'Do Not Honor', 'card_declined'],
    ['999', 'Something new', 'card_declined'],
  ])('maps response %s (%s) to %s', async (code, message, standard) => {
    next = { body: answer('saleResponse', { ...DECLINED, response: code, message }) };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: standard, message, accountClosed: standard === 'account_closed' });
  });

  it('keeps an approved duplicate’s answer as the result and says so', async () => {
    next = { body: answer('saleResponse', SALE, " duplicate='true'") };
    expect((await run(purchase())).response).toMatchObject({ success: true, gatewayTransactionId: 'S100000000000000006', specificResponseFields: { litle: { duplicate: true } } });
  });

  it('a root response other than 0 fails unprocessed: a schema error is processing_error, a refused login config_error', async () => {
    next = { body: `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><litleOnlineResponse version="9.14" response="1" message="Error validating xml data against the schema: cvc-minLength-valid: Value '1234567890' with length = '10' is not facet-valid with respect to minLength '13' for type 'ccAccountNumberType'."/>` };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error', gatewayTransactionId: null });
    next = { body: `<litleOnlineResponse version="9.14" response="1" message="System Error - Call Vantiv: authentication failed for user" xmlns="http://www.litle.com/schema"/>` };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'config_error' });
  });
});

describe('Worldpay eCommerce: capture, credit, void, verify and store', () => {
  it('captures by litleTxnId with a partial amount, and maps 360 to processing_error', async () => {
    next = { body: answer('captureResponse', { litleTxnId: '100000000000000002', response: '000', message: 'Approved' }) };
    const { response, sent: raw } = await run(gatewayRequest('capture', CREDENTIALS, { reference: reference('A100000000000000001'), amount: 600, currencyCode: 'USD' }));
    const document = sent(raw);
    expect(document.kind).toBe('capture');
    expect(document.fields).toEqual([
      ['litleTxnId', '100000000000000001'],
      ['amount', '600'],
    ]);
    expect(response).toMatchObject({ success: true, message: 'Capture approved', gatewayTransactionId: 'C100000000000000002' });
    next = { body: answer('captureResponse', { litleTxnId: '304546900824606360', response: '360', message: 'No transaction found with specified litleTxnId' }) };
    expect((await run(gatewayRequest('capture', CREDENTIALS, { reference: reference('A1'), amount: 600, currencyCode: 'USD' }))).response).toMatchObject({ success: false, errorCode: 'processing_error' });
  });

  it('credits by litleTxnId (a bare litleTxnId is accepted too)', async () => {
    next = { body: answer('creditResponse', { litleTxnId: '100000000000000003', response: '000', message: 'Approved' }) };
    const { response, sent: raw } = await run(gatewayRequest('credit', CREDENTIALS, { reference: reference('100000000000000006', 'Purchase'), amount: 250, currencyCode: 'USD' }));
    expect(sent(raw)).toMatchObject({ kind: 'credit', fields: [['litleTxnId', '100000000000000006'], ['amount', '250']] });
    expect(response).toMatchObject({ success: true, message: 'Refund approved', gatewayTransactionId: 'R100000000000000003' });
  });

  it('voids an authorization with authReversal and anything else with void', async () => {
    next = { body: answer('authReversalResponse', { litleTxnId: '972619753208653000', orderId: '123', response: '000', message: 'Approved' }) };
    const auth = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('A100000000000000001', 'Purchase') }));
    expect(sent(auth.sent)).toMatchObject({ kind: 'authReversal', fields: [['litleTxnId', '100000000000000001']] });
    expect(auth.response).toMatchObject({ success: true, message: 'Transaction voided' });
    next = { body: answer('voidResponse', { litleTxnId: '100000000000000004', response: '000', message: 'Approved' }) };
    const sale = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('S100000000000000006', 'Purchase') }));
    expect(sent(sale.sent).kind).toBe('void');
    next = { body: answer('voidResponse', { litleTxnId: '100000000000000004', response: '362', message: 'Transaction Not Voided - Already Settled' }) };
    expect((await run(gatewayRequest('void', CREDENTIALS, { reference: reference('C1', 'Capture') }))).response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'Transaction Not Voided - Already Settled' });
  });

  it('verifies with a zero-amount authorization and nothing else', async () => {
    next = { body: answer('authorizationResponse', SALE) };
    const { response, sent: raw } = await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: card(), currencyCode: null }));
    expect(sent(raw).kind).toBe('authorization');
    expect(Object.fromEntries(sent(raw).fields).amount).toBe('0');
    expect(response).toMatchObject({ success: true, message: 'Card verified' });
  });

  it('stores with registerTokenRequest; T<litleToken>;MMYY is the third-party token; 802 (already registered) also succeeds', async () => {
    next = { body: answer('registerTokenResponse', { litleTxnId: '185074924759529000', litleToken: '1111222233334444', response: '000', message: 'Approved' }) };
    const { response, sent: raw } = await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: card(), orderId: 'o-1' }));
    expect(sent(raw)).toMatchObject({ kind: 'registerTokenRequest', fields: [['orderId', 'o-1'], ['accountNumber', PAN], ['cardValidationNum', '737']] });
    expect(response).toMatchObject({ success: true, message: 'Card stored', thirdPartyToken: 'T1111222233334444;0330' });
    next = { body: answer('registerTokenResponse', { litleTxnId: '185074924759529000', litleToken: '1111222233334444', response: '802', message: 'Account number was previously registered' }) };
    expect((await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: card() }))).response).toMatchObject({ success: true, thirdPartyToken: 'T1111222233334444;0330' });
    next = { body: answer('registerTokenResponse', { litleTxnId: '185074924759529000', response: '820', message: 'Credit card number was invalid' }) };
    expect((await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: card() }))).response).toMatchObject({ success: false, errorCode: 'invalid_number', thirdPartyToken: null });
  });

  it('glues a kind letter to the litleTxnId so a Luhn-valid id is not taken for a card number', () => {
    const luhnValid = '100000000000000016';
    expect(containsCardLike(luhnValid)).toBe(true);
    const id = litleTransactionId('captureResponse', luhnValid);
    expect(id).toBe('C100000000000000016');
    expect(containsCardLike(id)).toBe(false);
    expect(splitLitleId(id)).toEqual({ litleTxnId: luhnValid, kind: 'C' });
  });

  it('refuses a reference that is not a litleTxnId before sending', async () => {
    expect((await run(gatewayRequest('capture', CREDENTIALS, { reference: reference('nope;x'), amount: 1, currencyCode: 'USD' }), 0)).response).toMatchObject({ success: false, errorCode: 'processing_error' });
  });
});

describe('Worldpay eCommerce: faults, unknown outcomes and the transcript', () => {
  it.each(['error500', 'garbage', 'reset'] as const)('turns %s into a GatewayFaultError (reset: unknown)', async (mode) => {
    fake.setMode(mode);
    const error = await fault(purchase());
    expect(error instanceof GatewayFaultError || (mode === 'reset' && error instanceof GatewayResultUnknownError)).toBe(true);
  });

  it('no answer in time is an unknown outcome', async () => {
    fake.setMode('hang');
    expect(await fault(purchase(), 300)).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('no litleOnlineResponse, a wrong response element or no response code is a fault; an approval without litleTxnId is unknown', async () => {
    next = { body: '<?xml version="1.0"?><html><body>maintenance</body></html>' };
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    next = { body: answer('authorizationResponse', SALE) };
    expect(((await fault(purchase())) as GatewayFaultError).detail).toContain('saleResponse');
    next = { body: answer('saleResponse', { litleTxnId: '1', message: 'Approved' }) };
    expect(((await fault(purchase())) as GatewayFaultError).detail).toContain('response');
    next = { body: answer('saleResponse', { ...SALE, litleTxnId: '' }) };
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('keeps no card number, CVV, user or password in the transcript', async () => {
    const { transcript } = await run(purchase());
    const text = transcript.map((entry) => entry.text).join('\n');
    for (const element of ['user', 'password', 'number', 'cardValidationNum']) expect(text).toContain(`<${element}>[FILTERED]</${element}>`);
    expect(text).toContain('<message>Approved</message>');
    for (const secret of [PAN, PASSWORD, USER, '<cardValidationNum>737']) expect(text).not.toContain(secret);
    expect(findCardData(text, [PAN])).toEqual([]);
  });
});
