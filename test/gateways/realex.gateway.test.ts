import { createHash } from 'node:crypto';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { realexGateway } from '../../src/gateways/realex.gateway.js';
import { REALEX_LIVE_BASE, REALEX_TEST_BASE } from '../../src/gateways/realex/realex-api.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the Global Payments (Realex) module (e-commerce XML API,
 * epage-remote.cgi). The answers are Global Payments' documented response examples (auth
 * "[ test system ] AUTHORISED", decline 101, referral 102/103, settle, rebate, void, otb, payer-new
 * and card-new, an unsigned 508 request error), signed here with the test's own SHA-1 code so that
 * the module's verification is exercised both ways. Each test recomputes the request's sha1hash
 * independently of the module.
 */

const MERCHANT = 'MerchantId';
const SECRET = 'Po8lRRT67a-shared-secret';
const REBATE = 'rebate-password-secret';
const PAN = '4263970000005262';
const CREDENTIALS = { login: MERCHANT, password: SECRET, account: 'internet', rebate_secret: REBATE };

const sha1 = (text: string) => createHash('sha1').update(text).digest('hex');
/** Global Payments' documented two-step hash, written out independently of src/. */
const documentedHash = (joined: string, secret: string) => sha1(`${sha1(joined)}.${secret}`);

interface Answer {
  timestamp?: string;
  orderid?: string;
  result: string;
  message: string;
  pasref?: string;
  authcode?: string;
  extra?: string;
  /** 'valid' (default), 'bad' (signed with another secret), 'none'. */
  hash?: 'valid' | 'bad' | 'none';
}

/** A `<response>` as Global Payments sends it, its sha1hash over timestamp.merchantid.orderid.result.message.pasref.authcode. */
function response(answer: Answer, orderId: string): string {
  const timestamp = answer.timestamp ?? '20180731090859';
  const orderid = answer.orderid ?? orderId;
  const pasref = answer.pasref ?? '14610544313177922';
  const authcode = answer.authcode ?? '12345';
  const joined = [timestamp, MERCHANT, orderid, answer.result, answer.message, pasref, authcode].join('.');
  const hash = answer.hash === 'none' ? '' : `<sha1hash>${documentedHash(joined, answer.hash === 'bad' ? 'not-the-secret' : SECRET)}</sha1hash>`;
  return `<?xml version="1.0" encoding="UTF-8"?><response timestamp="${timestamp}"><merchantid>${MERCHANT}</merchantid><account>internet</account><orderid>${orderid}</orderid><authcode>${authcode}</authcode><result>${answer.result}</result><cvnresult>M</cvnresult><avspostcoderesponse>M</avspostcoderesponse><avsaddressresponse>M</avsaddressresponse><batchid>319623</batchid><message>${answer.message}</message><pasref>${pasref}</pasref><timetaken>0</timetaken><authtimetaken>0</authtimetaken>${answer.extra ?? ''}<cardissuer><bank>AIB BANK</bank><country>IRELAND</country><countrycode>IE</countrycode><region>EUR</region></cardissuer>${hash}</response>`;
}

const AUTHORISED: Answer = { result: '00', message: '[ test system ] AUTHORISED' };

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
/** What the server answers next: built from the request's orderid. */
let next: Answer | FakeAnswer = AUTHORISED;

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false });
type Sent = { '@_type': string; '@_timestamp': string; [name: string]: any };

function sentRequest(request: FakeRequest): Sent {
  return (parser.parse(request.rawBody) as { request: Sent }).request;
}

async function run(request: GatewayRequest): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest; xml: Sent }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(realexGateway, request, transcript, { http, override: fake.url, timeoutMs: 3000 });
  expect(fake.requests.length - before).toBeLessThanOrEqual(2);
  const sent = fake.requests[fake.requests.length - 1] as FakeRequest;
  return { response, transcript, sent, xml: sentRequest(sent) };
}

async function fault(request: GatewayRequest, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(realexGateway, request, [], { http, override: fake.url, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', CREDENTIALS, { paymentMethod: testCard(PAN), ...overrides });
const reference = (id: string, transactionType = 'Authorization') => ({ gatewayTransactionId: id, transactionType, amount: 1000 });

beforeAll(async () => {
  fake = await FakeGatewayServer.start([
    {
      method: 'POST',
      path: '/epage-remote.cgi',
      handle: (request) => {
        if ('body' in next || 'status' in next) return next as FakeAnswer;
        return { contentType: 'text/xml', body: response(next as Answer, String(sentRequest(request).orderid ?? '')) };
      },
    },
  ]);
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  next = AUTHORISED;
});

describe('Global Payments: purchase and authorize', () => {
  it('POSTs an auth request to the sandbox with autosettle 1, every field in order and the documented sha1hash', async () => {
    const request = purchase({ orderId: 'order 42/x', description: 'Tea', ip: '192.0.2.1', amount: 1001 });
    const { response: answer, sent, xml } = await run(request);
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/epage-remote.cgi');
    expect(sent.headers['content-type']).toBe('application/xml');
    expect(Object.keys(xml)).toEqual(['merchantid', 'account', 'orderid', 'amount', 'card', 'autosettle', 'comments', 'tssinfo', 'sha1hash', '@_type', '@_timestamp']);
    expect(xml['@_type']).toBe('auth');
    expect(xml['@_timestamp']).toMatch(/^\d{14}$/);
    expect(xml).toMatchObject({
      merchantid: MERCHANT,
      account: 'internet',
      orderid: 'order42x',
      amount: { '#text': '1001', '@_currency': 'EUR' },
      card: { number: PAN, expdate: '0330', chname: 'Ada Lovelace', type: 'VISA', cvn: { number: '737', presind: '1' } },
      autosettle: { '@_flag': '1' },
      comments: { comment: { '#text': 'Tea', '@_id': '1' } },
      tssinfo: { custipaddress: '192.0.2.1', address: { '@_type': 'billing', code: '14|12', country: 'GB' } },
    });
    expect(Object.keys(xml.card)).toEqual(['number', 'expdate', 'chname', 'type', 'cvn']);
    expect(xml.sha1hash).toBe(documentedHash(`${xml['@_timestamp']}.${MERCHANT}.order42x.1001.EUR.${PAN}`, SECRET));
    expect(answer).toMatchObject({
      success: true,
      message: 'Transaction approved',
      gatewayTransactionId: 'order42x;14610544313177922;12345',
      errorCode: null,
      avsCode: 'M',
      cvvCode: 'M',
      specificResponseFields: { realex: { result: '00', message: '[ test system ] AUTHORISED', pasref: '14610544313177922', authcode: '12345' } },
    });
  });

  it('authorizes with autosettle 0, the transaction token as orderid, no CVN or address when absent, and live without sandbox', async () => {
    const request = gatewayRequest('authorize', { login: MERCHANT, password: SECRET }, { paymentMethod: testCard(PAN, { cvc: null, address: false }), testMode: false });
    const { response: answer, xml } = await run(request);
    expect(xml.autosettle).toEqual({ '@_flag': '0' });
    expect(xml.orderid).toBe(request.transactionToken);
    expect(xml).not.toHaveProperty('account');
    expect(xml).not.toHaveProperty('tssinfo');
    expect(xml.card).not.toHaveProperty('cvn');
    expect(answer).toMatchObject({ success: true, message: 'Transaction authorized' });
    expect(realexGateway.endpoint?.(request)).toBe(REALEX_LIVE_BASE);
    expect(realexGateway.endpoint?.({ ...request, testMode: true })).toBe(REALEX_TEST_BASE);
  });

  it('sends amounts in minor units by the ISO exponent (JPY 0, KWD 3)', async () => {
    const yen = (await run(purchase({ amount: 1500, currencyCode: 'JPY' }))).xml;
    expect(yen.amount).toEqual({ '#text': '1500', '@_currency': 'JPY' });
    expect(yen.sha1hash).toBe(documentedHash(`${yen['@_timestamp']}.${MERCHANT}.${yen.orderid}.1500.JPY.${PAN}`, SECRET));
    expect((await run(purchase({ amount: 1234, currencyCode: 'KWD' }))).xml.amount).toEqual({ '#text': '1234', '@_currency': 'KWD' });
  });

  it('maps a decline (101) to card_declined, referrals 102/103, 2xx bank errors, 5xx request errors and 666', async () => {
    const cases: Array<[Answer, string]> = [
      [{ result: '101', message: '[ test system ] DECLINED' }, 'card_declined'],
      [{ result: '102', message: '[ test system ] REFERRAL B' }, 'call_issuer'],
      [{ result: '103', message: '[ test system ] REFERRAL A' }, 'pickup_card'],
      [{ result: '107', message: 'Fraud filter' }, 'card_declined'],
      [{ result: '205', message: 'Comms Error' }, 'processing_error'],
      [{ result: '508', message: 'Invalid data in CC number field', hash: 'none' }, 'processing_error'],
      [{ result: '666', message: 'Client deactivated.', hash: 'none' }, 'config_error'],
    ];
    for (const [answer, code] of cases) {
      next = answer;
      const { response: mapped } = await run(purchase());
      expect(mapped, answer.result).toMatchObject({ success: false, errorCode: code, message: answer.message, errorDetail: `${answer.result}: ${answer.message}` });
    }
  });

  it('purchases a RealVault card with receipt-in, signed over …amount.currency.payerref', async () => {
    const { xml } = await run(purchase({ paymentMethod: { type: 'third_party_token', token: 'payer-1|card-1' } }));
    expect(xml['@_type']).toBe('receipt-in');
    expect(xml).toMatchObject({ payerref: 'payer-1', paymentmethod: 'card-1', autosettle: { '@_flag': '1' } });
    expect(xml).not.toHaveProperty('card');
    expect(xml.sha1hash).toBe(documentedHash(`${xml['@_timestamp']}.${MERCHANT}.${xml.orderid}.1000.EUR.payer-1`, SECRET));
    const before = fake.requests.length;
    expect((await run(purchase({ paymentMethod: { type: 'third_party_token', token: 'no-separator' } }))).response).toMatchObject({ success: false, errorCode: 'invalid_number' });
    expect(fake.requests.length).toBe(before);
  });

  it('refuses a card brand Global Payments does not take, sending nothing', async () => {
    const before = fake.requests.length;
    const discover = { ...testCard(PAN), cardType: 'discover' } as GatewayRequest['paymentMethod'];
    const { response: refused } = await run(purchase({ paymentMethod: discover }));
    expect(refused).toMatchObject({ success: false, errorCode: 'unsupported_feature' });
    expect(fake.requests.length).toBe(before);
  });
});

describe('Global Payments: the response signature', () => {
  it('a response whose sha1hash does not verify is a gateway fault, even an approval', async () => {
    next = { ...AUTHORISED, hash: 'bad' };
    const error = await fault(purchase());
    expect(error).toBeInstanceOf(GatewayFaultError);
    expect((error as GatewayFaultError).detail).toBe('sha1hash mismatch');
  });

  it('a tampered field (the message) breaks the signature', async () => {
    next = { contentType: 'text/xml', body: response(AUTHORISED, 'order-t').replace('[ test system ] AUTHORISED', '[ test system ] AUTHORISED!') };
    expect(await fault(purchase({ orderId: 'order-t' }))).toBeInstanceOf(GatewayFaultError);
  });

  it('an approval, decline or bank error without a hash is a fault; an answer for another order is a fault', async () => {
    for (const result of ['00', '101', '205']) {
      next = { result, message: 'x', hash: 'none' };
      expect(await fault(purchase()), result).toBeInstanceOf(GatewayFaultError);
    }
    next = { ...AUTHORISED, orderid: 'someone-else' };
    expect(((await fault(purchase())) as GatewayFaultError).detail).toBe('orderid mismatch');
  });
});

describe('Global Payments: settle, rebate, void, otb and RealVault', () => {
  it('settles part of an authorization with its orderid and pasref, signed over …amount.currency. (empty card)', async () => {
    const { response: answer, xml } = await run(gatewayRequest('capture', CREDENTIALS, { reference: reference('ord-1;PAS-1;AUTH1'), amount: 600 }));
    expect(xml['@_type']).toBe('settle');
    expect(Object.keys(xml)).toEqual(['merchantid', 'account', 'orderid', 'pasref', 'authcode', 'amount', 'sha1hash', '@_type', '@_timestamp']);
    expect(xml).toMatchObject({ orderid: 'ord-1', pasref: 'PAS-1', authcode: 'AUTH1', amount: { '#text': '600', '@_currency': 'EUR' } });
    expect(xml.sha1hash).toBe(documentedHash(`${xml['@_timestamp']}.${MERCHANT}.ord-1.600.EUR.`, SECRET));
    expect(answer).toMatchObject({ success: true, message: 'Capture approved', gatewayTransactionId: 'ord-1;PAS-1;AUTH1', specificResponseFields: { realex: { pasref: '14610544313177922' } } });
  });

  it('rebates with the refundhash (SHA-1 of the rebate password); without a rebate_secret nothing is sent', async () => {
    const { response: answer, xml } = await run(gatewayRequest('credit', CREDENTIALS, { reference: reference('ord-2;PAS-2;AUTH2', 'Purchase'), amount: 250 }));
    expect(xml['@_type']).toBe('rebate');
    expect(xml).toMatchObject({ orderid: 'ord-2', pasref: 'PAS-2', authcode: 'AUTH2', amount: { '#text': '250', '@_currency': 'EUR' }, refundhash: sha1(REBATE) });
    expect(xml.sha1hash).toBe(documentedHash(`${xml['@_timestamp']}.${MERCHANT}.ord-2.250.EUR.`, SECRET));
    expect(answer).toMatchObject({ success: true, message: 'Refund approved', gatewayTransactionId: 'ord-2;14610544313177922;12345' });
    const before = fake.requests.length;
    const refused = await run(gatewayRequest('credit', { login: MERCHANT, password: SECRET }, { reference: reference('ord-2;PAS-2;AUTH2', 'Purchase') }));
    expect(refused.response).toMatchObject({ success: false, errorCode: 'config_error' });
    expect(fake.requests.length).toBe(before);
  });

  it('voids, signed over timestamp.merchantid.orderid...', async () => {
    const { response: answer, xml } = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('ord-3;PAS-3;') }));
    expect(xml['@_type']).toBe('void');
    expect(xml).toMatchObject({ orderid: 'ord-3', pasref: 'PAS-3' });
    expect(xml).not.toHaveProperty('authcode');
    expect(xml).not.toHaveProperty('amount');
    expect(xml.sha1hash).toBe(documentedHash(`${xml['@_timestamp']}.${MERCHANT}.ord-3...`, SECRET));
    expect(answer).toMatchObject({ success: true, message: 'Transaction voided' });
  });

  it('verifies with otb, signed over timestamp.merchantid.orderid.cardnumber', async () => {
    const { response: answer, xml } = await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: testCard(PAN), orderId: 'verify-1' }));
    expect(xml['@_type']).toBe('otb');
    expect(xml).not.toHaveProperty('amount');
    expect(xml.sha1hash).toBe(documentedHash(`${xml['@_timestamp']}.${MERCHANT}.verify-1.${PAN}`, SECRET));
    expect(answer).toMatchObject({ success: true, message: 'Card verified' });
  });

  it('stores with payer-new then card-new; the third-party token is payerref|cardref', async () => {
    const request = gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) });
    const before = fake.requests.length;
    next = { result: '00', message: 'Successful', authcode: '' };
    const { response: answer } = await run(request);
    const [payer, card] = fake.requests.slice(before).map(sentRequest) as [Sent, Sent];
    const payerRef = request.transactionToken;
    expect(payer['@_type']).toBe('payer-new');
    expect(payer.payer).toMatchObject({ '@_ref': payerRef, '@_type': 'Retail', firstname: 'Ada', surname: 'Lovelace' });
    expect(payer.sha1hash).toBe(documentedHash(`${payer['@_timestamp']}.${MERCHANT}.${payer.orderid}...${payerRef}`, SECRET));
    expect(card['@_type']).toBe('card-new');
    expect(card.card).toMatchObject({ payerref: payerRef, number: PAN, expdate: '0330', chname: 'Ada Lovelace', type: 'VISA' });
    expect(Object.keys(card.card)).toEqual(['ref', 'payerref', 'number', 'expdate', 'chname', 'type']);
    expect(card.sha1hash).toBe(documentedHash(`${card['@_timestamp']}.${MERCHANT}.${card.orderid}...${payerRef}.Ada Lovelace.${PAN}`, SECRET));
    expect(answer).toMatchObject({ success: true, message: 'Card stored', thirdPartyToken: `${payerRef}|${card.card.ref}` });

    next = { result: '501', message: 'This Payer Ref already exists', hash: 'none' };
    expect((await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) }))).response).toMatchObject({ success: false, errorCode: 'processing_error', thirdPartyToken: null });
  });
});

describe('Global Payments: faults, unknown outcomes and the transcript', () => {
  it.each(['error500', 'garbage'] as const)('turns %s into a GatewayFaultError', async (mode) => {
    fake.setMode(mode);
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
  });

  it('no answer in time is an unknown outcome; a reset connection is a fault or unknown, never a crash', async () => {
    fake.setMode('hang');
    expect(await fault(purchase(), 300)).toBeInstanceOf(GatewayResultUnknownError);
    fake.setMode('reset');
    const error = await fault(purchase());
    expect(error instanceof GatewayFaultError || error instanceof GatewayResultUnknownError).toBe(true);
  });

  it('an answer without result or timestamp is a fault naming it; unknown fields are ignored', async () => {
    next = { contentType: 'text/xml', body: '<response timestamp="20180731090859"><message>x</message></response>' };
    expect(((await fault(purchase())) as GatewayFaultError).detail).toContain('result');
    next = { contentType: 'text/xml', body: '<html><body>maintenance</body></html>' };
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    next = { ...AUTHORISED, extra: '<brandnewfield>1</brandnewfield>' };
    expect((await run(purchase())).response.success).toBe(true);
  });

  it('keeps no card number, CVN, expiry, shared secret or refund hash in the transcript', async () => {
    const bought = await run(purchase());
    const refunded = await run(gatewayRequest('credit', CREDENTIALS, { reference: reference('ord-2;PAS-2;AUTH2', 'Purchase') }));
    const text = [...bought.transcript, ...refunded.transcript].map((entry) => entry.text).join('\n');
    expect(text).toContain('<number>[FILTERED]</number>');
    expect(text).toContain('<refundhash>[FILTERED]</refundhash>');
    expect(text).toContain('[ test system ] AUTHORISED');
    expect(text).not.toContain(PAN);
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(sha1(REBATE));
    expect(text).not.toContain('<number>737</number>');
    expect(findCardData(text, [PAN])).toEqual([]);
  });
});
