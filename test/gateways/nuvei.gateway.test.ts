import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { nuveiGateway, NUVEI_LIVE_BASE, NUVEI_TEST_BASE } from '../../src/gateways/nuvei.gateway.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type AdapterPaymentMethod, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';
import { scrubberFor, scrubResponse } from '../../src/gateways/response-scrubbing.js';
import { containsCardLike } from '../../src/domain/scrubbing/card-like.js';

/**
 * Canned-response tests of the Nuvei module (REST API 1.0). The answers follow the examples of
 * Nuvei's API reference (getSessionToken, payment, settleTransaction, refundTransaction,
 * voidTransaction) and the recorded sandbox answers in ActiveMerchant's nuvei tests; declines
 * follow Nuvei's "Response Handling" page. Checksums are recomputed here from the documented field
 * orders, independently of the module.
 */

const MERCHANT_ID = '3755516963854600967';
const SITE_ID = '255388';
const SECRET_KEY = 'NuveiSecretKey-0123456789abcdefXYZ';
const CREDENTIALS = { merchant_id: MERCHANT_ID, merchant_site_id: SITE_ID, secret_key: SECRET_KEY };
const PAN = '4761344136141390';
const BASE = '/ppp/api/v1';
const SESSION = 'fdda0126-674f-4f8c-ad24-31ac846654ab';

const SESSION_ANSWER = { sessionToken: SESSION, internalRequestId: 1171104400, status: 'SUCCESS', errCode: 0, reason: '', merchantId: MERCHANT_ID, merchantSiteId: SITE_ID, version: '1.0', clientRequestId: 'x' };
const APPROVED = {
  internalRequestId: 1172848838,
  status: 'SUCCESS',
  errCode: 0,
  reason: '',
  merchantId: MERCHANT_ID,
  merchantSiteId: SITE_ID,
  version: '1.0',
  clientRequestId: 'a114381a',
  sessionToken: SESSION,
  clientUniqueId: '3ba2a81c46d78837ea819d9f3fe644e7',
  orderId: '471833818',
  paymentOption: { userPaymentOptionId: '', card: { ccCardNumber: '4****1390', bin: '476134', last4Digits: '1390', ccExpMonth: '09', ccExpYear: '25', acquirerId: '19', cvv2Reply: 'M', avsCode: 'Y', cardType: 'Debit', cardBrand: 'VISA', threeD: {} } },
  transactionStatus: 'APPROVED',
  gwErrorCode: 0,
  gwExtendedErrorCode: 0,
  issuerDeclineCode: '',
  issuerDeclineReason: '',
  transactionType: 'Sale',
  transactionId: '7110000000001990927',
  externalTransactionId: '',
  authCode: '111711',
  customData: '',
  fraudDetails: { finalDecision: 'Accept', score: '0' },
  externalSchemeTransactionId: 'MCC0000001',
  merchantAdviceCode: '',
};
const DECLINED = { ...APPROVED, transactionStatus: 'DECLINED', gwErrorCode: -1, gwErrorReason: 'Decline', gwExtendedErrorCode: 0, issuerDeclineCode: '05', issuerDeclineReason: 'Do not honor', authCode: '' };
const API_ERROR = { status: 'ERROR', errCode: 1062, reason: 'cardData.CVV is invalid', merchantId: MERCHANT_ID, merchantSiteId: SITE_ID, internalRequestId: 1, version: '1.0', clientRequestId: 'x' };
const SETTLED = { merchantId: MERCHANT_ID, merchantSiteId: SITE_ID, internalRequestId: 2, clientRequestId: 'x', transactionId: '7110000000001990999', externalTransactionId: '', status: 'SUCCESS', transactionStatus: 'APPROVED', errCode: 0, reason: '', gwErrorCode: 0, gwExtendedErrorCode: 0, authCode: '111711', version: '1.0' };

/** Nuvei's documented recipe: SHA-256 hex of the named fields' values in order, then the secret key. */
function expectedChecksum(body: Record<string, unknown>, fields: string[], secret = SECRET_KEY): string {
  return createHash('sha256').update(fields.map((field) => (body[field] === undefined ? '' : String(body[field]))).join('') + secret).digest('hex');
}
const PAYMENT_FIELDS = ['merchantId', 'merchantSiteId', 'clientRequestId', 'amount', 'currency', 'timeStamp'];
const SETTLE_FIELDS = ['merchantId', 'merchantSiteId', 'clientRequestId', 'clientUniqueId', 'amount', 'currency', 'relatedTransactionId', 'authCode', 'descriptorMerchantName', 'descriptorMerchantPhone', 'comment', 'urlDetails', 'timeStamp'];
const REFUND_FIELDS = ['merchantId', 'merchantSiteId', 'clientRequestId', 'clientUniqueId', 'amount', 'currency', 'relatedTransactionId', 'authCode', 'comment', 'urlDetails', 'timeStamp'];

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let next: FakeAnswer;
let session: FakeAnswer;

async function run(request: GatewayRequest, timeoutMs = 3000): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest; all: FakeRequest[] }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(nuveiGateway, request, transcript, { http, override: fake.url, timeoutMs });
  const all = fake.requests.slice(before);
  expect(all.length).toBeLessThanOrEqual(2);
  return { response, transcript, sent: all[all.length - 1] as FakeRequest, all };
}

async function fault(request: GatewayRequest, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(nuveiGateway, request, [], { http, override: fake.url, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

type CreditCard = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;
const card = (overrides: Partial<CreditCard> = {}): CreditCard => ({ ...(testCard(PAN) as CreditCard), ...overrides });
const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD', amount: 10050, ...overrides });
const reference = (id: string, amount = 10050) => ({ gatewayTransactionId: id, transactionType: 'Authorization', amount });

beforeAll(async () => {
  fake = await FakeGatewayServer.start([
    { method: 'POST', path: `${BASE}/getSessionToken.do`, handle: () => session },
    { method: 'POST', path: /^\/ppp\/api\/v1\/(payment|payout|settleTransaction|refundTransaction|voidTransaction)\.do$/, handle: () => next },
  ]);
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  session = { json: SESSION_ANSWER };
  next = { json: APPROVED };
});

describe('Nuvei: checksummed payments', () => {
  it('opens a session, then sends a Sale to /payment.do with the documented fields and checksum', async () => {
    const request = purchase({ orderId: 'order-9', ip: '192.0.2.1', email: 'ada@example.com' });
    const { response, all } = await run(request);
    const [open, pay] = all as [FakeRequest, FakeRequest];
    expect(open.path).toBe(`${BASE}/getSessionToken.do`);
    const opened = jsonOf(open);
    expect(opened).toEqual({ merchantId: MERCHANT_ID, merchantSiteId: SITE_ID, clientRequestId: `${request.transactionToken}-session`, timeStamp: expect.stringMatching(/^\d{14}$/), checksum: expect.any(String) });
    expect(opened.checksum).toBe(expectedChecksum(opened, ['merchantId', 'merchantSiteId', 'clientRequestId', 'timeStamp']));

    expect(pay.path).toBe(`${BASE}/payment.do`);
    expect(pay.headers['content-type']).toBe('application/json');
    const body = jsonOf(pay);
    expect(body).toEqual({
      merchantId: MERCHANT_ID,
      merchantSiteId: SITE_ID,
      clientRequestId: request.transactionToken,
      sessionToken: SESSION,
      clientUniqueId: 'order-9',
      transactionType: 'Sale',
      amount: '100.50',
      currency: 'USD',
      paymentOption: { card: { cardNumber: PAN, cardHolderName: 'Ada Lovelace', expirationMonth: '03', expirationYear: '2030', CVV: '737' } },
      billingAddress: { firstName: 'Ada', lastName: 'Lovelace', address: '12 St James Sq', city: 'London', zip: 'SW1Y 4JH', country: 'GB', email: 'ada@example.com' },
      savePM: 'false',
      deviceDetails: { ipAddress: '192.0.2.1' },
      timeStamp: expect.stringMatching(/^\d{14}$/),
      checksum: expectedChecksum(body, PAYMENT_FIELDS),
    });
    expect(Math.abs(Date.parse(`${String(body.timeStamp).replace(/^(\d{4})(\d\d)(\d\d)(\d\d)(\d\d)(\d\d)$/, '$1-$2-$3T$4:$5:$6')}Z`) - Date.now())).toBeLessThan(60_000);
    expect(response).toMatchObject({
      success: true,
      message: 'Transaction approved',
      gatewayTransactionId: 'N7110000000001990927',
      avsCode: 'Y',
      cvvCode: 'M',
      networkTransactionId: 'MCC0000001',
      specificResponseFields: { nuvei: { transaction_status: 'APPROVED', auth_code: '111711', order_id: '471833818' } },
    });
  });

  it('authorizes with transactionType Auth; verifies with a zero-amount ACCOUNTVERIFICATION Auth', async () => {
    const auth = await run(gatewayRequest('authorize', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD', amount: 10000 }));
    expect(jsonOf(auth.sent)).toMatchObject({ transactionType: 'Auth', amount: '100.00', savePM: 'false' });
    expect(auth.response).toMatchObject({ success: true, message: 'Transaction authorized' });
    const verify = await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: card(), currencyCode: null }));
    const body = jsonOf(verify.sent);
    expect(body).toMatchObject({ transactionType: 'Auth', amount: '0.00', currency: 'USD', authenticationOnlyType: 'ACCOUNTVERIFICATION' });
    expect(body.checksum).toBe(expectedChecksum(body, PAYMENT_FIELDS));
    expect(verify.response).toMatchObject({ success: true, message: 'Card verified' });
  });

  it('sends amounts in major units: JPY whole yen, KWD three decimals, MMK whole kyat only', async () => {
    expect(jsonOf((await run(purchase({ amount: 1500, currencyCode: 'JPY' }))).sent).amount).toBe('1500');
    expect(jsonOf((await run(purchase({ amount: 1234, currencyCode: 'KWD' }))).sent).amount).toBe('1.234');
    expect(jsonOf((await run(purchase({ amount: 500, currencyCode: 'MMK' }))).sent).amount).toBe('5');
    const before = fake.requests.length;
    expect((await run(purchase({ amount: 550, currencyCode: 'MMK' }))).response).toMatchObject({ success: false, errorCode: 'invalid_amount' });
    expect(fake.requests.length).toBe(before);
  });

  it('stores a card as a zero-amount ADDCARD Auth with savePM and a user, answering <userTokenId>|<userPaymentOptionId>', async () => {
    next = { json: { ...APPROVED, transactionType: 'Auth', paymentOption: { ...APPROVED.paymentOption, userPaymentOptionId: '2134567' } } };
    const request = gatewayRequest('store', CREDENTIALS, { paymentMethod: card(), currencyCode: null });
    const { response, sent } = await run(request);
    expect(jsonOf(sent)).toMatchObject({ transactionType: 'Auth', amount: '0.00', savePM: 'true', authenticationOnlyType: 'ADDCARD', userTokenId: request.transactionToken });
    expect(response).toMatchObject({ success: true, message: 'Card stored', thirdPartyToken: `${request.transactionToken}|P2134567` });
    next = { json: APPROVED };
    expect(await fault(gatewayRequest('store', CREDENTIALS, { paymentMethod: card(), gatewaySpecificFields: { user_token_id: 'user-1' } }))).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('userPaymentOptionId') });
  });

  it('pays with a stored payment option: userTokenId and userPaymentOptionId, no card number', async () => {
    const { response, sent } = await run(purchase({ paymentMethod: { type: 'third_party_token', token: 'user-1|2134567' }, email: 'ada@example.com', gatewaySpecificFields: { country: 'GB' } }));
    const body = jsonOf(sent);
    expect(body).toMatchObject({ userTokenId: 'user-1', paymentOption: { userPaymentOptionId: '2134567' }, billingAddress: { email: 'ada@example.com', country: 'GB' } });
    expect(sent.rawBody).not.toContain('cardNumber');
    expect(response.success).toBe(true);
    const before = fake.requests.length;
    expect((await run(purchase({ paymentMethod: { type: 'third_party_token', token: '2134567' } }))).response).toMatchObject({ success: false, errorCode: 'processing_error' });
    expect(fake.requests.length).toBe(before);
  });
});

describe('Nuvei: declines and errors', () => {
  it.each([
    ['05', 'Decline', 'card_declined'],
    ['51', 'Insufficient Funds', 'insufficient_funds'],
    ['54', 'Expired Card', 'expired_card'],
    ['14', 'Invalid Card Number', 'incorrect_number'],
    ['43', 'Stolen Card', 'pickup_card'],
    ['01', 'Refer to card issuer', 'call_issuer'],
    ['N7', 'Decline', 'incorrect_cvc'],
    ['', 'Insufficient Funds', 'insufficient_funds'],
    ['', 'Something else', 'card_declined'],
  ])('maps a DECLINED with issuerDeclineCode "%s" (%s) to %s', async (code, reason, standard) => {
    next = { json: { ...DECLINED, issuerDeclineCode: code, gwErrorReason: reason } };
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, errorCode: standard, message: reason, gatewayTransactionId: `N${DECLINED.transactionId}` });
    expect(response.errorDetail).toContain('DECLINED');
  });

  it('maps API errors (status ERROR) by errCode: invalid CVV, invalid checksum, unknown', async () => {
    next = { json: API_ERROR };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'invalid_cvc', message: 'cardData.CVV is invalid', errorDetail: 'ERROR: 1062: cardData.CVV is invalid' });
    next = { json: { ...API_ERROR, errCode: 1001, reason: 'Invalid checksum' } };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'config_error' });
    next = { json: { ...API_ERROR, errCode: 1069, reason: 'Session expired' } };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error' });
  });

  it('a refused session (wrong site id or secret) fails with config_error and sends no payment', async () => {
    session = { json: { status: 'ERROR', errCode: 1022, reason: 'Invalid merchant site id', merchantId: MERCHANT_ID, merchantSiteId: '123' } };
    const { response, all } = await run(purchase());
    expect(all).toHaveLength(1);
    expect(response).toMatchObject({ success: false, errorCode: 'config_error', message: 'Invalid merchant site id', errorDetail: 'getSessionToken: ERROR: 1022: Invalid merchant site id' });
  });

  it('a gateway ERROR (filter) is processing_error; REDIRECT (3-D Secure asked) fails; PENDING is unknown', async () => {
    next = { json: { ...DECLINED, transactionStatus: 'ERROR', gwErrorCode: -1100, gwExtendedErrorCode: 1271, gwErrorReason: 'sg_transaction must be of type InitAuth3D', issuerDeclineCode: '' } };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error', errorDetail: 'ERROR: -1100: 1271: sg_transaction must be of type InitAuth3D' });
    next = { json: { ...APPROVED, transactionStatus: 'REDIRECT' } };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error' });
    next = { json: { ...APPROVED, transactionStatus: 'PENDING' } };
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
  });
});

describe('Nuvei: capture, void, credit', () => {
  it('settles part of an authorization at /settleTransaction.do without a session, checksum over the settle fields', async () => {
    next = { json: SETTLED };
    const request = gatewayRequest('capture', CREDENTIALS, { amount: 5000, currencyCode: 'USD', reference: reference('7110000000001908486') });
    const { response, all } = await run(request);
    expect(all).toHaveLength(1);
    const sent = all[0] as FakeRequest;
    expect(sent.path).toBe(`${BASE}/settleTransaction.do`);
    const body = jsonOf(sent);
    expect(body).toEqual({ merchantId: MERCHANT_ID, merchantSiteId: SITE_ID, clientRequestId: request.transactionToken, clientUniqueId: request.transactionToken, amount: '50.00', currency: 'USD', relatedTransactionId: '7110000000001908486', timeStamp: expect.any(String), checksum: expectedChecksum(body, SETTLE_FIELDS) });
    expect(response).toMatchObject({ success: true, message: 'Transaction captured', gatewayTransactionId: `N${SETTLED.transactionId}` });
  });

  it('refunds part at /refundTransaction.do (a comment joins the checksum); voids with the reference amount', async () => {
    next = { json: SETTLED };
    const refund = await run(gatewayRequest('credit', CREDENTIALS, { amount: 2500, currencyCode: 'USD', description: 'returned', reference: reference('7110000000001990927') }));
    const body = jsonOf(refund.sent);
    expect(refund.sent.path).toBe(`${BASE}/refundTransaction.do`);
    expect(body).toMatchObject({ amount: '25.00', relatedTransactionId: '7110000000001990927', comment: 'returned' });
    expect(body.checksum).toBe(expectedChecksum(body, REFUND_FIELDS));
    expect(refund.response).toMatchObject({ success: true, message: 'Transaction refunded' });

    const voided = await run(gatewayRequest('void', CREDENTIALS, { amount: null, currencyCode: 'USD', reference: reference('7110000000001908486', 10050) }));
    const voidBody = jsonOf(voided.sent);
    expect(voided.sent.path).toBe(`${BASE}/voidTransaction.do`);
    expect(voidBody).toMatchObject({ amount: '100.50', currency: 'USD', relatedTransactionId: '7110000000001908486' });
    expect(voidBody).not.toHaveProperty('sessionToken');
    expect(voidBody.checksum).toBe(expectedChecksum(voidBody, REFUND_FIELDS));
    expect(voided.response).toMatchObject({ success: true, message: 'Transaction voided' });
  });

  it('pays out (general credit) at /payout.do without a session: cardData for a card, userPaymentOption for a stored one', async () => {
    next = { json: { ...SETTLED, transactionType: 'Credit' } };
    const request = gatewayRequest('general_credit', CREDENTIALS, { paymentMethod: card(), amount: 1500, currencyCode: 'EUR', ip: '192.0.2.1', gatewaySpecificFields: { user_token_id: 'user-1' } });
    const { response, all } = await run(request);
    expect(all).toHaveLength(1);
    const sent = all[0] as FakeRequest;
    expect(sent.path).toBe(`${BASE}/payout.do`);
    const body = jsonOf(sent);
    expect(body).toEqual({
      merchantId: MERCHANT_ID,
      merchantSiteId: SITE_ID,
      clientRequestId: request.transactionToken,
      userTokenId: 'user-1',
      clientUniqueId: request.transactionToken,
      amount: '15.00',
      currency: 'EUR',
      cardData: { cardNumber: PAN, cardHolderName: 'Ada Lovelace', expirationMonth: '03', expirationYear: '2030', CVV: '737' },
      deviceDetails: { ipAddress: '192.0.2.1' },
      timeStamp: expect.any(String),
      checksum: expectedChecksum(body, PAYMENT_FIELDS),
    });
    expect(response).toMatchObject({ success: true, message: 'Transaction credited', gatewayTransactionId: `N${SETTLED.transactionId}` });
    const stored = await run(gatewayRequest('general_credit', CREDENTIALS, { paymentMethod: { type: 'third_party_token', token: 'user-2|2134567' }, amount: 1500, currencyCode: 'EUR' }));
    expect(jsonOf(stored.sent)).toMatchObject({ userTokenId: 'user-2', userPaymentOption: { userPaymentOptionId: '2134567' } });
    expect(jsonOf(stored.sent)).not.toHaveProperty('cardData');
  });

  it('keeps a Luhn-valid transactionId and userPaymentOptionId with a letter glued on, unmasked by scrubbing, and sends them bare', async () => {
    // 19 and 13 digits that pass Luhn: bare, Coffer's scrubbing would mask them as cards.
    const luhnId = '7110000000001990902';
    const luhnUpo = '9000000000001';
    expect(containsCardLike(luhnId) && containsCardLike(luhnUpo)).toBe(true);
    next = { json: { ...APPROVED, transactionType: 'Auth', transactionId: luhnId, paymentOption: { ...APPROVED.paymentOption, userPaymentOptionId: luhnUpo } } };
    const request = gatewayRequest('store', CREDENTIALS, { paymentMethod: card(), gatewaySpecificFields: { user_token_id: 'user-1' } });
    const stored = scrubResponse((await run(request)).response, scrubberFor(request));
    expect(stored).toMatchObject({ success: true, gatewayTransactionId: `N${luhnId}`, thirdPartyToken: `user-1|P${luhnUpo}` });

    next = { json: { ...SETTLED, transactionId: luhnId } };
    const captured = await run(gatewayRequest('capture', CREDENTIALS, { amount: 5000, currencyCode: 'USD', reference: reference(`N${luhnId}`) }));
    expect(jsonOf(captured.sent)).toMatchObject({ relatedTransactionId: luhnId });
    const voided = await run(gatewayRequest('void', CREDENTIALS, { currencyCode: 'USD', reference: reference(`N${luhnId}`) }));
    expect(jsonOf(voided.sent)).toMatchObject({ relatedTransactionId: luhnId });
    const refunded = await run(gatewayRequest('credit', CREDENTIALS, { amount: 100, currencyCode: 'USD', reference: reference(`N${luhnId}`) }));
    expect(jsonOf(refunded.sent)).toMatchObject({ relatedTransactionId: luhnId });

    next = { json: APPROVED };
    const bought = await run(purchase({ paymentMethod: { type: 'third_party_token', token: `user-1|P${luhnUpo}` } }));
    expect(jsonOf(bought.sent)).toMatchObject({ userTokenId: 'user-1', paymentOption: { userPaymentOptionId: luhnUpo } });
  });

  it('a refused void (Invalid relatedTransactionId) is a processing_error', async () => {
    next = { json: { ...API_ERROR, errCode: 1140, reason: 'Invalid relatedTransactionId' } };
    expect((await run(gatewayRequest('void', CREDENTIALS, { reference: reference('123') }))).response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'Invalid relatedTransactionId' });
  });

  it('advertises what it implements under Spreedly’s names; test and live endpoints', () => {
    const { definition } = nuveiGateway;
    expect(definition.gatewayType).toBe('nuvei');
    expect([...definition.characteristics].sort()).toEqual(['supports_authorize', 'supports_capture', 'supports_credit', 'supports_general_credit', 'supports_purchase', 'supports_store', 'supports_verify', 'supports_void']);
    expect(definition.authModes[0]?.credentials.map((field) => [field.name, field.safe])).toEqual([['merchant_id', true], ['merchant_site_id', true], ['secret_key', false]]);
    expect(nuveiGateway.endpoint?.(purchase())).toBe(NUVEI_TEST_BASE);
    expect(nuveiGateway.endpoint?.(purchase({ testMode: false }))).toBe(NUVEI_LIVE_BASE);
  });
});

describe('Nuvei: faults', () => {
  it('a 5xx, garbage, a non-200 and an answer without status are faults', async () => {
    next = { status: 500, json: { status: 'ERROR' } };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 500' });
    next = { status: 404, body: 'Not Found' };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 404' });
    next = { json: { transactionId: '1' } };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('status') });
    next = { json: { status: 'SUCCESS' } };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('transactionStatus') });
    fake.setMode('garbage');
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', notTaken: true });
  });

  it('no answer to the session request is a fault that provably took nothing', async () => {
    fake.setMode('hang');
    const error = await fault(purchase(), 300);
    expect(error).toBeInstanceOf(GatewayFaultError);
    expect(error).toMatchObject({ notTaken: true, detail: expect.stringContaining('getSessionToken') });
    fake.setMode('normal');
  });

  it('a hang after the session is open is a GatewayResultUnknownError', async () => {
    const slow = await FakeGatewayServer.start([
      { method: 'POST', path: `${BASE}/getSessionToken.do`, handle: () => ({ json: SESSION_ANSWER }) },
      { method: 'POST', path: `${BASE}/payment.do`, handle: () => new Promise<FakeAnswer>(() => undefined) },
    ]);
    try {
      const error = await executeOperation(nuveiGateway, purchase(), [], { http, override: slow.url, timeoutMs: 300 }).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(GatewayResultUnknownError);
    } finally {
      await slow.close();
    }
  });
});

describe('Nuvei: scrubbing', () => {
  it('keeps no PAN, CVV, expiry, session token or secret key in the transcript', async () => {
    const { transcript } = await run(purchase());
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(findCardData(text, [PAN])).toEqual([]);
    expect(text).not.toContain(SECRET_KEY);
    expect(text).not.toContain(SESSION);
    expect(text).not.toMatch(/"CVV"\s*:\s*"737"/);
    expect(text).not.toMatch(/"expirationMonth"\s*:\s*"03"/);
    expect(text).toContain('"cardNumber":"[FILTERED]"');
    expect(text).toContain(`"merchantSiteId":"${SITE_ID}"`);
    expect(text).toContain('"transactionStatus":"APPROVED"');
  });
});
