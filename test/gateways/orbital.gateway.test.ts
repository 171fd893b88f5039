import { createHash } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { containsCardLike } from '../../src/domain/scrubbing/card-like.js';
import { orbitalGateway } from '../../src/gateways/orbital.gateway.js';
import { ORBITAL_LIVE_BASE, ORBITAL_TEST_BASE } from '../../src/gateways/orbital/orbital-api.js';
import { executeOperation, type AdapterPaymentMethod, GatewayFaultError, GatewayResultUnknownError, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the Chase Orbital module (XML interface, POST /authorize). The answers
 * are the NewOrderResp / MarkForCaptureResp / ReversalResp / QuickResp samples ActiveMerchant's
 * Orbital unit tests record from the gateway, shaped as the Orbital Gateway XML Interface
 * Specification describes them, served by a local HTTP server. Each test asserts the exact
 * document sent (element order matters to Orbital's schema), the transport headers, and the mapping.
 */

const PASSWORD = 'zbp8X1ykGZ-secret';
const LOGIN = 'T16WAYSACT';
const MERCHANT_ID = '041756';
const PAN = '4112344112344113';
const CREDENTIALS = { login: LOGIN, merchant_id: MERCHANT_ID, password: PASSWORD };

const resp = (kind: string, fields: Record<string, string>) =>
  `<?xml version="1.0" encoding="UTF-8"?><Response><${kind}>${Object.entries(fields).map(([name, value]) => `<${name}>${value}</${name}>`).join('')}</${kind}></Response>`;

const APPROVED = {
  IndustryType: '', MessageType: 'AC', MerchantID: MERCHANT_ID, TerminalID: '001', CardBrand: 'VI', AccountNum: PAN, OrderID: 'b141cf3ce2a442732e1906',
  TxRefNum: '574FDA8CECFBC3DA073FF74A7E6DE4E0BA87545B', TxRefIdx: '2', ProcStatus: '0', ApprovalStatus: '1', RespCode: '00', AVSRespCode: 'H ', CVV2RespCode: 'M',
  AuthCode: 'tst595', RecurringAdviceCd: '', CAVVRespCode: '', StatusMsg: 'Approved', RespMsg: '', HostRespCode: '100', HostAVSRespCode: 'IU', HostCVV2RespCode: 'M', RespTime: '030444',
};
const DECLINED = {
  ...APPROVED, AccountNum: '4000300011112220', OrderID: '1', TxRefNum: '4A5398CF9B87744GG84A1D30F2F2321C66249416', TxRefIdx: '0', ApprovalStatus: '0', RespCode: '05',
  AVSRespCode: 'G ', CVV2RespCode: 'N', AuthCode: '', StatusMsg: 'Do Not Honor', RespMsg: 'AUTH DECLINED                   12001', HostRespCode: '05',
};
const QUICK = (procStatus: string, message: string) => resp('QuickResp', { ProcStatus: procStatus, StatusMsg: message });

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let next: FakeAnswer;
/** Bodies answered before `next`, one per request. */
let queue: string[] = [];

const parser = new XMLParser({ parseTagValue: false });

/** The document sent: its kind and its elements in order. */
function sent(request: FakeRequest): { kind: string; fields: Array<[string, string]> } {
  expect(request.rawBody.startsWith('<?xml version="1.0" encoding="UTF-8"?><Request>')).toBe(true);
  const [kind, raw] = Object.entries((parser.parse(request.rawBody) as { Request: Record<string, Record<string, unknown>> }).Request)[0] as [string, Record<string, unknown>];
  return { kind, fields: Object.entries(raw).map(([name, value]) => [name, String(value)]) };
}
const fieldsOf = (request: FakeRequest) => Object.fromEntries(sent(request).fields);

/** The Trace-number as the docs page defines it, computed here on its own: SHA-256 of token+suffix, first 128 bits mod (10^16 − 1), plus 1. */
function expectedTrace(token: string, suffix = ''): string {
  const hex = createHash('sha256').update(`${token}${suffix}`).digest('hex').slice(0, 32);
  return String((BigInt(`0x${hex}`) % 9_999_999_999_999_999n) + 1n);
}

async function run(request: GatewayRequest, expectedRequests = 1): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest; all: FakeRequest[] }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(orbitalGateway, request, transcript, { http, override: fake.url, timeoutMs: 3000 });
  expect(fake.requests.length - before).toBe(expectedRequests);
  const all = fake.requests.slice(before);
  return { response, transcript, sent: all[0] as FakeRequest, all };
}

async function fault(request: GatewayRequest, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(orbitalGateway, request, [], { http, override: fake.url, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

const card = (overrides: Parameters<typeof testCard>[1] = {}) => testCard(PAN, overrides) as Extract<AdapterPaymentMethod, { type: 'credit_card' }>;
const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD', ...overrides });
const reference = (id: string, transactionType = 'Authorization') => ({ gatewayTransactionId: id, transactionType, amount: 1000 });
const AUTH_ID = '574FDA8CECFBC3DA073FF74A7E6DE4E0BA87545B;b141cf3ce2a442732e1906';

beforeAll(async () => {
  fake = await FakeGatewayServer.start([{ method: 'POST', path: '/authorize', handle: () => (queue.length > 0 ? { body: queue.shift() as string } : next) }], { garbageBody: '<html><body>Service Unavailable</body></html>' });
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  queue = [];
  next = { body: resp('NewOrderResp', APPROVED), contentType: 'application/PTI95' };
});

describe('Orbital: purchase and authorize', () => {
  it('POSTs a NewOrder AC to the test /authorize with Orbital’s transport headers, the retry-logic Trace-number, and every element in the schema’s order', async () => {
    const request = purchase({ orderId: 'order.42/x', description: 'Tea', amount: 1999 });
    const { response, sent: raw } = await run(request);
    expect(raw.method).toBe('POST');
    expect(raw.path).toBe('/authorize');
    expect(raw.headers).toMatchObject({
      'content-type': 'application/PTI95',
      'mime-version': '1.1',
      'content-transfer-encoding': 'text',
      'request-number': '1',
      'document-type': 'Request',
      'trace-number': expectedTrace(request.transactionToken),
      'merchant-id': MERCHANT_ID,
    });
    expect(sent(raw)).toEqual({
      kind: 'NewOrder',
      fields: [
        ['OrbitalConnectionUsername', LOGIN],
        ['OrbitalConnectionPassword', PASSWORD],
        ['IndustryType', 'EC'],
        ['MessageType', 'AC'],
        ['BIN', '000001'],
        ['MerchantID', MERCHANT_ID],
        ['TerminalID', '001'],
        ['AccountNum', PAN],
        ['Exp', '0330'],
        ['CurrencyCode', '840'],
        ['CurrencyExponent', '2'],
        ['CardSecValInd', '1'],
        ['CardSecVal', '737'],
        ['AVSzip', 'SW1Y 4JH'],
        ['AVSaddress1', '12 St James Sq'],
        ['AVScity', 'London'],
        ['AVSname', 'Ada Lovelace'],
        ['AVScountryCode', 'GB'],
        ['OrderID', 'order-42x'],
        ['Amount', '1999'],
        ['Comments', 'Tea'],
      ],
    });
    expect(response).toMatchObject({
      success: true,
      message: 'Transaction approved',
      gatewayTransactionId: AUTH_ID,
      errorCode: null,
      avsCode: 'Y',
      cvvCode: 'M',
      cvvMessage: 'Match',
      specificResponseFields: { orbital: { proc_status: '0', approval_status: '1', resp_code: '00', host_resp_code: '100', auth_code: 'tst595', tx_ref_idx: '2', card_brand: 'VI', avs_resp_code: 'H' } },
    });
  });

  it('authorizes with MessageType A, leaves out an absent CVV and address, uses the transaction token as OrderID, and goes live when not in sandbox', async () => {
    const request = gatewayRequest('authorize', CREDENTIALS, { paymentMethod: card({ cvc: null, address: false }), testMode: false, currencyCode: 'USD' });
    const { response, sent: raw } = await run(request);
    const fields = fieldsOf(raw);
    expect(fields).toMatchObject({ MessageType: 'A', OrderID: request.transactionToken.slice(0, 22), AVSname: 'Ada Lovelace' });
    for (const absent of ['CardSecVal', 'CardSecValInd', 'AVSzip', 'AVScountryCode', 'Comments']) expect(fields).not.toHaveProperty(absent);
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized' });
    expect(orbitalGateway.endpoint?.(request)).toBe(ORBITAL_LIVE_BASE);
    expect(orbitalGateway.endpoint?.({ ...request, testMode: true })).toBe(ORBITAL_TEST_BASE);
  });

  it('sends AVS street fields only for countries Orbital verifies, and no CardSecValInd for Mastercard', async () => {
    const method = { ...card(), cardType: 'master', address: { address1: '1 Rue', address2: null, city: 'Paris', state: null, zip: '75001', country: 'FR' } };
    const fields = fieldsOf((await run(purchase({ paymentMethod: method }))).sent);
    expect(fields).not.toHaveProperty('AVSzip');
    expect(fields).not.toHaveProperty('CardSecValInd');
    expect(fields).toMatchObject({ CardSecVal: '737', AVSname: 'Ada Lovelace', AVScountryCode: '' });
  });

  it('in merchant_id_only mode sends no connection credentials; a 12-digit (PNS) merchant id gets BIN 000002', async () => {
    const { sent: raw } = await run(gatewayRequest('purchase', { merchant_id: '700000000000', mode: 'merchant_id_only' }, { currencyCode: 'USD' }));
    const { fields } = sent(raw);
    expect(fields.slice(0, 5)).toEqual([
      ['IndustryType', 'EC'],
      ['MessageType', 'AC'],
      ['BIN', '000002'],
      ['MerchantID', '700000000000'],
      ['TerminalID', '001'],
    ]);
    expect(raw.headers['merchant-id']).toBe('700000000000');
  });

  it('sends amounts in Orbital’s exponent per currency (JPY 0, CLP 2 though ISO says 0), and refuses currencies Orbital does not list without sending', async () => {
    const yen = fieldsOf((await run(purchase({ amount: 1500, currencyCode: 'JPY' }))).sent);
    expect(yen).toMatchObject({ Amount: '1500', CurrencyCode: '392', CurrencyExponent: '0' });
    const peso = fieldsOf((await run(purchase({ amount: 1000, currencyCode: 'CLP' }))).sent);
    expect(peso).toMatchObject({ Amount: '100000', CurrencyCode: '152', CurrencyExponent: '2' });
    const cents = fieldsOf((await run(purchase({ amount: 5, currencyCode: 'EUR' }))).sent);
    expect(cents).toMatchObject({ Amount: '5', CurrencyCode: '978', CurrencyExponent: '2' });
    const dinar = await run(purchase({ amount: 1234, currencyCode: 'KWD' }), 0);
    expect(dinar.response).toMatchObject({ success: false, errorCode: 'invalid_amount' });
  });

  it('purchases with a Safetech token: CardBrand and the token as AccountNum, no expiry or CVV', async () => {
    const fields = fieldsOf((await run(purchase({ paymentMethod: { type: 'third_party_token', token: 'VI4556761607723886' } }))).sent);
    expect(fields).toMatchObject({ CardBrand: 'VI', AccountNum: '4556761607723886', CurrencyCode: '840' });
    expect(fields).not.toHaveProperty('Exp');
    expect(fields).not.toHaveProperty('CardSecVal');
    const bad = await run(purchase({ paymentMethod: { type: 'third_party_token', token: 'no-brand' } }), 0);
    expect(bad.response).toMatchObject({ success: false, errorCode: 'invalid_number' });
  });

  it('maps the recorded decline (RespCode 05 Do Not Honor) to card_declined with its RespMsg, AVS G → N and CVV N', async () => {
    next = { body: resp('NewOrderResp', DECLINED) };
    const { response } = await run(purchase());
    expect(response).toMatchObject({
      success: false,
      message: 'AUTH DECLINED                   12001',
      errorCode: 'card_declined',
      errorDetail: '05: 05: Do Not Honor',
      gatewayTransactionId: '4A5398CF9B87744GG84A1D30F2F2321C66249416;1',
      avsCode: 'N',
      cvvCode: 'N',
    });
  });

  it.each([
    ['05', '521', 'insufficient_funds'],
    ['05', '522', 'expired_card'],
    ['05', '531', 'incorrect_cvc'],
    ['04', '501', 'pickup_card'],
    ['01', '401', 'call_issuer'],
    ['05', '754', 'account_closed'],
    ['51', '', 'insufficient_funds'],
    ['14', '', 'incorrect_number'],
    ['ZZ', '999', 'card_declined'],
  ])('maps RespCode %s / HostRespCode %s to %s', async (respCode, hostRespCode, standard) => {
    next = { body: resp('NewOrderResp', { ...DECLINED, RespCode: respCode, HostRespCode: hostRespCode }) };
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, errorCode: standard, accountClosed: standard === 'account_closed' });
  });

  it.each([
    ['20412', 'Precondition Failed: Security Information - agent/chain/merchant is missing', 'config_error'],
    ['841', 'Error validating card/account number range', 'invalid_number'],
    ['840', 'Error validating Expiration Date', 'invalid_expiry_date'],
    ['885', 'Error validating amount. Must be numeric, equal to zero or greater [-1]', 'invalid_amount'],
    ['19784', ' EWS: Invalid Action Code [W7], For Transaction Type [A].', 'processing_error'],
  ])('maps a QuickResp ProcStatus %s to its standard code, with StatusMsg as the message', async (procStatus, message, standard) => {
    next = { body: QUICK(procStatus, message) };
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, errorCode: standard, message: message.trim(), gatewayTransactionId: null, errorDetail: `ProcStatus ${procStatus}: ${message.trim()}` });
  });

  it('turns the retry logic off with retry_logic false, and uses a numeric idempotency_key as the Trace-number', async () => {
    const off = (await run(purchase({ gatewaySpecificFields: { retry_logic: 'false' } }))).sent;
    expect(off.headers).not.toHaveProperty('trace-number');
    expect(off.headers).not.toHaveProperty('merchant-id');
    const keyed = (await run(purchase({ gatewaySpecificFields: { idempotency_key: '123456789' } }))).sent;
    expect(keyed.headers['trace-number']).toBe('123456789');
    const request = purchase({ gatewaySpecificFields: { idempotency_key: 'not-a-number' } });
    expect((await run(request)).sent.headers['trace-number']).toBe(expectedTrace(request.transactionToken));
  });
});

describe('Orbital: capture, refund, void, verify and store', () => {
  it('captures with MarkForCapture (partial amount) by TxRefNum and OrderID, in the schema’s order', async () => {
    next = { body: resp('MarkForCaptureResp', { MerchantID: MERCHANT_ID, TerminalID: '001', OrderID: 'b141cf3ce2a442732e1906', TxRefNum: '574FDA8CECFBC3DA073FF74A7E6DE4E0BA87545B', TxRefIdx: '1', Amount: '600', ProcStatus: '0', StatusMsg: '', ApprovalStatus: '1', RespCode: '00', AuthCode: 'tst595' }) };
    const { response, sent: raw } = await run(gatewayRequest('capture', CREDENTIALS, { reference: reference(AUTH_ID), amount: 600, currencyCode: 'USD' }));
    expect(sent(raw)).toEqual({
      kind: 'MarkForCapture',
      fields: [
        ['OrbitalConnectionUsername', LOGIN],
        ['OrbitalConnectionPassword', PASSWORD],
        ['OrderID', 'b141cf3ce2a442732e1906'],
        ['Amount', '600'],
        ['BIN', '000001'],
        ['MerchantID', MERCHANT_ID],
        ['TerminalID', '001'],
        ['TxRefNum', '574FDA8CECFBC3DA073FF74A7E6DE4E0BA87545B'],
      ],
    });
    expect(response).toMatchObject({ success: true, message: 'Capture approved', gatewayTransactionId: AUTH_ID });
  });

  it('refunds with a NewOrder R carrying TxRefNum and the original OrderID; ApprovalStatus decides', async () => {
    next = { body: resp('NewOrderResp', { MessageType: 'R', MerchantID: '253997', OrderID: '0c1792db5d167e0b96dd9c', TxRefNum: '60D1E12322FD50E1517A2598593A48EEA9965469', TxRefIdx: '2', ProcStatus: '0', ApprovalStatus: '1', RespCode: '00', StatusMsg: 'Approved', HostRespCode: '100' }) };
    const { response, sent: raw } = await run(gatewayRequest('credit', CREDENTIALS, { reference: reference('60D1E12322FD50E1517A2598593A48EEA9965400;0c1792db5d167e0b96dd9c', 'Purchase'), amount: 250, currencyCode: 'USD' }));
    expect(sent(raw).fields.slice(2)).toEqual([
      ['IndustryType', 'EC'],
      ['MessageType', 'R'],
      ['BIN', '000001'],
      ['MerchantID', MERCHANT_ID],
      ['TerminalID', '001'],
      ['CurrencyCode', '840'],
      ['CurrencyExponent', '2'],
      ['OrderID', '0c1792db5d167e0b96dd9c'],
      ['Amount', '250'],
      ['TxRefNum', '60D1E12322FD50E1517A2598593A48EEA9965400'],
    ]);
    expect(response).toMatchObject({ success: true, message: 'Refund approved', gatewayTransactionId: '60D1E12322FD50E1517A2598593A48EEA9965469;0c1792db5d167e0b96dd9c' });

    next = { body: resp('NewOrderResp', { MessageType: 'R', OrderID: '0c1792db5d167e0b96dd9f', TxRefNum: '60D1E12322FD50E1517A2598593A48EEA9965445', ProcStatus: '0', ApprovalStatus: '0', RespCode: '12', StatusMsg: 'Invalid Transaction Type', HostRespCode: '606' }) };
    expect((await run(gatewayRequest('credit', CREDENTIALS, { reference: reference(AUTH_ID, 'Purchase'), currencyCode: 'USD' }))).response).toMatchObject({ success: false, message: 'Invalid Transaction Type', errorCode: 'processing_error' });
    next = { body: QUICK('881', 'The LIDM you supplied (3F3F3F) does not match with any existing transaction') };
    expect((await run(gatewayRequest('credit', CREDENTIALS, { reference: reference(AUTH_ID, 'Purchase'), currencyCode: 'USD' }))).response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'The LIDM you supplied (3F3F3F) does not match with any existing transaction' });
  });

  it('voids with a Reversal of the whole transaction (ProcStatus decides)', async () => {
    next = { body: resp('ReversalResp', { MerchantID: '700000208761', TerminalID: '001', OrderID: '2', TxRefNum: '50FB1C41FEC9D016FF0BEBAD0884B174AD0853B0', TxRefIdx: '1', OutstandingAmt: '0', ProcStatus: '0', StatusMsg: '', RespTime: '01192013172049' }) };
    const { response, sent: raw } = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('50FB1C41FEC9D016FF0BEBAD0884B174AD0853B0;2') }));
    expect(sent(raw)).toEqual({
      kind: 'Reversal',
      fields: [
        ['OrbitalConnectionUsername', LOGIN],
        ['OrbitalConnectionPassword', PASSWORD],
        ['TxRefNum', '50FB1C41FEC9D016FF0BEBAD0884B174AD0853B0'],
        ['OrderID', '2'],
        ['BIN', '000001'],
        ['MerchantID', MERCHANT_ID],
        ['TerminalID', '001'],
      ],
    });
    expect(response).toMatchObject({ success: true, message: 'Transaction voided', gatewayTransactionId: '50FB1C41FEC9D016FF0BEBAD0884B174AD0853B0;2' });
  });

  it('verifies with a zero-amount authorization; a Discover card with 1.00 then its Reversal under a second Trace-number', async () => {
    const visa = await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: card(), currencyCode: null }));
    expect(fieldsOf(visa.sent)).toMatchObject({ MessageType: 'A', Amount: '0', CurrencyCode: '840' });
    expect(visa.response).toMatchObject({ success: true, message: 'Card verified' });

    const request = gatewayRequest('verify', CREDENTIALS, { paymentMethod: { ...card(), cardType: 'discover' }, currencyCode: 'USD' });
    queue = [resp('NewOrderResp', APPROVED), resp('ReversalResp', { OrderID: APPROVED.OrderID, TxRefNum: APPROVED.TxRefNum, ProcStatus: '0' })];
    const discover = await run(request, 2);
    expect(fieldsOf(discover.all[0] as FakeRequest)).toMatchObject({ MessageType: 'A', Amount: '100' });
    expect(sent(discover.all[1] as FakeRequest).kind).toBe('Reversal');
    expect(discover.all[1]?.headers['trace-number']).toBe(expectedTrace(request.transactionToken, '-reversal'));
    expect(discover.response).toMatchObject({ success: true, message: 'Card verified', gatewayTransactionId: AUTH_ID });
  });

  it('stores with a zero-amount authorization and TokenTxnType GT; CardBrand glued to the SafetechToken is the third-party token, never masked', async () => {
    next = { body: resp('NewOrderResp', { ...APPROVED, MessageType: 'A', AccountNum: '4556761029983886', SafetechToken: '4556761607723886', PymtBrandAuthResponseCode: '00' }) };
    const { response, sent: raw, transcript } = await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: card(), currencyCode: null }));
    const { fields } = sent(raw);
    expect(fields.at(-1)).toEqual(['TokenTxnType', 'GT']);
    expect(Object.fromEntries(fields)).toMatchObject({ MessageType: 'A', Amount: '0', AccountNum: PAN });
    expect(response).toMatchObject({ success: true, message: 'Card stored', thirdPartyToken: 'VI4556761607723886' });
    expect(transcript.map((entry) => entry.text).join('\n')).toContain('<SafetechToken>[FILTERED]</SafetechToken>');
    // The recorded SafetechToken passes Luhn: bare, Coffer would mask it as a card; glued to its brand it is not.
    expect(containsCardLike('4556761607723886')).toBe(true);
    expect(containsCardLike(response.thirdPartyToken ?? '')).toBe(false);
    next = { body: resp('NewOrderResp', { ...APPROVED, SafetechToken: '' }) };
    expect(await fault(gatewayRequest('store', CREDENTIALS, { paymentMethod: card() }))).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('refuses a reference without TxRefNum;OrderID before sending', async () => {
    const { response } = await run(gatewayRequest('capture', CREDENTIALS, { reference: reference('only-one-part'), amount: 100, currencyCode: 'USD' }), 0);
    expect(response).toMatchObject({ success: false, errorCode: 'processing_error' });
  });
});

describe('Orbital: faults, unknown outcomes and the transcript', () => {
  it.each(['error500', 'garbage', 'reset'] as const)('turns %s into a GatewayFaultError (reset: unknown)', async (mode) => {
    fake.setMode(mode);
    const error = await fault(purchase());
    expect(error instanceof GatewayFaultError || (mode === 'reset' && error instanceof GatewayResultUnknownError)).toBe(true);
  });

  it('no answer in time is an unknown outcome', async () => {
    fake.setMode('hang');
    expect(await fault(purchase(), 300)).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('an answer without Response or ProcStatus is a fault; an approval without TxRefNum is unknown; NUL characters and unknown fields are tolerated', async () => {
    next = { body: '<?xml version="1.0"?><html><body>maintenance</body></html>' };
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    next = { body: resp('NewOrderResp', Object.fromEntries(Object.entries(APPROVED).filter(([name]) => name !== 'ProcStatus'))) };
    const missing = await fault(purchase());
    expect((missing as GatewayFaultError).detail).toContain('ProcStatus');
    next = { body: resp('NewOrderResp', { ...APPROVED, TxRefNum: '' }) };
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
    next = { body: resp('NewOrderResp', { ...DECLINED, RespCode: '30', RespMsg: 'INV FIELD IN MSG                AAAAAAAAA1\u0000\u0000\u0000', BrandNewField: 'x' }) };
    expect((await run(purchase())).response).toMatchObject({ success: false, message: 'INV FIELD IN MSG                AAAAAAAAA1' });
  });

  it('keeps no card number, CVV, login, password or merchant id in the transcript', async () => {
    const { transcript } = await run(purchase());
    const text = transcript.map((entry) => entry.text).join('\n');
    for (const element of ['OrbitalConnectionUsername', 'OrbitalConnectionPassword', 'AccountNum', 'CardSecVal', 'MerchantID']) expect(text).toContain(`<${element}>[FILTERED]</${element}>`);
    expect(text).toContain('merchant-id: [FILTERED]');
    expect(text).toContain('<StatusMsg>Approved</StatusMsg>');
    for (const secret of [PAN, PASSWORD, LOGIN, '<CardSecVal>737']) expect(text).not.toContain(secret);
    expect(findCardData(text, [PAN])).toEqual([]);
  });
});
