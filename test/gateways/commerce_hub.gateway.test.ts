import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { commerceHubGateway, COMMERCE_HUB_LIVE_BASE, COMMERCE_HUB_TEST_BASE } from '../../src/gateways/commerce_hub.gateway.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type AdapterPaymentMethod, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, jsonOf, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';

/**
 * Canned-response tests of the Commerce Hub module. The answers follow the examples of Commerce
 * Hub's public reference (charges CAPTURED/AUTHORIZED with processorResponseDetails, cancel and
 * refund answers, the TOKENIZE answer with paymentTokens, the verification's VERIFIED state, the
 * "Error Response" bodies) as ActiveMerchant's unit tests also carry them; the request signature is
 * recomputed here from Commerce Hub's documented recipe, independently of the module.
 */

const API_KEY = 'nEcoHEQZjKtkKW9dN6yH7x4gO2EIARKe';
const API_SECRET = 'CommerceHubSecret-0123456789abcdef';
const CREDENTIALS = { api_key: API_KEY, api_secret: API_SECRET, merchant_id: '100008000003683', terminal_id: '10000001' };
const CREDENTIALS_BODY = { merchantId: '100008000003683', terminalId: '10000001' };
const PAN = '4005550000000019';

const processor = (code: string, message: string, status = 'APPROVED') => ({
  approvalStatus: status,
  approvalCode: '000238',
  referenceNumber: '962afc9c012d',
  processor: 'FISERV',
  host: 'NASHVILLE',
  networkInternationalId: '0001',
  responseCode: code,
  responseMessage: message,
  hostResponseCode: '00',
  bankAssociationDetails: { associationResponseCode: 'V000', avsSecurityCodeResponse: { streetMatch: 'NONE', postalCodeMatch: 'NONE', securityCodeMatch: 'NOT_CHECKED', association: { securityCodeResponse: 'X', avsCode: 'Y' } } },
});
const gatewayResponse = (type: string, state: string, id: string) => ({
  transactionType: type,
  transactionState: state,
  transactionOrigin: 'ECOM',
  transactionProcessingDetails: { orderId: 'CHG018048a66aafc64d789cb018a53c30fd74', transactionTimestamp: '2022-10-06T11:27:45.593359Z', apiTraceId: id, clientRequestId: '5106241', transactionId: id },
});
const CAPTURED = {
  gatewayResponse: gatewayResponse('CHARGE', 'CAPTURED', '6304d53be8d94312a620962afc9c012d'),
  source: { sourceType: 'PaymentCard', card: { expirationMonth: '02', expirationYear: '2035', securityCodeIndicator: 'PROVIDED', bin: '400555', last4: '0019', scheme: 'VISA' } },
  paymentReceipt: { approvedAmount: { total: 12.04, currency: 'USD' }, processorResponseDetails: processor('000', 'Approved') },
  transactionDetails: { captureFlag: true, transactionCaptureType: 'hcs', processingCode: '000000', merchantInvoiceNumber: '123456789012', createToken: true, retrievalReferenceNumber: '962afc9c012d' },
  merchantDetails: { tokenType: 'BBY0', terminalId: '10000001', merchantId: '100008000003683' },
  networkDetails: { network: { network: 'Visa' }, transactionIdentifier: '013326811921010' },
};
const AUTHORIZED = { ...CAPTURED, gatewayResponse: gatewayResponse('CHARGE', 'AUTHORIZED', '000bc22420f448288f1226d28dfdf275') };
const DECLINED = { ...CAPTURED, gatewayResponse: gatewayResponse('CHARGE', 'DECLINED', '84356531338'), paymentReceipt: { processorResponseDetails: processor('116', 'Not sufficient funds', 'DECLINED') }, networkDetails: undefined };
const CANCELLED = { gatewayResponse: gatewayResponse('CANCEL', 'AUTHORIZED', '84356531338'), paymentReceipt: { approvedAmount: { total: 12.04, currency: 'USD' }, processorResponseDetails: { ...processor('000', 'APPROVAL'), bankAssociationDetails: { associationResponseCode: '000' } } } };
const REFUNDED = { ...CANCELLED, gatewayResponse: gatewayResponse('REFUND', 'CAPTURED', '4dcb1fc8ea9d4f1084046a77cf250292') };
const TOKENIZED = {
  gatewayResponse: gatewayResponse('TOKENIZE', 'AUTHORIZED', '84356531338'),
  source: { sourceType: 'PaymentCard', card: { bin: '40055500', last4: '0019', scheme: 'VISA', expirationMonth: '10', expirationYear: '2030' } },
  paymentTokens: [
    { tokenData: 'fa5b71c3a2d90019', tokenSource: 'TRANSARMOR', tokenResponseCode: '000', tokenResponseDescription: 'SUCCESS' },
    { tokenData: 'fa5b71c3a2d90020', tokenSource: 'CHASE', tokenResponseCode: '000', tokenResponseDescription: 'SUCCESS' },
  ],
  processorResponseDetails: { approvalStatus: 'APPROVED', responseCode: '000', responseMessage: 'APPROVAL' },
};
const ERROR_200 = {
  gatewayResponse: gatewayResponse('CHARGE', 'AUTHORIZED', '838916029301'),
  error: [{ type: 'HOST', code: '132', field: 'source.sourceType', message: 'Unmatched card expiry date' }],
};
const ERROR_400 = { errorResponse: { gatewayResponse: gatewayResponse('CANCEL', 'DECLINED', 'b2d883cdf3051598acb295f29a1e1582'), error: [{ type: 'GATEWAY', code: '703', message: 'Write to downstream failed' }] } };

/** Commerce Hub's documented recipe: Base64 HMAC-SHA256 under the API secret of Api-Key + Client-Request-Id + Timestamp + body. */
function expectedSignature(sent: FakeRequest): string {
  return createHmac('sha256', API_SECRET)
    .update(API_KEY + (sent.headers['client-request-id'] as string) + (sent.headers.timestamp as string) + sent.rawBody)
    .digest('base64');
}

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let next: FakeAnswer;

async function run(request: GatewayRequest, timeoutMs = 3000): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(commerceHubGateway, request, transcript, { http, override: fake.url, timeoutMs });
  expect(fake.requests.length - before).toBeLessThanOrEqual(1);
  return { response, transcript, sent: fake.requests[fake.requests.length - 1] as FakeRequest };
}

async function fault(request: GatewayRequest, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(commerceHubGateway, request, [], { http, override: fake.url, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

type CreditCard = Extract<AdapterPaymentMethod, { type: 'credit_card' }>;
const card = (overrides: Partial<CreditCard> = {}): CreditCard => ({ ...(testCard(PAN) as CreditCard), ...overrides });
const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD', amount: 1204, ...overrides });
const reference = (id: string) => ({ gatewayTransactionId: id, transactionType: 'Authorization', amount: 1204 });

beforeAll(async () => {
  fake = await FakeGatewayServer.start([{ method: 'POST', path: /^\/ch\/payments(-vas)?\/v1\//, handle: () => next }]);
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  next = { status: 201, json: CAPTURED };
});

describe('Commerce Hub: signed charges', () => {
  it('purchases at POST /ch/payments/v1/charges with every documented header and an HMAC that recomputes', async () => {
    const request = purchase({ orderId: 'abc123', gatewaySpecificFields: { mcc: '1234', merchant_name: 'Spreedly', physical_goods_indicator: true } });
    const { response, sent } = await run(request);
    expect(sent.path).toBe('/ch/payments/v1/charges');
    expect(sent.headers).toMatchObject({ 'content-type': 'application/json', accept: 'application/json', 'api-key': API_KEY, 'auth-token-type': 'HMAC', 'client-request-id': request.transactionToken });
    expect(Math.abs(Number(sent.headers.timestamp) - Date.now())).toBeLessThan(60_000);
    expect(sent.headers.authorization).toBe(expectedSignature(sent));
    expect(jsonOf(sent)).toEqual({
      amount: { total: 12.04, currency: 'USD' },
      source: { sourceType: 'PaymentCard', card: { cardData: PAN, expirationMonth: '03', expirationYear: '2030', securityCode: '737', securityCodeIndicator: 'PROVIDED' } },
      transactionDetails: { captureFlag: true, createToken: false, merchantOrderId: 'abc123', merchantInvoiceNumber: 'abc123', physicalGoodsIndicator: true },
      transactionInteraction: { origin: 'ECOM', eciIndicator: 'CHANNEL_ENCRYPTED', posConditionCode: 'CARD_NOT_PRESENT_ECOM', posEntryMode: 'MANUAL', additionalPosInformation: { dataEntrySource: 'UNSPECIFIED' } },
      billingAddress: { firstName: 'Ada', lastName: 'Lovelace', address: { street: '12 St James Sq', city: 'London', postalCode: 'SW1Y 4JH', country: 'GB' } },
      dynamicDescriptors: { mcc: '1234', merchantName: 'Spreedly' },
      merchantDetails: { merchantId: '100008000003683', terminalId: '10000001' },
    });
    expect(response).toMatchObject({
      success: true,
      message: 'Transaction approved',
      gatewayTransactionId: '6304d53be8d94312a620962afc9c012d',
      errorCode: null,
      avsCode: 'Y',
      cvvCode: 'X',
      networkTransactionId: '013326811921010',
      specificResponseFields: { commerce_hub: { transaction_state: 'CAPTURED', response_code: '000', approval_status: 'APPROVED' } },
    });
  });

  it('authorizes with captureFlag false and succeeds on AUTHORIZED 000', async () => {
    next = { status: 201, json: AUTHORIZED };
    const { response, sent } = await run(gatewayRequest('authorize', CREDENTIALS, { paymentMethod: card(), currencyCode: 'USD', amount: 1204 }));
    expect(jsonOf(sent).transactionDetails).toEqual({ captureFlag: false, createToken: false });
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized', gatewayTransactionId: '000bc22420f448288f1226d28dfdf275' });
  });

  it('sends the total in the currency’s major unit as a number: JPY whole yen, KWD three decimals', async () => {
    expect(jsonOf((await run(purchase({ amount: 1500, currencyCode: 'JPY' }))).sent).amount).toEqual({ total: 1500, currency: 'JPY' });
    expect(jsonOf((await run(purchase({ amount: 1234, currencyCode: 'KWD' }))).sent).amount).toEqual({ total: 1.234, currency: 'KWD' });
    expect((await run(purchase({ amount: 1000 }))).sent.rawBody).toContain('"amount":{"total":10,"currency":"USD"}');
  });

  it('pays with a Commerce Hub token as a PaymentToken source, without card data', async () => {
    const request = purchase({ paymentMethod: { type: 'third_party_token', token: 'fa5b71c3a2d90019' }, gatewaySpecificFields: { card_expiration_month: '3', card_expiration_year: '2030' } });
    const { sent } = await run(request);
    expect(jsonOf(sent).source).toEqual({ sourceType: 'PaymentToken', tokenData: 'fa5b71c3a2d90019', tokenSource: 'TRANSARMOR', card: { expirationMonth: '03', expirationYear: '2030' } });
    expect(jsonOf(sent)).not.toHaveProperty('billingAddress');
  });

  it('refuses a bank account before sending', async () => {
    const before = fake.requests.length;
    const bank = { type: 'bank_account', routingNumber: card().number, accountNumber: card().number, accountType: null, holderType: null, firstName: null, lastName: null } as AdapterPaymentMethod;
    expect((await run(purchase({ paymentMethod: bank }))).response).toMatchObject({ success: false, errorCode: 'unsupported_feature' });
    expect(fake.requests.length).toBe(before);
  });
});

describe('Commerce Hub: declines and errors', () => {
  it.each([
    ['100', 'card_declined'],
    ['101', 'expired_card'],
    ['105', 'call_issuer'],
    ['116', 'insufficient_funds'],
    ['131', 'incorrect_number'],
    ['132', 'invalid_expiry_date'],
    ['208', 'pickup_card'],
    ['302', 'account_closed'],
    ['517', 'incorrect_cvc'],
    ['721', 'incorrect_zip'],
    ['999', 'card_declined'],
  ])('maps a DECLINED charge with gateway response code %s to %s', async (code, standard) => {
    next = { status: 201, json: { ...DECLINED, paymentReceipt: { processorResponseDetails: processor(code, `Decline ${code}`, 'DECLINED') } } };
    const { response } = await run(purchase());
    expect(response).toMatchObject({ success: false, errorCode: standard, message: `Decline ${code}`, errorDetail: `${code}: Decline ${code}`, gatewayTransactionId: '84356531338', accountClosed: standard === 'account_closed' });
  });

  it('an error list in a 2xx answer is a decline mapped by its HOST code', async () => {
    next = { status: 200, json: ERROR_200 };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'invalid_expiry_date', message: 'Unmatched card expiry date', errorDetail: 'HOST: 132: source.sourceType: Unmatched card expiry date' });
  });

  it('maps 4xx error bodies: wrapped in errorResponse or not, card fields, credentials', async () => {
    next = { status: 400, json: ERROR_400 };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'Write to downstream failed', gatewayTransactionId: 'b2d883cdf3051598acb295f29a1e1582' });
    next = { status: 400, json: { error: [{ type: 'GATEWAY', code: '001', field: 'source.card.cardData', message: 'Invalid card number' }] } };
    expect((await run(purchase())).response).toMatchObject({ errorCode: 'invalid_number', errorDetail: 'GATEWAY: 001: source.card.cardData: Invalid card number' });
    next = { status: 401, json: { error: [{ type: 'APIM', code: '401', message: 'HMAC signature mismatch' }] } };
    expect((await run(purchase())).response).toMatchObject({ errorCode: 'config_error', message: 'HMAC signature mismatch' });
    next = { status: 403, body: 'Forbidden' };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'config_error', errorDetail: 'HTTP 403' });
  });
});

describe('Commerce Hub: capture, void, credit, verify, store', () => {
  it('captures part of an authorization at /payments/v1/charges with referenceTransactionDetails', async () => {
    const request = gatewayRequest('capture', CREDENTIALS, { amount: 1000, currencyCode: 'USD', reference: reference('000bc22420f448288f1226d28dfdf275') });
    const { response, sent } = await run(request);
    expect(sent.path).toBe('/ch/payments/v1/charges');
    expect(jsonOf(sent)).toEqual({ amount: { total: 10, currency: 'USD' }, transactionDetails: { captureFlag: true }, referenceTransactionDetails: { referenceTransactionId: '000bc22420f448288f1226d28dfdf275' }, merchantDetails: CREDENTIALS_BODY });
    expect(sent.headers.authorization).toBe(expectedSignature(sent));
    expect(response).toMatchObject({ success: true, message: 'Transaction captured' });
  });

  it('voids at /payments/v1/cancels with referenceTransactionType CHARGES', async () => {
    next = { status: 201, json: CANCELLED };
    const { response, sent } = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('authorization123') }));
    expect(sent.path).toBe('/ch/payments/v1/cancels');
    expect(jsonOf(sent)).toEqual({ referenceTransactionDetails: { referenceTransactionId: 'authorization123', referenceTransactionType: 'CHARGES' }, merchantDetails: CREDENTIALS_BODY });
    expect(response).toMatchObject({ success: true, message: 'Transaction cancelled', gatewayTransactionId: '84356531338' });
  });

  it('refunds part at /payments/v1/refunds', async () => {
    next = { status: 201, json: REFUNDED };
    const { response, sent } = await run(gatewayRequest('credit', CREDENTIALS, { amount: 1203, currencyCode: 'USD', reference: reference('6304d53be8d94312a620962afc9c012d') }));
    expect(sent.path).toBe('/ch/payments/v1/refunds');
    expect(jsonOf(sent)).toEqual({ amount: { total: 12.03, currency: 'USD' }, referenceTransactionDetails: { referenceTransactionId: '6304d53be8d94312a620962afc9c012d', referenceTransactionType: 'CHARGES' }, merchantDetails: CREDENTIALS_BODY });
    expect(response).toMatchObject({ success: true, message: 'Refund approved', gatewayTransactionId: '4dcb1fc8ea9d4f1084046a77cf250292' });
  });

  it('verifies at /payments-vas/v1/accounts/verification: VERIFIED succeeds, NOT_VERIFIED declines', async () => {
    next = { status: 201, json: { ...AUTHORIZED, gatewayResponse: gatewayResponse('VERIFICATION', 'VERIFIED', 'v-1') } };
    const { response, sent } = await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: card(), orderId: 'abc123' }));
    expect(sent.path).toBe('/ch/payments-vas/v1/accounts/verification');
    expect(jsonOf(sent)).toMatchObject({ source: { sourceType: 'PaymentCard' }, transactionDetails: { merchantOrderId: 'abc123', merchantInvoiceNumber: 'abc123' } });
    expect(jsonOf(sent)).not.toHaveProperty('amount');
    expect(response).toMatchObject({ success: true, message: 'Card verified', avsCode: 'Y' });
    next = { status: 201, json: { ...AUTHORIZED, gatewayResponse: gatewayResponse('VERIFICATION', 'NOT_VERIFIED', 'v-2'), paymentReceipt: { processorResponseDetails: processor('517', 'CVV2 Declined', 'DECLINED') } } };
    expect((await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: card() }))).response).toMatchObject({ success: false, errorCode: 'incorrect_cvc' });
  });

  it('stores at /payments-vas/v1/tokens and answers the first token as the third-party token', async () => {
    next = { status: 201, json: TOKENIZED };
    const { response, sent } = await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: card() }));
    expect(sent.path).toBe('/ch/payments-vas/v1/tokens');
    expect(jsonOf(sent)).toMatchObject({ source: { sourceType: 'PaymentCard', card: { cardData: PAN, securityCode: '737', securityCodeIndicator: 'PROVIDED' } }, merchantDetails: CREDENTIALS_BODY });
    expect(response).toMatchObject({ success: true, message: 'Card stored', thirdPartyToken: 'fa5b71c3a2d90019', specificResponseFields: { commerce_hub: { token_source: 'TRANSARMOR' } } });
    next = { status: 201, json: { ...TOKENIZED, paymentTokens: [{ tokenData: 'x', tokenResponseCode: '403', tokenResponseDescription: 'TransArmor Invalid Token or Account Number' }] } };
    expect((await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: card() }))).response).toMatchObject({ success: false, thirdPartyToken: null, message: 'TransArmor Invalid Token or Account Number' });
  });

  it('advertises what it implements under Spreedly’s gateway_type and credential names; test and live endpoints', () => {
    const { definition } = commerceHubGateway;
    expect(definition.gatewayType).toBe('commerce_hub');
    expect([...definition.characteristics].sort()).toEqual(['supports_authorize', 'supports_capture', 'supports_credit', 'supports_purchase', 'supports_store', 'supports_verify', 'supports_void']);
    expect(definition.authModes[0]?.credentials.map((field) => [field.name, field.safe])).toEqual([['api_key', false], ['api_secret', false], ['merchant_id', true], ['terminal_id', true]]);
    expect(commerceHubGateway.endpoint?.(purchase())).toBe(COMMERCE_HUB_TEST_BASE);
    expect(commerceHubGateway.endpoint?.(purchase({ testMode: false }))).toBe(COMMERCE_HUB_LIVE_BASE);
  });
});

describe('Commerce Hub: faults', () => {
  it('a 5xx, garbage, a 4xx without an error list and an answer without transactionId are faults', async () => {
    next = { status: 500, json: { error: [{ type: 'GATEWAY', code: '500', message: 'Internal error' }] } };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 500' });
    next = { status: 404, body: 'Not Found' };
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    next = { status: 400, json: { message: 'nope' } };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 400, no error list' });
    fake.setMode('garbage');
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    fake.setMode('normal');
    next = { status: 201, json: { gatewayResponse: { transactionState: 'CAPTURED' } } };
    expect(await fault(purchase())).toMatchObject({ name: 'GatewayFaultError', detail: expect.stringContaining('transactionProcessingDetails') });
  });

  it('no answer in time is a GatewayResultUnknownError', async () => {
    fake.setMode('hang');
    expect(await fault(purchase(), 300)).toBeInstanceOf(GatewayResultUnknownError);
    fake.setMode('normal');
  });
});

describe('Commerce Hub: scrubbing', () => {
  it('keeps no PAN, CVV, API key, API secret or signature in the transcript', async () => {
    next = { status: 201, json: { ...CAPTURED, source: { sourceType: 'PaymentCard', card: { cardData: PAN, securityCode: '737' } } } };
    const { transcript, sent } = await run(purchase());
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(findCardData(text, [PAN])).toEqual([]);
    expect(text).not.toContain(API_KEY);
    expect(text).not.toContain(API_SECRET);
    expect(text).not.toContain(sent.headers.authorization as string);
    expect(text).not.toMatch(/"securityCode"\s*:\s*"737"/);
    expect(text).toMatch(/api-key: \[FILTERED\]/i);
    expect(text).toMatch(/authorization: \[FILTERED\]/i);
    expect(text).toContain('"terminalId":"10000001"');
    expect(text).toContain('"transactionState":"CAPTURED"');
  });
});
