import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { paysafeGateway } from '../../src/gateways/paysafe.gateway.js';
import { PAYSAFE_LIVE_BASE, PAYSAFE_TEST_BASE } from '../../src/gateways/paysafe/paysafe-api.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the Paysafe module (Card Payments API v1, Customer Vault API v1). The
 * answers are shaped like the examples of Paysafe's API reference (authorization, settlement,
 * refund, void authorization, verification, stand-alone credit, profile; the error object with
 * "Card errors" codes) as ActiveMerchant's Paysafe unit tests also record them. Each test asserts
 * the exact request (method, path, Basic credentials, JSON body) and how the answer maps.
 */

const PASSWORD = 'B-qa2-0-5f43a3b5-0-302d0215008a8b5c0c8e34f5e12cc0f7a7b3c8f2c';
const PAN = '4111111111111111';
const CREDENTIALS = { username: 'devcentre322', password: PASSWORD, account_id: '1002158490' };
const ACCOUNT_PATH = '/cardpayments/v1/accounts/1002158490';

const SALE = {
  id: 'cddbd29d-4983-4719-983a-c6a862895781',
  merchantRefNum: 'c9b2ad852a1a37c1cc5c39b741be7484',
  txnTime: '2026-08-10T18:25:40Z',
  status: 'COMPLETED',
  amount: 1999,
  settleWithAuth: true,
  availableToSettle: 0,
  card: { type: 'VI', lastDigits: '1111', cardExpiry: { month: 3, year: 2030 } },
  authCode: '544454',
  currencyCode: 'USD',
  avsResponse: 'MATCH',
  cvvVerification: 'MATCH',
  settlements: [{ id: 'cddbd29d-4983-4719-983a-c6a862895781', status: 'PENDING', amount: 1999, availableToRefund: 1999 }],
};
const DECLINED = {
  id: 'c671d488-3f27-46f1-b0a7-2123e4e68f35',
  merchantRefNum: '12b616e548d7b866c6a61e6d585a762b',
  error: { code: '3022', message: 'The card has been declined due to insufficient funds.', links: [{ rel: 'errorinfo', href: 'https://developer.paysafe.com/en/rest-api/cards/test-and-go-live/card-errors/#ErrorCode3022' }] },
  riskReasonCode: [1059],
  settleWithAuth: true,
  cvvVerification: 'MATCH',
};
const SETTLEMENT = { id: '6ee71dc2-00c0-4891-b226-ab741e63f43a', merchantRefNum: 'x', txnTime: '2026-08-10T18:31:26Z', status: 'PENDING', amount: 600, availableToRefund: 600 };
const REFUND = { id: 'e86fe7c3-9d92-4149-89a9-fd2b3da95b05', merchantRefNum: 'x', status: 'PENDING', amount: 250 };
const VOIDAUTH = { id: 'eb4d45ac-35ef-49e8-93d0-58b20a4c470e', merchantRefNum: 'x', status: 'COMPLETED', amount: 1000 };
const VERIFICATION = { id: '2b48475a-e3e7-47b0-8d84-66a331db9945', merchantRefNum: 'x', status: 'COMPLETED', authCode: '493936', currencyCode: 'USD', avsResponse: 'NOT_PROCESSED', cvvVerification: 'MATCH' };
const PROFILE = {
  id: 'bd4e8c66-b023-4b38-b499-bc6d447d1466',
  status: 'ACTIVE',
  merchantCustomerId: '965d3aff71fb93343ee48513',
  locale: 'en_US',
  cards: [{ status: 'ACTIVE', id: '77685b40-e953-4999-a161-d13b46a8232a', lastDigits: '1111', cardExpiry: { year: 2030, month: 3 }, cardType: 'VI', paymentToken: 'Ct0RrnyIs4lizeH' }],
};
const BAD_CREDENTIALS = { error: { code: '5279', message: 'The authentication credentials are invalid.' } };

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let next: FakeAnswer;

async function run(request: GatewayRequest): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(paysafeGateway, request, transcript, { http, override: fake.url, timeoutMs: 3000 });
  expect(fake.requests.length - before).toBeLessThanOrEqual(1);
  return { response, transcript, sent: fake.requests[fake.requests.length - 1] as FakeRequest };
}

async function fault(request: GatewayRequest, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(paysafeGateway, request, [], { http, override: fake.url, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', CREDENTIALS, { paymentMethod: testCard(PAN), currencyCode: 'USD', ...overrides });
const reference = (id: string, transactionType = 'Authorization', amount = 1000) => ({ gatewayTransactionId: id, transactionType, amount });

beforeAll(async () => {
  fake = await FakeGatewayServer.start([{ method: '*', path: /.*/, handle: () => next }]);
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  next = { json: SALE };
});

describe('Paysafe: purchase and authorize', () => {
  it('POSTs the sale to …/accounts/{account_id}/auths with Basic credentials, minor units, settleWithAuth and every card field', async () => {
    const request = purchase({ amount: 1999, orderId: 'order-42', ip: '192.0.2.1' });
    const { sent, response } = await run(request);
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe(`${ACCOUNT_PATH}/auths`);
    expect(sent.headers.authorization).toBe(`Basic ${Buffer.from(`devcentre322:${PASSWORD}`).toString('base64')}`);
    expect(sent.headers['content-type']).toBe('application/json');
    expect(jsonOf(sent)).toEqual({
      merchantRefNum: request.transactionToken,
      dupCheck: true,
      amount: 1999,
      settleWithAuth: true,
      card: { cardNum: PAN, cardExpiry: { month: 3, year: 2030 }, cvv: '737' },
      billingDetails: { street: '12 St James Sq', city: 'London', country: 'GB', zip: 'SW1Y 4JH' },
      profile: { firstName: 'Ada', lastName: 'Lovelace', email: 'ada@example.com' },
      customerIp: '192.0.2.1',
      description: 'order-42',
    });
    expect(response).toMatchObject({
      success: true,
      message: 'Transaction approved',
      gatewayTransactionId: 'cddbd29d-4983-4719-983a-c6a862895781',
      avsCode: 'Y',
      cvvCode: 'M',
      errorCode: null,
      specificResponseFields: { paysafe: { status: 'COMPLETED', auth_code: '544454', avs_response: 'MATCH', currency_code: 'USD' } },
    });
  });

  it('authorizes without settling, goes live outside sandbox, and leaves out an absent CVV and address', async () => {
    const request = gatewayRequest('authorize', CREDENTIALS, { paymentMethod: testCard(PAN, { cvc: null, address: false }), currencyCode: 'USD', testMode: false });
    const { sent, response } = await run(request);
    const body = jsonOf(sent);
    expect(body.settleWithAuth).toBe(false);
    expect(body.card).toEqual({ cardNum: PAN, cardExpiry: { month: 3, year: 2030 } });
    expect(body).not.toHaveProperty('billingDetails');
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized' });
    expect(paysafeGateway.endpoint?.(request)).toBe(PAYSAFE_LIVE_BASE);
    expect(paysafeGateway.endpoint?.({ ...request, testMode: true })).toBe(PAYSAFE_TEST_BASE);
  });

  it('sends the amount in minor units with the currency’s own exponent (JPY 0, KWD 3)', async () => {
    expect(jsonOf((await run(purchase({ amount: 1500, currencyCode: 'JPY' }))).sent).amount).toBe(1500);
    expect(jsonOf((await run(purchase({ amount: 10139, currencyCode: 'TND' }))).sent).amount).toBe(10139);
    expect(jsonOf((await run(purchase({ amount: 5, currencyCode: 'EUR' }))).sent).amount).toBe(5);
  });

  it('charges a stored card by its paymentToken, without card data or holder', async () => {
    const { sent } = await run(purchase({ paymentMethod: { type: 'third_party_token', token: 'Ct0RrnyIs4lizeH|bd4e8c66-b023-4b38-b499-bc6d447d1466' } }));
    const body = jsonOf(sent);
    expect(body.card).toEqual({ paymentToken: 'Ct0RrnyIs4lizeH' });
    expect(body).not.toHaveProperty('profile');
  });

  it('maps a 402 decline with an error object: code, message, id and CVV result', async () => {
    next = { status: 402, json: DECLINED };
    expect((await run(purchase())).response).toMatchObject({
      success: false,
      message: 'The card has been declined due to insufficient funds.',
      errorCode: 'insufficient_funds',
      errorDetail: '3022',
      gatewayTransactionId: 'c671d488-3f27-46f1-b0a7-2123e4e68f35',
      cvvCode: 'M',
      specificResponseFields: { paysafe: { error_code: '3022', risk_reason_codes: ['1059'] } },
    });
  });

  it.each([
    ['3009', 'card_declined'],
    ['3006', 'expired_card'],
    ['3005', 'incorrect_cvc'],
    ['3019', 'incorrect_cvc'],
    ['3007', 'incorrect_address'],
    ['3004', 'incorrect_zip'],
    ['3017', 'invalid_number'],
    ['3045', 'invalid_expiry_date'],
    ['3015', 'call_issuer'],
    ['3016', 'pickup_card'],
    ['3204', 'invalid_amount'],
    ['5040', 'config_error'],
    ['5031', 'processing_error'],
    ['9999', 'processing_error'],
  ])('maps error %s to %s', async (code, standard) => {
    next = { status: 402, json: { id: 'x', error: { code, message: `Error ${code}` } } };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: standard, message: `Error ${code}` });
  });

  it('names the fields of a 400 field error, and turns 401 into config_error', async () => {
    next = { status: 400, json: { error: { code: '5068', message: 'Field error(s)', fieldErrors: [{ field: 'card.cardExpiry.year', error: 'must be greater than 2000' }] } } };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'Field error(s) (card.cardExpiry.year must be greater than 2000)' });
    next = { status: 401, json: BAD_CREDENTIALS };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'config_error', message: 'The authentication credentials are invalid.', errorDetail: 'HTTP 401 5279' });
  });

  it('holds a HELD authorization for review; RECEIVED is an unknown outcome; a success without id is unknown', async () => {
    next = { json: { ...SALE, status: 'HELD' } };
    expect((await run(purchase())).response).toMatchObject({ success: false, fraudReview: true, gatewayTransactionId: SALE.id, errorCode: 'processing_error' });
    next = { json: { ...SALE, status: 'RECEIVED' } };
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
    next = { json: { ...SALE, id: undefined } };
    expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('refuses a missing account id, a bank account and a card without expiry without sending', async () => {
    const sentBefore = fake.requests.length;
    const noAccount = gatewayRequest('purchase', { username: 'u', password: 'p' }, { currencyCode: 'USD' });
    expect((await run(noAccount)).response).toMatchObject({ success: false, errorCode: 'config_error' });
    const bank = { type: 'bank_account', routingNumber: { reveal: () => '1' }, accountNumber: { reveal: () => '2' }, accountType: null, holderType: null, firstName: null, lastName: null } as never;
    expect((await run(purchase({ paymentMethod: bank }))).response).toMatchObject({ success: false, errorCode: 'unsupported_feature' });
    expect((await run(purchase({ paymentMethod: { ...testCard(PAN), month: null } as never }))).response).toMatchObject({ success: false, errorCode: 'invalid_expiry_date' });
    expect(fake.requests.length).toBe(sentBefore);
  });
});

describe('Paysafe: follow-ons, verify, general credit and store', () => {
  it('settles part of an authorization and refunds part of the settlement', async () => {
    next = { json: SETTLEMENT };
    const captureRequest = gatewayRequest('capture', CREDENTIALS, { reference: reference('auth-1'), amount: 600, currencyCode: 'USD' });
    const captured = await run(captureRequest);
    expect(captured.sent.path).toBe(`${ACCOUNT_PATH}/auths/auth-1/settlements`);
    expect(jsonOf(captured.sent)).toEqual({ merchantRefNum: captureRequest.transactionToken, dupCheck: true, amount: 600 });
    expect(captured.response).toMatchObject({ success: true, message: 'Transaction captured', gatewayTransactionId: SETTLEMENT.id });
    next = { json: REFUND };
    const refunded = await run(gatewayRequest('credit', CREDENTIALS, { reference: reference(SETTLEMENT.id, 'Capture'), amount: 250, currencyCode: 'USD' }));
    expect(refunded.sent.path).toBe(`${ACCOUNT_PATH}/settlements/${SETTLEMENT.id}/refunds`);
    expect(jsonOf(refunded.sent)).toMatchObject({ amount: 250, dupCheck: true });
    expect(refunded.response).toMatchObject({ success: true, message: 'Transaction refunded', gatewayTransactionId: REFUND.id });
    next = { status: 400, json: { error: { code: '3402', message: 'The requested credit amount exceeds the remaining settlement amount.' } } };
    expect((await run(gatewayRequest('credit', CREDENTIALS, { reference: reference(SETTLEMENT.id, 'Capture'), currencyCode: 'USD' }))).response).toMatchObject({ success: false, errorCode: 'invalid_amount' });
  });

  it('reverses an authorization with voidauths for its amount, and cancels a pending settlement, refund or stand-alone credit with PUT', async () => {
    next = { json: VOIDAUTH };
    const reversed = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('auth-2', 'Authorization', 1000), currencyCode: 'USD' }));
    expect(reversed.sent.path).toBe(`${ACCOUNT_PATH}/auths/auth-2/voidauths`);
    expect(jsonOf(reversed.sent)).toMatchObject({ amount: 1000, dupCheck: true });
    expect(reversed.response).toMatchObject({ success: true, message: 'Transaction voided' });
    for (const [type, resource] of [['Purchase', 'settlements'], ['Capture', 'settlements'], ['Credit', 'refunds'], ['GeneralCredit', 'standalonecredits']] as const) {
      next = { json: { id: 'x-1', status: 'CANCELLED' } };
      const cancelled = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('x-1', type) }));
      expect(cancelled.sent.method).toBe('PUT');
      expect(cancelled.sent.path).toBe(`${ACCOUNT_PATH}/${resource}/x-1`);
      expect(jsonOf(cancelled.sent)).toEqual({ status: 'CANCELLED' });
      expect(cancelled.response).toMatchObject({ success: true, message: 'Transaction voided' });
    }
    next = { status: 400, json: { error: { code: '3415', message: 'You cannot cancel this transaction.' } } };
    expect((await run(gatewayRequest('void', CREDENTIALS, { reference: reference('x-2', 'Purchase') }))).response).toMatchObject({ success: false, errorCode: 'processing_error' });
    next = { json: { id: 'x-3', status: 'COMPLETED' } };
    expect((await run(gatewayRequest('void', CREDENTIALS, { reference: reference('x-3', 'Purchase') }))).response).toMatchObject({ success: false, message: 'Paysafe answered COMPLETED' });
    const before = fake.requests.length;
    expect((await run(gatewayRequest('void', CREDENTIALS, { reference: reference('v-1', 'Verification') }))).response).toMatchObject({ success: false, errorCode: 'unsupported_feature' });
    expect(fake.requests.length).toBe(before);
  });

  it('verifies with …/verifications (no amount)', async () => {
    next = { json: VERIFICATION };
    const { sent, response } = await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: testCard(PAN) }));
    expect(sent.path).toBe(`${ACCOUNT_PATH}/verifications`);
    expect(jsonOf(sent)).not.toHaveProperty('amount');
    expect(jsonOf(sent).card).toMatchObject({ cardNum: PAN });
    expect(response).toMatchObject({ success: true, message: 'Card verified', avsCode: 'I', cvvCode: 'M' });
  });

  it('credits a card with …/standalonecredits', async () => {
    next = { json: { ...REFUND, id: 'b40c327e-92d7-4026-a043-be1f1b03c08a' } };
    const { sent, response } = await run(gatewayRequest('general_credit', CREDENTIALS, { paymentMethod: testCard(PAN), amount: 100, currencyCode: 'USD' }));
    expect(sent.path).toBe(`${ACCOUNT_PATH}/standalonecredits`);
    expect(jsonOf(sent)).toMatchObject({ amount: 100, card: { cardNum: PAN }, dupCheck: true });
    expect(response).toMatchObject({ success: true, message: 'Transaction credited' });
  });

  it('stores a Customer Vault profile without the CVV; paymentToken|profileId is the third-party token', async () => {
    next = { status: 201, json: PROFILE };
    const request = gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) });
    const { sent, response } = await run(request);
    expect(sent.path).toBe('/customervault/v1/profiles');
    expect(jsonOf(sent)).toEqual({
      merchantCustomerId: request.transactionToken,
      locale: 'en_US',
      firstName: 'Ada',
      lastName: 'Lovelace',
      email: 'ada@example.com',
      card: { cardNum: PAN, cardExpiry: { month: 3, year: 2030 }, holderName: 'Ada Lovelace', billingAddress: { street: '12 St James Sq', city: 'London', country: 'GB', zip: 'SW1Y 4JH' } },
    });
    expect(response).toMatchObject({ success: true, message: 'Card stored', thirdPartyToken: 'Ct0RrnyIs4lizeH|bd4e8c66-b023-4b38-b499-bc6d447d1466', gatewayTransactionId: PROFILE.id });
    next = { status: 201, json: { ...PROFILE, cards: [] } };
    expect(await fault(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) }))).toBeInstanceOf(GatewayResultUnknownError);
    next = { status: 400, json: { error: { code: '3017', message: 'You submitted an invalid credit card number with your request.' } } };
    expect((await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) }))).response).toMatchObject({ success: false, errorCode: 'invalid_number' });
  });
});

describe('Paysafe: faults, unknown outcomes and the transcript', () => {
  it.each(['error500', 'garbage', 'reset'] as const)('turns %s into a fault (a reset may be unknown)', async (mode) => {
    fake.setMode(mode);
    const error = await fault(purchase());
    expect(error instanceof GatewayFaultError || (mode === 'reset' && error instanceof GatewayResultUnknownError)).toBe(true);
  });

  it('no answer in time is an unknown outcome', async () => {
    fake.setMode('hang');
    expect(await fault(purchase(), 300)).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('a 4xx without an error object is a fault; unknown fields are ignored', async () => {
    next = { status: 404, json: { message: 'not here' } };
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    next = { json: { ...SALE, somethingNew: { nested: true } } };
    expect((await run(purchase())).response.success).toBe(true);
  });

  it('keeps no card number, CVV, expiry or API password in the transcript', async () => {
    const { transcript } = await run(purchase());
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(text).toContain('"cardNum":"[FILTERED]"');
    expect(text).toContain('"cvv":"[FILTERED]"');
    expect(text).toContain('"month":"[FILTERED]"');
    expect(text).toMatch(/authorization: Basic \[FILTERED\]/i);
    expect(text).toContain('"status":"COMPLETED"');
    expect(text).not.toContain(PAN);
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(Buffer.from(`devcentre322:${PASSWORD}`).toString('base64'));
    expect(text).not.toContain('"737"');
    expect(findCardData(text, [PAN])).toEqual([]);
  });
});
