import { createHash, createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cyberSourceRestGateway } from '../../src/gateways/cyber_source_rest.gateway.js';
import { signedHeaders } from '../../src/gateways/cyber_source_rest/http-signature.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { jsonOf, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { startFakeCyberSource, type FakeCyberSource } from '../fakes/fake-cybersource.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the CyberSource REST module against a local fake that speaks the
 * documented protocol (answers shaped like CyberSource's API reference examples, HTTP Signature
 * checked): the exact request of each operation, the signature recomputed here from the
 * documented algorithm, and how each answer maps (success, declines, AVS/CVV, faults, timeouts).
 */

const MERCHANT_ID = 'coffer_test_merchant';
const KEY_ID = '08c94330-f618-42a3-b09d-e1e43be5efda';
// A shared secret as the Business Center shows it: base64 of 32 random bytes.
const SHARED_SECRET = 'yBJxy6LjM2TmcPGu+GaJrHtkke25fPpUX+UY6/L/1tE=';
const CREDENTIALS = { merchant_id: MERCHANT_ID, public_key: KEY_ID, private_key: SHARED_SECRET };
const PAN = '4111111111111111';

let cs: FakeCyberSource;
const http = new GatewayHttpClient();

async function run(request: GatewayRequest, timeoutMs = 2000): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest[] }> {
  const before = cs.fake.requests.length;
  const transcript: TranscriptEntry[] = [];
  const response = await executeOperation(cyberSourceRestGateway, request, transcript, { http, override: cs.url, timeoutMs });
  return { response, transcript, sent: cs.fake.requests.slice(before) };
}

async function failure(request: GatewayRequest, timeoutMs = 2000): Promise<unknown> {
  try {
    await executeOperation(cyberSourceRestGateway, request, [], { http, override: cs.url, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the operation to throw');
}

const reference = (gatewayTransactionId: string, transactionType: string, amount: number | null = 1000) => ({ gatewayTransactionId, transactionType, amount });

/** The only request of an operation, with its JSON body. */
function only(sent: FakeRequest[]): FakeRequest & { json: Record<string, any> } {
  expect(sent).toHaveLength(1);
  const request = sent[0] as FakeRequest;
  return { ...request, json: jsonOf(request) };
}

/**
 * The signature CyberSource expects, computed here from its documentation (not from the module):
 * "host: …\ndate: …\nrequest-target: post /pts/v2/payments\ndigest: SHA-256=…\nv-c-merchant-id: …",
 * HMAC-SHA256 under the base64-decoded shared secret, base64.
 */
function expectSignedAsDocumented(request: FakeRequest): void {
  const digest = `SHA-256=${createHash('sha256').update(request.rawBody, 'utf8').digest('base64')}`;
  expect(request.headers.digest).toBe(digest);
  expect(request.headers['v-c-merchant-id']).toBe(MERCHANT_ID);
  expect(request.headers.host).toBe(new URL(cs.url).host);
  expect(request.headers.date).toMatch(/^(Mon|Tue|Wed|Thu|Fri|Sat|Sun), \d{2} (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{4} \d{2}:\d{2}:\d{2} GMT$/);
  const signingString = [
    `host: ${request.headers.host}`,
    `date: ${request.headers.date}`,
    `request-target: post ${request.path}`,
    `digest: ${digest}`,
    `v-c-merchant-id: ${MERCHANT_ID}`,
  ].join('\n');
  const signature = createHmac('sha256', Buffer.from(SHARED_SECRET, 'base64')).update(signingString, 'utf8').digest('base64');
  expect(request.headers.signature).toBe(`keyid="${KEY_ID}", algorithm="HmacSHA256", headers="host date request-target digest v-c-merchant-id", signature="${signature}"`);
  expect(request.headers['content-type']).toBe('application/json;charset=utf-8');
}

beforeAll(async () => {
  cs = await startFakeCyberSource(MERCHANT_ID, { [KEY_ID]: SHARED_SECRET });
});

afterAll(async () => {
  await http.close();
  await cs.close();
});

beforeEach(() => cs.fake.setMode('normal'));

describe('HTTP Signature', () => {
  it('matches the signature of the documented example request', () => {
    // The worked example of CyberSource's "HTTP Signature Authentication" page: a body whose digest is
    // gXWufV4Zc7VkN9Wkv9jh/JuAVclqDusx3vkyo3uJFWU= is signed over its five header lines.
    const body = '{}';
    const headers = signedHeaders({ method: 'POST', path: '/pts/v2/payments', host: 'apitest.cybersource.com', date: 'Thu, 18 Jul 2019 00:18:03 GMT', merchantId: 'mymerchantid', keyId: KEY_ID, sharedSecret: SHARED_SECRET, body });
    const digest = `SHA-256=${createHash('sha256').update(body).digest('base64')}`;
    const expected = createHmac('sha256', Buffer.from(SHARED_SECRET, 'base64'))
      .update(`host: apitest.cybersource.com\ndate: Thu, 18 Jul 2019 00:18:03 GMT\nrequest-target: post /pts/v2/payments\ndigest: ${digest}\nv-c-merchant-id: mymerchantid`)
      .digest('base64');
    expect(headers).toEqual({
      'v-c-merchant-id': 'mymerchantid',
      date: 'Thu, 18 Jul 2019 00:18:03 GMT',
      host: 'apitest.cybersource.com',
      digest,
      signature: `keyid="${KEY_ID}", algorithm="HmacSHA256", headers="host date request-target digest v-c-merchant-id", signature="${expected}"`,
    });
  });

  it('signs a GET without a digest', () => {
    const headers = signedHeaders({ method: 'GET', path: '/pts/v2/payments/1', host: 'apitest.cybersource.com', date: 'Thu, 18 Jul 2019 00:18:03 GMT', merchantId: 'm', keyId: KEY_ID, sharedSecret: SHARED_SECRET });
    expect(headers.digest).toBeUndefined();
    const expected = createHmac('sha256', Buffer.from(SHARED_SECRET, 'base64')).update('host: apitest.cybersource.com\ndate: Thu, 18 Jul 2019 00:18:03 GMT\nrequest-target: get /pts/v2/payments/1\nv-c-merchant-id: m').digest('base64');
    expect(headers.signature).toBe(`keyid="${KEY_ID}", algorithm="HmacSHA256", headers="host date request-target v-c-merchant-id", signature="${expected}"`);
  });

  it('a wrong shared secret is refused by the gateway with 401 and maps to config_error', async () => {
    const refusedBefore = cs.refused.length;
    const { response, sent } = await run(gatewayRequest('purchase', { ...CREDENTIALS, private_key: Buffer.from('not the secret').toString('base64') }));
    expect(sent).toHaveLength(1);
    expect(cs.refused.length).toBe(refusedBefore + 1);
    expect(response).toMatchObject({ success: false, message: 'Authentication Failed', errorCode: 'config_error', errorDetail: 'HTTP 401', gatewayTransactionId: null });
  });


  it('a 401 without a JSON body is still a credentials problem, not a fault', async () => {
    cs.queue({ status: 401, body: '' });
    const { response } = await run(gatewayRequest('purchase', CREDENTIALS));
    expect(response).toMatchObject({ success: false, message: 'Authentication Failed', errorCode: 'config_error' });
  });
});

describe('purchase and authorize', () => {
  it('a purchase is a signed sale with the card, amount and billing address, mapped with AVS and CVV', async () => {
    const request = gatewayRequest('purchase', CREDENTIALS, { amount: 10221, currencyCode: 'USD', orderId: 'order-77', email: 'buyer@example.com', ip: '203.0.113.9' });
    const { response, sent } = await run(request);
    const post = only(sent);
    expect(post.method).toBe('POST');
    expect(post.path).toBe('/pts/v2/payments');
    expect(post.headers.accept).toBe('application/hal+json;charset=utf-8');
    expectSignedAsDocumented(post);
    expect(post.json).toEqual({
      clientReferenceInformation: { code: 'order-77', transactionId: request.transactionToken },
      processingInformation: { capture: true },
      paymentInformation: { card: { number: PAN, expirationMonth: '03', expirationYear: '2030', securityCode: '737', type: '001' } },
      orderInformation: {
        amountDetails: { totalAmount: '102.21', currency: 'USD' },
        billTo: { firstName: 'Ada', lastName: 'Lovelace', address1: '12 St James Sq', locality: 'London', postalCode: 'SW1Y 4JH', country: 'GB', email: 'buyer@example.com' },
      },
      deviceInformation: { ipAddress: '203.0.113.9' },
    });
    expect(Object.keys(post.json)).toEqual(['clientReferenceInformation', 'processingInformation', 'paymentInformation', 'orderInformation', 'deviceInformation']);
    const id = response.gatewayTransactionId as string;
    expect(cs.payments.get(id)).toMatchObject({ amount: '102.21', currency: 'USD', captured: true });
    expect(response).toEqual({
      success: true,
      message: 'Transaction approved',
      gatewayTransactionId: id,
      errorCode: null,
      errorDetail: null,
      avsCode: 'Y',
      avsMessage: 'Street address and 5-digit postal code match.',
      cvvCode: 'M',
      cvvMessage: 'Match',
      pending: false,
      pendingAction: null,
      networkTransactionId: null,
      fraudReview: null,
      accountClosed: false,
      thirdPartyToken: null,
      specificResponseFields: {
        cyber_source_rest: { status: 'AUTHORIZED', reason: null, reconciliation_id: '78243988SD9YL291', approval_code: '888888', processor_response_code: '100', network_transaction_id: '123456789619999' },
      },
    });
  });

  it('an authorization does not capture; Coffer’s token is the reference code without an order id', async () => {
    const request = gatewayRequest('authorize', CREDENTIALS);
    const { response, sent } = await run(request);
    const post = only(sent);
    expect(post.json.processingInformation).toEqual({ capture: false });
    expect(post.json.clientReferenceInformation).toEqual({ code: request.transactionToken, transactionId: request.transactionToken });
    expect(post.json.orderInformation.amountDetails).toEqual({ totalAmount: '10.00', currency: 'EUR' });
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized' });
    expect(cs.payments.get(response.gatewayTransactionId as string)?.captured).toBe(false);
  });

  it('sends the card’s own email, then CyberSource’s placeholder; leaves out address parts the card lacks; sends no CVV it does not hold', async () => {
    const withoutAddress = { ...testCard(PAN, { address: false, cvc: null }), email: null };
    const { response, sent } = await run(gatewayRequest('purchase', CREDENTIALS, { paymentMethod: withoutAddress }));
    const post = only(sent);
    expect(post.json.orderInformation.billTo).toEqual({ firstName: 'Ada', lastName: 'Lovelace', email: 'null@cybersource.com' });
    expect(post.json.paymentInformation.card).not.toHaveProperty('securityCode');
    expect(response).toMatchObject({ success: true, cvvCode: null });
    const { sent: second } = await run(gatewayRequest('purchase', CREDENTIALS));
    expect(only(second).json.orderInformation.billTo.email).toBe('ada@example.com');
  });

  it('sends the shipping address as shipTo', async () => {
    const shippingAddress = { name: 'Charles Babbage', address1: '1 Dorset St', address2: null, city: 'London', state: null, zip: 'W1U 4EG', country: 'GB', phone_number: '+44 20 7946 0000' };
    const { sent } = await run(gatewayRequest('purchase', CREDENTIALS, { shippingAddress }));
    expect(only(sent).json.orderInformation.shipTo).toEqual({ firstName: 'Charles', lastName: 'Babbage', address1: '1 Dorset St', locality: 'London', postalCode: 'W1U 4EG', country: 'GB', phoneNumber: '+44 20 7946 0000' });
  });

  it.each([
    ['JPY', 1000, '1000'],
    ['KWD', 1234, '1.234'],
    ['USD', 5, '0.05'],
  ])('sends %s amounts with the currency’s exponent', async (currency, amount, total) => {
    const { sent } = await run(gatewayRequest('purchase', CREDENTIALS, { currencyCode: currency, amount }));
    expect(only(sent).json.orderInformation.amountDetails).toEqual({ totalAmount: total, currency });
  });

  it('ignores fields of the answer it does not know', async () => {
    cs.queue({ json: { id: '6750124114786780104953', status: 'AUTHORIZED', somethingNew: { deep: [1, 2] }, processorInformation: { avs: { code: 'X', future: true } } } });
    const { response } = await run(gatewayRequest('authorize', CREDENTIALS));
    expect(response).toMatchObject({ success: true, gatewayTransactionId: '6750124114786780104953', avsCode: 'X', cvvCode: null });
  });
});

describe('declines and refusals', () => {
  it.each([
    ['4000000000000002', 'PROCESSOR_DECLINED', 'card_declined'],
    ['4000000000009995', 'INSUFFICIENT_FUND', 'insufficient_funds'],
    ['4000000000000069', 'EXPIRED_CARD', 'expired_card'],
  ])('card %s is DECLINED with %s: %s', async (pan, reason, code) => {
    const { response } = await run(gatewayRequest('purchase', CREDENTIALS, { paymentMethod: testCard(pan) }));
    expect(response).toMatchObject({ success: false, errorCode: code, errorDetail: reason, avsCode: 'N' });
    expect(response.gatewayTransactionId).toMatch(/^\d{22}$/);
    expect(response.message).toMatch(/^Decline - /);
    expect(response.specificResponseFields).toMatchObject({ cyber_source_rest: { status: 'DECLINED', reason } });
  });

  it.each([
    ['CVN_NOT_MATCH', 'N', 'incorrect_cvc'],
    ['INVALID_CVN', 'I', 'invalid_cvc'],
    ['INVALID_ACCOUNT', null, 'invalid_number'],
    ['STOLEN_LOST_CARD', null, 'pickup_card'],
    ['SOMETHING_NEW', null, 'card_declined'],
  ])('DECLINED %s maps to %s', async (reason, cvv, code) => {
    cs.queue({
      json: {
        id: '6750124114786780104953',
        status: 'DECLINED',
        errorInformation: { reason, message: 'Decline - The issuing bank declined.' },
        processorInformation: cvv === null ? {} : { cardVerification: { resultCode: cvv } },
      },
    });
    const { response } = await run(gatewayRequest('purchase', CREDENTIALS));
    expect(response).toMatchObject({ success: false, errorCode: cvv === 'I' ? 'invalid_cvc' : code, cvvCode: cvv });
  });

  it('AUTHORIZED_PENDING_REVIEW (AVS_FAILED) is not a success: fraud review, incorrect_address, the id kept', async () => {
    cs.queue({
      json: {
        id: '6750124114786780104953',
        status: 'AUTHORIZED_PENDING_REVIEW',
        errorInformation: { reason: 'AVS_FAILED', message: 'Soft Decline - The authorization request was approved by the issuing bank but declined by CyberSource because it did not pass the Address Verification System (AVS).' },
        processorInformation: { avs: { code: 'N', codeRaw: 'N' }, cardVerification: { resultCode: 'M' } },
      },
    });
    const { response } = await run(gatewayRequest('authorize', CREDENTIALS));
    expect(response).toMatchObject({ success: false, fraudReview: true, errorCode: 'incorrect_address', gatewayTransactionId: '6750124114786780104953', avsCode: 'N', cvvCode: 'M' });
  });

  it('PARTIAL_AUTHORIZED is not a success (Coffer holds no partial approvals)', async () => {
    cs.queue({ json: { id: '6750124114786780104953', status: 'PARTIAL_AUTHORIZED' } });
    const { response } = await run(gatewayRequest('purchase', CREDENTIALS));
    expect(response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'CyberSource answered PARTIAL_AUTHORIZED' });
  });

  it('a 400 INVALID_REQUEST names the field and maps its reason', async () => {
    cs.queue({
      status: 400,
      json: { submitTimeUtc: '2023-01-29T17:13:31Z', status: 'INVALID_REQUEST', reason: 'MISSING_FIELD', message: 'Declined - The request is missing one or more fields', details: [{ field: 'orderInformation.billTo.locality', reason: 'MISSING_FIELD' }] },
    });
    const { response } = await run(gatewayRequest('purchase', CREDENTIALS));
    expect(response).toMatchObject({
      success: false,
      errorCode: 'processing_error',
      errorDetail: 'MISSING_FIELD',
      message: 'Declined - The request is missing one or more fields (orderInformation.billTo.locality)',
      gatewayTransactionId: null,
    });
    cs.queue({ status: 400, json: { status: 'INVALID_REQUEST', reason: 'INVALID_MERCHANT_CONFIGURATION', message: 'Declined - There is a problem with your merchant configuration' } });
    expect((await run(gatewayRequest('purchase', CREDENTIALS))).response.errorCode).toBe('config_error');
  });

  it('a missing credential is refused before anything is sent', async () => {
    const { response, sent } = await run(gatewayRequest('purchase', { merchant_id: MERCHANT_ID, public_key: KEY_ID }));
    expect(sent).toHaveLength(0);
    expect(response).toMatchObject({ success: false, errorCode: 'config_error', message: 'The gateway has no private_key credential.' });
  });
});

describe('capture, credit and void', () => {
  async function authorized(amount = 1000): Promise<string> {
    const { response } = await run(gatewayRequest('authorize', CREDENTIALS, { amount, currencyCode: 'USD' }));
    expect(response.success).toBe(true);
    return response.gatewayTransactionId as string;
  }

  it('captures part of an authorization: POST /pts/v2/payments/{id}/captures, PENDING is success', async () => {
    const id = await authorized();
    const request = gatewayRequest('capture', CREDENTIALS, { amount: 600, currencyCode: 'USD', reference: reference(id, 'Authorization') });
    const { response, sent } = await run(request);
    const post = only(sent);
    expect(post.path).toBe(`/pts/v2/payments/${id}/captures`);
    expectSignedAsDocumented(post);
    expect(post.json).toEqual({ clientReferenceInformation: { code: request.transactionToken, transactionId: request.transactionToken }, orderInformation: { amountDetails: { totalAmount: '6.00', currency: 'USD' } } });
    expect(response).toMatchObject({ success: true, message: 'Transaction captured', errorCode: null });
    expect(response.gatewayTransactionId).not.toBe(id);
    expect(cs.followOns.get(response.gatewayTransactionId as string)).toMatchObject({ kind: 'captures', parent: id });
  });

  it('a capture CyberSource refuses (EXCEEDS_AUTH_AMOUNT) is invalid_amount', async () => {
    const id = await authorized(500);
    const { response } = await run(gatewayRequest('capture', CREDENTIALS, { amount: 600, currencyCode: 'USD', reference: reference(id, 'Authorization', 500) }));
    expect(response).toMatchObject({ success: false, errorCode: 'invalid_amount', errorDetail: 'EXCEEDS_AUTH_AMOUNT' });
  });

  it('refunds a sale at /pts/v2/payments/{id}/refunds and a capture at /pts/v2/captures/{id}/refunds', async () => {
    const sale = (await run(gatewayRequest('purchase', CREDENTIALS, { currencyCode: 'USD' }))).response.gatewayTransactionId as string;
    const refund = await run(gatewayRequest('credit', CREDENTIALS, { amount: 250, currencyCode: 'USD', reference: reference(sale, 'Purchase') }));
    const post = only(refund.sent);
    expect(post.path).toBe(`/pts/v2/payments/${sale}/refunds`);
    expectSignedAsDocumented(post);
    expect(post.json.orderInformation).toEqual({ amountDetails: { totalAmount: '2.50', currency: 'USD' } });
    expect(refund.response).toMatchObject({ success: true, message: 'Transaction refunded' });

    const auth = await authorized();
    const capture = (await run(gatewayRequest('capture', CREDENTIALS, { amount: 1000, currencyCode: 'USD', reference: reference(auth, 'Authorization') }))).response.gatewayTransactionId as string;
    const fromCapture = await run(gatewayRequest('credit', CREDENTIALS, { amount: 1000, currencyCode: 'USD', reference: reference(capture, 'Capture') }));
    expect(only(fromCapture.sent).path).toBe(`/pts/v2/captures/${capture}/refunds`);
    expect(fromCapture.response).toMatchObject({ success: true });
    expect(cs.followOns.get(fromCapture.response.gatewayTransactionId as string)).toMatchObject({ kind: 'refunds', parent: auth });
  });

  it('voids an authorization by reversing its full amount', async () => {
    const id = await authorized(1999);
    const request = gatewayRequest('void', CREDENTIALS, { currencyCode: 'USD', reference: reference(id, 'Authorization', 1999) });
    const { response, sent } = await run(request);
    const post = only(sent);
    expect(post.path).toBe(`/pts/v2/payments/${id}/reversals`);
    expectSignedAsDocumented(post);
    expect(post.json).toEqual({
      clientReferenceInformation: { code: request.transactionToken, transactionId: request.transactionToken },
      reversalInformation: { amountDetails: { totalAmount: '19.99', currency: 'USD' } },
    });
    expect(response).toMatchObject({ success: true, message: 'Transaction voided' });
    expect(cs.payments.get(id)?.reversed).toBe(true);
  });

  it('a general credit is POST /pts/v2/credits with the card and billing address', async () => {
    const request = gatewayRequest('general_credit', CREDENTIALS, { amount: 2000, currencyCode: 'USD' });
    const { response, sent } = await run(request);
    const post = only(sent);
    expect(post.path).toBe('/pts/v2/credits');
    expectSignedAsDocumented(post);
    expect(post.json).toEqual({
      clientReferenceInformation: { code: request.transactionToken, transactionId: request.transactionToken },
      paymentInformation: { card: { number: PAN, expirationMonth: '03', expirationYear: '2030', securityCode: '737', type: '001' } },
      orderInformation: {
        amountDetails: { totalAmount: '20.00', currency: 'USD' },
        billTo: { firstName: 'Ada', lastName: 'Lovelace', address1: '12 St James Sq', locality: 'London', postalCode: 'SW1Y 4JH', country: 'GB', email: 'ada@example.com' },
      },
    });
    expect(response).toMatchObject({ success: true, message: 'Transaction credited', errorCode: null });
    expect(cs.followOns.get(response.gatewayTransactionId as string)?.kind).toBe('credits');
  });

  it.each([
    ['Purchase', 'payments'],
    ['Capture', 'captures'],
    ['Credit', 'refunds'],
    ['GeneralCredit', 'credits'],
  ])('voids a %s at /pts/v2/%s/{id}/voids', async (type, resource) => {
    const sale = (await run(gatewayRequest('purchase', CREDENTIALS, { currencyCode: 'USD' }))).response.gatewayTransactionId as string;
    let target = sale;
    if (type === 'GeneralCredit') target = (await run(gatewayRequest('general_credit', CREDENTIALS, { currencyCode: 'USD' }))).response.gatewayTransactionId as string;
    if (type === 'Credit') target = (await run(gatewayRequest('credit', CREDENTIALS, { amount: 100, currencyCode: 'USD', reference: reference(sale, 'Purchase') }))).response.gatewayTransactionId as string;
    if (type === 'Capture') {
      const auth = await authorized();
      target = (await run(gatewayRequest('capture', CREDENTIALS, { amount: 1000, currencyCode: 'USD', reference: reference(auth, 'Authorization') }))).response.gatewayTransactionId as string;
    }
    const { response, sent } = await run(gatewayRequest('void', CREDENTIALS, { currencyCode: 'USD', reference: reference(target, type) }));
    const post = only(sent);
    expect(post.path).toBe(`/pts/v2/${resource}/${target}/voids`);
    expect(Object.keys(post.json)).toEqual(['clientReferenceInformation']);
    expect(response).toMatchObject({ success: true, message: 'Transaction voided' });
  });

  it('a void CyberSource refuses (NOT_VOIDABLE) is a failed void', async () => {
    const { response } = await run(gatewayRequest('void', CREDENTIALS, { currencyCode: 'USD', reference: reference('6750000000000099999999', 'Capture') }));
    expect(response).toMatchObject({ success: false, errorDetail: 'NOT_VOIDABLE', errorCode: 'processing_error' });
  });
});

describe('verify and store', () => {
  it('verifies with a zero-amount authorization', async () => {
    const { response, sent } = await run(gatewayRequest('verify', CREDENTIALS, { currencyCode: null }));
    const post = only(sent);
    expect(post.json.processingInformation).toEqual({ capture: false });
    expect(post.json.orderInformation.amountDetails).toEqual({ totalAmount: '0.00', currency: 'USD' });
    expect(response).toMatchObject({ success: true, message: 'Card verified', cvvCode: 'M' });
  });

  it('stores the card in TMS with an authorization that creates the tokens, then purchases with them', async () => {
    const { response, sent } = await run(gatewayRequest('store', CREDENTIALS, { currencyCode: 'USD' }));
    const post = only(sent);
    expect(post.json.processingInformation).toEqual({ capture: false, actionList: ['TOKEN_CREATE'], actionTokenTypes: ['customer', 'paymentInstrument', 'instrumentIdentifier'] });
    expect(post.json.orderInformation.amountDetails.totalAmount).toBe('0.00');
    expect(response).toMatchObject({ success: true, message: 'Card stored' });
    expect(response.thirdPartyToken).toMatch(/^1A\d+E053AF598E0A\|1B\d+E053AF598E0A$/);
    const [customer, instrument] = (response.thirdPartyToken as string).split('|');

    const purchase = await run(gatewayRequest('purchase', CREDENTIALS, { paymentMethod: { type: 'third_party_token', token: response.thirdPartyToken as string } }));
    const sale = only(purchase.sent);
    expect(sale.json.paymentInformation).toEqual({ customer: { id: customer }, paymentInstrument: { id: instrument } });
    expect(sale.json.orderInformation).not.toHaveProperty('billTo');
    expect(purchase.response).toMatchObject({ success: true });
  });

  it('stores only credit cards: a third-party token is refused without a call', async () => {
    const { response, sent } = await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: { type: 'third_party_token', token: 'a|b' } }));
    expect(sent).toHaveLength(0);
    expect(response).toMatchObject({ success: false, errorCode: 'unsupported_feature' });
  });

  it('a token that is not customer|instrument is refused before sending', async () => {
    const { response, sent } = await run(gatewayRequest('purchase', CREDENTIALS, { paymentMethod: { type: 'third_party_token', token: 'just-one-id' } }));
    expect(sent).toHaveLength(0);
    expect(response).toMatchObject({ success: false, errorCode: 'invalid_number' });
  });

  it('a store answer without the TMS ids is a fault', async () => {
    cs.queue({ json: { id: '6750124114786780104953', status: 'AUTHORIZED' } });
    expect(await failure(gatewayRequest('store', CREDENTIALS))).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('tokenInformation') });
  });
});

describe('faults', () => {
  it('a 502 is a fault', async () => {
    cs.fake.setMode('error500');
    expect(await failure(gatewayRequest('purchase', CREDENTIALS))).toBeInstanceOf(GatewayFaultError);
  });

  it('an HTML page is a fault', async () => {
    cs.fake.setMode('garbage');
    expect(await failure(gatewayRequest('purchase', CREDENTIALS))).toBeInstanceOf(GatewayFaultError);
  });

  it('an answer without id or status is a fault naming the field', async () => {
    cs.queue({ json: { status: 'AUTHORIZED' } });
    expect(await failure(gatewayRequest('purchase', CREDENTIALS))).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('id') });
  });

  it('an unexpected status (404) is a fault', async () => {
    cs.queue({ status: 404, json: { message: 'Not Found' } });
    expect(await failure(gatewayRequest('capture', CREDENTIALS, { reference: reference('1', 'Authorization') }))).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 404' });
  });

  it('a reset connection after sending is an unknown outcome', async () => {
    cs.fake.setMode('reset');
    expect(await failure(gatewayRequest('purchase', CREDENTIALS))).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('no answer in time is an unknown outcome', async () => {
    cs.fake.setMode('hang');
    expect(await failure(gatewayRequest('purchase', CREDENTIALS), 300)).toBeInstanceOf(GatewayResultUnknownError);
  });
});

describe('endpoints and transcripts', () => {
  it('uses apitest.cybersource.com in test mode and api.cybersource.com live, with the documented path', () => {
    const endpoint = cyberSourceRestGateway.endpoint;
    expect(endpoint?.(gatewayRequest('purchase', CREDENTIALS, { testMode: true }))).toBe('https://apitest.cybersource.com');
    expect(endpoint?.(gatewayRequest('purchase', CREDENTIALS, { testMode: false }))).toBe('https://api.cybersource.com');
  });

  it('the transcript holds no card number, CVV, key id, shared secret, digest or signature', async () => {
    const { transcript, sent } = await run(gatewayRequest('purchase', CREDENTIALS, { paymentMethod: testCard('4242424242424242', { cvc: '319' }) }));
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(text).toContain('/pts/v2/payments');
    expect(findCardData(text)).toEqual([]);
    for (const secret of ['4242424242424242', '"319"', KEY_ID, SHARED_SECRET, sent[0]?.headers.digest, sent[0]?.headers.signature]) expect(text).not.toContain(secret);
    expect(text).toContain('"securityCode":"[FILTERED]"');
    expect(text).toMatch(/signature: \[FILTERED\]/);
    expect(text).toContain(`v-c-merchant-id: ${MERCHANT_ID}`);
  });
});
