import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { braintreeGateway } from '../../src/gateways/braintree.gateway.js';
import { BRAINTREE_VERSION } from '../../src/gateways/braintree/braintree-api.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeBraintree } from '../fakes/fake-braintree.js';
import { FakeGatewayServer, type FakeAnswer } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';
import { googlePanOnly, WALLET_CRYPTOGRAM, walletMethod } from '../helpers/wallet-methods.js';

/**
 * Canned-response tests of the Braintree module over real HTTP: the stateful fake Braintree
 * (test/fakes/fake-braintree.ts) for the flows, a FakeGatewayServer with canned GraphQL answers
 * for shapes the flows do not produce (errors arrays, missing fields), then transport faults.
 */

const PUBLIC_KEY = 'v4ndq314c2s5c28r';
const PRIVATE_KEY = 'b7e0c3c1d0a44f9c8f2e6a1b5d9c3e77';
const CREDENTIALS = { merchant_id: 'cofferMerchant01', public_key: PUBLIC_KEY, private_key: PRIVATE_KEY };
const BASIC = `Basic ${Buffer.from(`${PUBLIC_KEY}:${PRIVATE_KEY}`).toString('base64')}`;
const PAN = '4111111111111111';

let fake: FakeBraintree;
const http = new GatewayHttpClient();

function request(operation: GatewayRequest['operation'], overrides: Partial<GatewayRequest> = {}, credentials: Record<string, string> = CREDENTIALS): GatewayRequest {
  return gatewayRequest(operation, credentials, { currencyCode: 'USD', ...overrides });
}

async function run(gatewayCall: GatewayRequest, url = fake.url, timeoutMs = 2000): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: ReturnType<FakeBraintree['requestsFor']> }> {
  const transcript: TranscriptEntry[] = [];
  const response = await executeOperation(braintreeGateway, gatewayCall, transcript, { http, override: url, timeoutMs });
  return { response, transcript, sent: fake.requestsFor(gatewayCall.transactionToken) };
}

async function failure(gatewayCall: GatewayRequest, url = fake.url, timeoutMs = 2000): Promise<unknown> {
  try {
    await executeOperation(braintreeGateway, gatewayCall, [], { http, override: url, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to throw');
}

const reference = (id: string, transactionType: string, amount = 1000) => ({ reference: { gatewayTransactionId: id, transactionType, amount } });

async function authorized(amount = 1000): Promise<string> {
  const { response } = await run(request('authorize', { amount }));
  expect(response.success).toBe(true);
  return response.gatewayTransactionId as string;
}

beforeAll(async () => {
  fake = await FakeBraintree.start(PUBLIC_KEY, PRIVATE_KEY);
});

afterAll(async () => {
  await fake.close();
  await http.close();
});

beforeEach(() => {
  fake.server.setMode('normal');
  fake.settleImmediately = true;
});

describe('Braintree: definition and endpoints', () => {
  it('advertises what it implements, with Spreedly’s type and credential names', () => {
    const definition = braintreeGateway.definition;
    expect(definition.gatewayType).toBe('braintree');
    expect([...definition.characteristics].sort()).toEqual(
      ['supports_authorize', 'supports_capture', 'supports_credit', 'supports_purchase', 'supports_purchase_via_preauthorization', 'supports_store', 'supports_verify', 'supports_void'].sort(),
    );
    expect(definition.authModes[0]?.credentials.map((c) => [c.name, c.safe])).toEqual([
      ['merchant_id', true],
      ['public_key', true],
      ['private_key', false],
    ]);
    expect(definition.gatewaySpecificFields).toEqual(['merchant_account_id']);
  });

  it('uses the sandbox host in test mode and the production host otherwise, path /graphql', () => {
    expect(braintreeGateway.endpoint?.(request('purchase', { testMode: true }))).toBe('https://payments.sandbox.braintree-api.com');
    expect(braintreeGateway.endpoint?.(request('purchase', { testMode: false }))).toBe('https://payments.braintree-api.com');
  });
});

describe('Braintree: purchase and authorize', () => {
  it('tokenizes the card, then charges it: exact requests, approved answer mapped', async () => {
    const call = request('purchase', { amount: 1999, orderId: 'order-77', email: 'buyer@example.com' });
    const { response, sent, transcript } = await run(call);

    expect(sent.map((entry) => entry.mutation)).toEqual(['tokenizeCreditCard', 'chargePaymentMethod']);
    for (const { request: raw } of sent) {
      expect(raw.method).toBe('POST');
      expect(raw.path).toBe('/graphql');
      expect(raw.headers.authorization).toBe(BASIC);
      expect(raw.headers['braintree-version']).toBe(BRAINTREE_VERSION);
      expect(raw.headers['content-type']).toBe('application/json');
      expect(JSON.parse(raw.rawBody)).toHaveProperty('query');
    }
    const [tokenize, charge] = sent;
    expect(tokenize?.input).toEqual({
      clientMutationId: call.transactionToken,
      creditCard: {
        number: PAN,
        expirationMonth: '03',
        expirationYear: '2030',
        cvv: '737',
        cardholderName: 'Ada Lovelace',
        billingAddress: { streetAddress: '12 St James Sq', locality: 'London', postalCode: 'SW1Y 4JH', countryCode: 'GB' },
      },
    });
    expect(charge?.input).toEqual({
      clientMutationId: call.transactionToken,
      paymentMethodId: expect.stringMatching(/^tokencc_/),
      transaction: { amount: '19.99', orderId: 'order-77', customerDetails: { email: 'buyer@example.com' } },
    });

    expect(response).toMatchObject({
      success: true,
      message: 'Transaction approved',
      errorCode: null,
      avsCode: 'M',
      avsMessage: 'Street address and postal code match.',
      cvvCode: 'M',
      cvvMessage: 'Match',
      thirdPartyToken: null,
    });
    const stored = fake.transactions.get(response.gatewayTransactionId as string);
    expect(stored?.status).toBe('SETTLED');
    expect(response.specificResponseFields).toEqual({
      braintree: { status: 'SETTLED', legacy_id: stored?.legacyId, processor_response_code: '1000', gateway_rejection_reason: null, amount: '19.99', currency_code: 'USD' },
    });
    expect(transcript.length).toBe(4);
  });

  it('authorizes with authorizePaymentMethod and answers AUTHORIZED as success', async () => {
    fake.settleImmediately = false;
    const { response, sent } = await run(request('authorize'));
    expect(sent.map((entry) => entry.mutation)).toEqual(['tokenizeCreditCard', 'authorizePaymentMethod']);
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized' });
    expect(fake.transactions.get(response.gatewayTransactionId as string)?.status).toBe('AUTHORIZED');
  });

  it('maps a processor decline from the legacyCode (2001 → insufficient_funds), keeping the transaction id', async () => {
    const { response } = await run(request('purchase', { amount: 200100 }));
    expect(response).toMatchObject({ success: false, message: '2001 Insufficient Funds', errorCode: 'insufficient_funds', errorDetail: '2001', cvvCode: 'M', avsCode: 'M' });
    expect(fake.transactions.get(response.gatewayTransactionId as string)?.status).toBe('PROCESSOR_DECLINED');
    expect(response.specificResponseFields.braintree).toMatchObject({ status: 'PROCESSOR_DECLINED', processor_response_code: '2001', decline_type: 'SOFT' });
  });

  it.each([
    [200400, 'expired_card'],
    [201000, 'incorrect_cvc'],
    [204400, 'call_issuer'],
    [204700, 'pickup_card'],
    [200000, 'card_declined'],
    [299900, 'card_declined'],
  ] as const)('maps processor decline amount %s to %s', async (amount, code) => {
    const { response } = await run(request('purchase', { amount }));
    expect(response).toMatchObject({ success: false, errorCode: code });
  });

  it('maps a gateway rejection (fraud) to card_declined with fraud review', async () => {
    const { response } = await run(request('purchase', { paymentMethod: testCard('4000111111111511') }));
    expect(response).toMatchObject({ success: false, errorCode: 'card_declined', errorDetail: 'FRAUD', fraudReview: true, message: 'Transaction declined - gateway rejected (fraud)' });
  });

  it('maps CVV and postal code mismatches onto the standard letters', async () => {
    const card = testCard(PAN, { cvc: '200' });
    if (card.type === 'credit_card') card.address.zip = '20000';
    const { response } = await run(request('purchase', { paymentMethod: card }));
    expect(response).toMatchObject({ success: true, cvvCode: 'N', cvvMessage: 'No Match', avsCode: 'A' });
  });

  it('no CVV and no address are not sent; Braintree’s NOT_PROVIDED CVV is S', async () => {
    const { response, sent } = await run(request('purchase', { paymentMethod: testCard(PAN, { cvc: null, address: false }) }));
    expect(sent[0]?.input.creditCard).toEqual({ number: PAN, expirationMonth: '03', expirationYear: '2030', cardholderName: 'Ada Lovelace' });
    expect(response).toMatchObject({ success: true, cvvCode: 'S', avsCode: 'B' });
  });

  it('a validation error of the tokenization is a decline with Braintree’s message and code; nothing is charged', async () => {
    const { response, sent } = await run(request('purchase', { paymentMethod: testCard('4111111111111112') }));
    expect(sent.map((entry) => entry.mutation)).toEqual(['tokenizeCreditCard']);
    expect(response).toMatchObject({ success: false, errorCode: 'invalid_number', message: 'Credit card number is invalid. (81715)', errorDetail: '81715', gatewayTransactionId: null });
  });

  it('sends the merchant account: the credential, overridden by the gateway-specific field', async () => {
    const withAccount = { ...CREDENTIALS, merchant_account_id: 'coffer_usd' };
    const first = await run(request('purchase', {}, withAccount));
    expect(first.sent[1]?.input.transaction.merchantAccountId).toBe('coffer_usd');
    const second = await run(request('purchase', { gatewaySpecificFields: { merchant_account_id: 'coffer_eur' } }, withAccount));
    expect(second.sent[1]?.input.transaction.merchantAccountId).toBe('coffer_eur');
  });

  it('sends amounts in the currency’s unit: JPY whole, KWD three decimals; LAK is whole at Braintree', async () => {
    expect((await run(request('purchase', { amount: 1000, currencyCode: 'JPY' }))).sent[1]?.input.transaction.amount).toBe('1000');
    expect((await run(request('purchase', { amount: 1234, currencyCode: 'KWD' }))).sent[1]?.input.transaction.amount).toBe('1.234');
    expect((await run(request('purchase', { amount: 15000, currencyCode: 'LAK' }))).sent[1]?.input.transaction.amount).toBe('150');
    const refused = await run(request('purchase', { amount: 15050, currencyCode: 'LAK' }));
    expect(refused.response).toMatchObject({ success: false, errorCode: 'invalid_amount' });
    expect(refused.sent).toHaveLength(0);
  });

  it('refuses Spreedly’s retired orange mode before sending anything', async () => {
    const { response, sent } = await run(request('purchase', {}, { ...CREDENTIALS, mode: 'orange' }));
    expect(response).toMatchObject({ success: false, errorCode: 'config_error' });
    expect(sent).toHaveLength(0);
    expect((await run(request('purchase', {}, { ...CREDENTIALS, mode: 'blue' }))).response.success).toBe(true);
  });
});

describe('Braintree: wallet tokens (Apple Pay, Google Pay)', () => {
  it('tokenizes an Apple Pay DPAN with tokenizeNetworkToken (cryptogram, two-digit ECI, origin APPLE_PAY), then charges it', async () => {
    const call = request('purchase', { paymentMethod: walletMethod(PAN) });
    const { response, sent, transcript } = await run(call);
    expect(response.success).toBe(true);
    expect(sent.map((entry) => entry.mutation)).toEqual(['tokenizeNetworkToken', 'chargePaymentMethod']);
    expect(sent[0]?.input).toEqual({
      clientMutationId: call.transactionToken,
      networkToken: { number: PAN, expirationMonth: '12', expirationYear: '2034', cryptogram: WALLET_CRYPTOGRAM, eCommerceIndicator: '07', originDetails: { origin: 'APPLE_PAY' } },
    });
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(text).not.toContain(WALLET_CRYPTOGRAM);
    expect(text).not.toContain(PAN);
  });

  it('names Google Pay GOOGLE_PAY; a merchant-initiated charge and a PAN_ONLY card go through tokenizeCreditCard, without cryptogram', async () => {
    const google = await run(request('authorize', { paymentMethod: walletMethod(PAN, { type: 'google_pay', eci: '05' }) }));
    expect(google.sent[0]?.input.networkToken).toMatchObject({ eCommerceIndicator: '05', originDetails: { origin: 'GOOGLE_PAY' } });
    const mit = await run(request('purchase', { paymentMethod: walletMethod(PAN), storedCredential: { initiator: 'merchant', reasonType: 'recurring', networkTransactionId: null } }));
    expect(mit.sent[0]?.mutation).toBe('tokenizeCreditCard');
    expect(JSON.stringify(mit.sent[0]?.input)).not.toContain(WALLET_CRYPTOGRAM);
    const panOnly = await run(request('purchase', { paymentMethod: googlePanOnly(PAN) }));
    expect(panOnly.sent[0]?.mutation).toBe('tokenizeCreditCard');
    expect(panOnly.response.success).toBe(true);
  });
});

describe('Braintree: capture, credit, void', () => {
  it('captures part of an authorization, then refunds part of the capture', async () => {
    const id = await authorized(1000);
    const capture = await run(request('capture', { amount: 600, ...reference(id, 'Authorization') }));
    expect(capture.sent).toHaveLength(1);
    expect(capture.sent[0]?.mutation).toBe('captureTransaction');
    expect(capture.sent[0]?.input).toEqual({ clientMutationId: expect.any(String), transactionId: id, transaction: { amount: '6.00' } });
    expect(capture.response).toMatchObject({ success: true, message: 'Transaction captured', gatewayTransactionId: id });

    const refund = await run(request('credit', { amount: 250, orderId: 'rma-1', ...reference(id, 'Capture', 600) }));
    expect(refund.sent[0]?.mutation).toBe('refundTransaction');
    expect(refund.sent[0]?.input).toMatchObject({ transactionId: id, refund: { amount: '2.50', orderId: 'rma-1' } });
    expect(refund.response).toMatchObject({ success: true, message: 'Transaction refunded' });
    expect(fake.transactions.get(refund.response.gatewayTransactionId as string)).toMatchObject({ kind: 'refund', amount: 250 });
  });

  it('a capture above the authorization is declined with invalid_amount (91522)', async () => {
    fake.settleImmediately = false;
    const id = await authorized(1000);
    const { response } = await run(request('capture', { amount: 1500, ...reference(id, 'Authorization') }));
    expect(response).toMatchObject({ success: false, errorCode: 'invalid_amount', message: 'Settlement amount is too large. (91522)' });
  });

  it('a refund before settlement is declined (91506 → processing_error)', async () => {
    fake.settleImmediately = false;
    const id = await authorized(1000);
    await run(request('capture', { amount: 1000, ...reference(id, 'Authorization') }));
    const { response } = await run(request('credit', { amount: 1000, ...reference(id, 'Capture') }));
    expect(response).toMatchObject({ success: false, errorCode: 'processing_error', errorDetail: '91506' });
  });

  it('voids an authorization with reverseTransaction', async () => {
    fake.settleImmediately = false;
    const id = await authorized(700);
    const { response, sent } = await run(request('void', reference(id, 'Authorization', 700)));
    expect(sent[0]?.mutation).toBe('reverseTransaction');
    expect(sent[0]?.input).toEqual({ clientMutationId: expect.any(String), transactionId: id });
    expect(response).toMatchObject({ success: true, message: 'Transaction voided', gatewayTransactionId: id, specificResponseFields: { braintree: { status: 'VOIDED', reversal: 'Transaction' } } });
    const again = await run(request('void', reference(id, 'Authorization', 700)));
    expect(again.response).toMatchObject({ success: false, errorCode: 'processing_error', errorDetail: '91504' });
  });

  it('a reversal of a settled purchase is a full refund, reported as such', async () => {
    const { response: purchase } = await run(request('purchase'));
    const { response } = await run(request('void', reference(purchase.gatewayTransactionId as string, 'Purchase')));
    expect(response).toMatchObject({ success: true, message: 'Transaction reversed by a full refund', specificResponseFields: { braintree: { reversal: 'Refund' } } });
    expect(fake.transactions.get(response.gatewayTransactionId as string)?.kind).toBe('refund');
  });

  it('an unknown transaction (NOT_FOUND) is a decline, not a fault', async () => {
    const { response } = await run(request('capture', reference('dHJhbnNhY3Rpb25fbm9uZQ', 'Authorization')));
    expect(response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'Transaction not found.', errorDetail: 'NOT_FOUND' });
  });
});

describe('Braintree: verify and store', () => {
  it('stores: tokenize, vaultPaymentMethod (verified) → the vaulted id as third_party_token; purchases with it', async () => {
    const { response, sent } = await run(request('store'));
    expect(sent.map((entry) => entry.mutation)).toEqual(['tokenizeCreditCard', 'vaultPaymentMethod']);
    expect(response).toMatchObject({ success: true, message: 'Card stored', avsCode: 'M', cvvCode: 'M' });
    const token = response.thirdPartyToken as string;
    expect(fake.vaulted.has(token)).toBe(true);

    const purchase = await run(request('purchase', { paymentMethod: { type: 'third_party_token', token } }));
    expect(purchase.sent.map((entry) => entry.mutation)).toEqual(['chargePaymentMethod']);
    expect(purchase.sent[0]?.input.paymentMethodId).toBe(token);
    expect(purchase.response.success).toBe(true);
    // Vaulted payment methods are multi-use.
    expect((await run(request('purchase', { paymentMethod: { type: 'third_party_token', token } }))).response.success).toBe(true);
  });

  it('a store whose verification is declined stores nothing and declines', async () => {
    const { response } = await run(request('store', { paymentMethod: testCard('4000111111111115') }));
    expect(response).toMatchObject({ success: false, errorCode: 'card_declined', thirdPartyToken: null, message: 'Processor declined: Do Not Honor (2000)' });
  });

  it('verifies a card by vaulting it (the verification) and deleting it again', async () => {
    const before = fake.vaulted.size;
    const { response, sent } = await run(request('verify'));
    expect(sent.map((entry) => entry.mutation)).toEqual(['tokenizeCreditCard', 'vaultPaymentMethod', 'deletePaymentMethodFromVault']);
    expect(response).toMatchObject({ success: true, message: 'Card verified', thirdPartyToken: null, cvvCode: 'M' });
    expect(fake.vaulted.size).toBe(before);
  });

  it('verifies a stored card with verifyPaymentMethod', async () => {
    const token = (await run(request('store'))).response.thirdPartyToken as string;
    const { response, sent } = await run(request('verify', { paymentMethod: { type: 'third_party_token', token }, gatewaySpecificFields: { merchant_account_id: 'coffer_usd' } }));
    expect(sent.map((entry) => entry.mutation)).toEqual(['verifyPaymentMethod']);
    expect(sent[0]?.input).toMatchObject({ paymentMethodId: token, merchantAccountId: 'coffer_usd' });
    expect(response).toMatchObject({ success: true, message: 'Card verified' });
  });
});

describe('Braintree: canned GraphQL answers', () => {
  let canned: FakeGatewayServer;
  let next: FakeAnswer[] = [];
  beforeAll(async () => {
    canned = await FakeGatewayServer.start([{ method: 'POST', path: '/graphql', handle: () => next.shift() ?? { status: 500, json: {} } }]);
  });
  afterAll(() => canned.close());

  const tokenized: FakeAnswer = { json: { data: { tokenizeCreditCard: { paymentMethod: { id: 'tokencc_bc_canned', usage: 'SINGLE_USE' } } }, extensions: { requestId: 'r1' } } };
  const decline = (legacyCode: string, message: string): FakeAnswer => ({
    json: { data: { chargePaymentMethod: null }, errors: [{ message, path: ['chargePaymentMethod'], extensions: { errorClass: 'VALIDATION', legacyCode } }], extensions: { requestId: 'r2' } },
  });

  it('a decline reported in the errors array (HTTP 200) maps its legacyCode', async () => {
    next = [tokenized, decline('2004', 'Expired Card')];
    const transcript: TranscriptEntry[] = [];
    const response = await executeOperation(braintreeGateway, request('purchase'), transcript, { http, override: canned.url, timeoutMs: 2000 });
    expect(response).toMatchObject({ success: false, errorCode: 'expired_card', message: 'Expired Card (2004)' });
  });

  it('an unknown legacyCode falls back to processing_error; several messages are joined', async () => {
    next = [
      tokenized,
      { json: { data: { chargePaymentMethod: null }, errors: [{ message: 'A', extensions: { errorClass: 'VALIDATION', legacyCode: '99999' } }, { message: 'B', extensions: { errorClass: 'VALIDATION' } }] } },
    ];
    const response = await executeOperation(braintreeGateway, request('purchase'), [], { http, override: canned.url, timeoutMs: 2000 });
    expect(response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'A (99999) B' });
  });

  it.each(['AUTHENTICATION', 'AUTHORIZATION', 'INTERNAL', 'SERVICE_AVAILABILITY', 'RESOURCE_LIMIT'])('an error of class %s on HTTP 200 is a fault', async (errorClass) => {
    next = [{ json: { data: { tokenizeCreditCard: null }, errors: [{ message: 'no', extensions: { errorClass } }] } }];
    const error = await failure(request('purchase'), canned.url);
    expect(error).toBeInstanceOf(GatewayFaultError);
    expect((error as GatewayFaultError).detail).toBe(`errorClass ${errorClass}`);
  });

  it('a transaction without its id is a fault naming the field; unknown fields are ignored', async () => {
    next = [tokenized, { json: { data: { chargePaymentMethod: { transaction: { status: 'SETTLED', surprise: { nested: true } } } } } }];
    const error = await failure(request('purchase'), canned.url);
    expect(error).toBeInstanceOf(GatewayFaultError);
    expect((error as GatewayFaultError).detail).toMatch(/^id: /);
    next = [tokenized, { json: { data: { chargePaymentMethod: { transaction: { id: 'dHg', status: 'SUBMITTED_FOR_SETTLEMENT', surprise: 1 } } }, extensions: { requestId: 'x', cost: 3 } } }];
    const response = await executeOperation(braintreeGateway, request('purchase'), [], { http, override: canned.url, timeoutMs: 2000 });
    expect(response).toMatchObject({ success: true, gatewayTransactionId: 'dHg', avsCode: null, cvvCode: null });
  });

  it('a tokenization without a payment method id is a fault naming the path', async () => {
    next = [{ json: { data: { tokenizeCreditCard: { paymentMethod: {} } } } }];
    const error = await failure(request('purchase'), canned.url);
    expect(error).toBeInstanceOf(GatewayFaultError);
    expect((error as GatewayFaultError).detail).toContain('id');
  });

  it('data without the mutation and without errors is a fault', async () => {
    next = [{ json: { data: {} } }];
    expect(await failure(request('purchase'), canned.url)).toBeInstanceOf(GatewayFaultError);
  });
});

describe('Braintree: transport faults and timeouts', () => {
  it('refused API keys (HTTP 401) are a fault, not a decline', async () => {
    const error = await failure(request('purchase', {}, { ...CREDENTIALS, private_key: 'wrong-private-key-000' }));
    expect(error).toBeInstanceOf(GatewayFaultError);
    expect((error as GatewayFaultError).detail).toBe('HTTP 401');
  });

  it.each(['error500', 'garbage'] as const)('%s → GatewayFaultError', async (mode) => {
    fake.server.setMode(mode);
    expect(await failure(request('purchase'))).toBeInstanceOf(GatewayFaultError);
  });

  it('a reset connection after sending → unknown outcome', async () => {
    fake.server.setMode('reset');
    expect(await failure(request('purchase'))).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('no answer in time → GatewayResultUnknownError', async () => {
    fake.server.setMode('hang');
    expect(await failure(request('purchase'), fake.url, 300)).toBeInstanceOf(GatewayResultUnknownError);
  });
});

describe('Braintree: transcript scrubbing', () => {
  it('keeps no PAN, CVV, private key, Basic credentials or payment method id in the transcript', async () => {
    const stored = await run(request('store'));
    const token = stored.response.thirdPartyToken as string;
    const purchase = await run(request('purchase', { amount: 4321 }));
    const declined = await run(request('purchase', { paymentMethod: testCard('4111111111111112') }));
    const viaToken = await run(request('purchase', { paymentMethod: { type: 'third_party_token', token } }));
    const text = [stored, purchase, declined, viaToken].flatMap((result) => result.transcript.map((entry) => entry.text)).join('\n');
    expect(findCardData(text, [PAN, PRIVATE_KEY, BASIC.slice(6), '4111111111111112', token])).toEqual([]);
    expect(text).not.toMatch(/"cvv"\s*:\s*"737"/);
    expect(text).not.toMatch(/tokencc_bf_/);
    expect(text).toContain('"cvv":"[FILTERED]"');
    expect(text).toContain('"number":"[FILTERED]"');
    expect(text).toContain('"paymentMethodId":"[FILTERED]"');
    expect(text).toContain('POST ');
    expect(text).toContain('/graphql');
  });
});
