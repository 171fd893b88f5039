import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { XMLParser } from 'fast-xml-parser';
import { worldpayGateway as worldpay } from '../../src/gateways/worldpay.gateway.js';
import { WORLDPAY_LIVE_BASE, WORLDPAY_TEST_BASE } from '../../src/gateways/worldpay/worldpay-api.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';
import { googlePanOnly, WALLET_CRYPTOGRAM, walletMethod } from '../helpers/wallet-methods.js';

/**
 * Canned-response tests of the Worldpay module (XML Direct, paymentService 1.4). The answers are
 * shaped as Worldpay's XML Direct reference shows them (orderStatus with lastEvent AUTHORISED /
 * REFUSED with ISO8583ReturnCode, AVSResultCode and CVCResultCode; reply/error with a code; the
 * modification replies ok/captureReceived, refundReceived, cancelReceived), as ActiveMerchant's
 * Worldpay test fixtures record them, served by a local HTTP server.
 */

const PASSWORD = 'XmlPassw0rd-worldpay-secret';
const CREDS = { login: 'COFFERECOM', password: PASSWORD };
const PAN = '4444333322221111'; // Worldpay's test Visa

const DOCTYPE = '<?xml version="1.0" encoding="UTF-8"?>\n<!DOCTYPE paymentService PUBLIC "-//WorldPay//DTD WorldPay PaymentService v1//EN" "http://dtd.worldpay.com/paymentService_v1.dtd">\n';
const service = (inner: string) => `${DOCTYPE}<paymentService version="1.4" merchantCode="COFFERECOM"><reply>${inner}</reply></paymentService>`;
const orderStatus = (code: string, payment: string) => service(`<orderStatus orderCode="${code}"><payment><paymentMethod>VISA-SSL</paymentMethod><amount value="1000" currencyCode="EUR" exponent="2" debitCreditIndicator="credit"/>${payment}<cardNumber>4444********1111</cardNumber><riskScore value="1"/></payment></orderStatus>`);
const AUTHORISED = (code: string) =>
  orderStatus(code, '<lastEvent>AUTHORISED</lastEvent><AuthorisationId id="830835"/><CVCResultCode description="APPROVED"/><AVSResultCode description="E"/><balance accountType="IN_PROCESS_AUTHORISED"><amount value="1000" currencyCode="EUR" exponent="2" debitCreditIndicator="credit"/></balance>');
const REFUSED = (code: string, iso = '5', text = 'REFUSED') => orderStatus(code, `<lastEvent>REFUSED</lastEvent><ISO8583ReturnCode code="${iso}" description="${text}"/><CVCResultCode description="FAILED"/><AVSResultCode description="NOT SUPPLIED BY SHOPPER"/>`);
const ERROR_REPLY = (code: string, message: string) => service(`<error code="${code}"><![CDATA[${message}]]></error>`);
const OK = (element: string, code: string) => service(`<ok><${element} orderCode="${code}"><amount value="1000" currencyCode="EUR" exponent="2" debitCreditIndicator="credit"/></${element}></ok>`);

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false });
const xmlOf = (request: FakeRequest) => parser.parse(request.rawBody) as Record<string, any>;

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
/** Answers in order (the last one repeats); a function gets the order code of the request. */
let answers: Array<(code: string) => FakeAnswer> = [];

function codeOf(request: FakeRequest): string {
  return /orderCode="([^"]+)"/.exec(request.rawBody)?.[1] ?? '';
}

async function run(request: GatewayRequest, timeoutMs = 3000): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest[] }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(worldpay, request, transcript, { http, override: fake.url, timeoutMs });
  return { response, transcript, sent: fake.requests.slice(before) };
}

async function fault(request: GatewayRequest, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(worldpay, request, [], { http, override: fake.url, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

const xml = (body: string, status = 200): FakeAnswer => ({ status, body, contentType: 'text/xml' });
const reference = (id: string, transactionType = 'Authorization') => ({ gatewayTransactionId: id, transactionType, amount: 1000 });
const authorizeRequest = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('authorize', CREDS, { paymentMethod: testCard(PAN), orderId: 'order-42', ...overrides });

beforeAll(async () => {
  fake = await FakeGatewayServer.start([
    {
      method: 'POST',
      path: '/jsp/merchant/xml/paymentService.jsp',
      handle: (request) => {
        const next = answers.length > 1 ? answers.shift() : answers[0];
        return (next as (code: string) => FakeAnswer)(codeOf(request));
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
  answers = [(code) => xml(AUTHORISED(code))];
});

describe('Worldpay: authorize and purchase', () => {
  it('POSTs submit/order with CARD-SSL, the DOCTYPE, version 1.4, the merchant code and Basic auth', async () => {
    const request = authorizeRequest({ amount: 1999, description: 'Tea', email: 'ada@example.com', ip: '192.0.2.1' });
    const { response, sent } = await run(request);
    expect(sent).toHaveLength(1);
    const [order] = sent as [FakeRequest];
    expect(order.path).toBe('/jsp/merchant/xml/paymentService.jsp');
    expect(order.headers.authorization).toBe(`Basic ${Buffer.from(`COFFERECOM:${PASSWORD}`).toString('base64')}`);
    expect(order.headers['content-type']).toBe('text/xml');
    expect(order.rawBody.startsWith('<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE paymentService PUBLIC "-//WorldPay//DTD WorldPay PaymentService v1//EN" "http://dtd.worldpay.com/paymentService_v1.dtd"><paymentService version="1.4" merchantCode="COFFERECOM">')).toBe(true);
    expect(xmlOf(order).paymentService.submit).toEqual({
      order: {
        '@_orderCode': 'order-42',
        description: 'Tea',
        amount: { '@_value': '1999', '@_currencyCode': 'EUR', '@_exponent': '2' },
        paymentDetails: {
          'CARD-SSL': {
            cardNumber: PAN,
            expiryDate: { date: { '@_month': '03', '@_year': '2030' } },
            cardHolderName: 'Ada Lovelace',
            cvc: '737',
            cardAddress: { address: { address1: '12 St James Sq', postalCode: 'SW1Y 4JH', city: 'London', countryCode: 'GB' } },
          },
          session: { '@_shopperIPAddress': '192.0.2.1', '@_id': request.transactionToken },
        },
        shopper: { shopperEmailAddress: 'ada@example.com' },
      },
    });
    // Schema order: description, amount, paymentDetails, shopper; card fields in DTD order.
    expect(order.rawBody).toMatch(/<description>.*<amount .*<paymentDetails>.*<shopper>/);
    expect(order.rawBody).toMatch(/<cardNumber>.*<expiryDate>.*<cardHolderName>.*<cvc>.*<cardAddress>/);
    expect(response).toMatchObject({
      success: true,
      message: 'Transaction authorized',
      gatewayTransactionId: 'order-42',
      avsCode: 'I',
      cvvCode: 'M',
      specificResponseFields: { worldpay: { last_event: 'AUTHORISED', authorisation_id: '830835' } },
    });
  });

  it('purchase: authorizes then captures the same order with modify/orderModification', async () => {
    answers = [(code) => xml(AUTHORISED(code)), (code) => xml(OK('captureReceived', code))];
    const request = gatewayRequest('purchase', CREDS, { paymentMethod: testCard(PAN), amount: 1500 });
    const { response, sent } = await run(request);
    expect(sent).toHaveLength(2);
    const code = xmlOf(sent[0] as FakeRequest).paymentService.submit.order['@_orderCode'];
    expect(code).toBe(request.transactionToken);
    const capture = xmlOf(sent[1] as FakeRequest).paymentService.modify.orderModification;
    expect(capture['@_orderCode']).toBe(code);
    expect(capture.capture.amount).toEqual({ '@_value': '1500', '@_currencyCode': 'EUR', '@_exponent': '2' });
    expect(capture.capture.date['@_year']).toBe(String(new Date().getUTCFullYear()));
    expect(sent[1]?.headers['idempotency-key']).toBe(`${request.transactionToken}-capture`);
    expect(response).toMatchObject({ success: true, message: 'Transaction approved', gatewayTransactionId: code, specificResponseFields: { worldpay: { captured: true } } });
  });

  it('purchase: a merchant capturing at once answers CAPTURED, and no capture is sent', async () => {
    answers = [(code) => xml(orderStatus(code, '<lastEvent>CAPTURED</lastEvent>'))];
    const { response, sent } = await run(gatewayRequest('purchase', CREDS, { paymentMethod: testCard(PAN) }));
    expect(sent).toHaveLength(1);
    expect(response.success).toBe(true);
  });

  it('purchase: a refused capture fails; a capture that faults after the authorization is an unknown outcome', async () => {
    answers = [(code) => xml(AUTHORISED(code)), () => xml(ERROR_REPLY('5', 'Order has already been paid'))];
    expect((await run(gatewayRequest('purchase', CREDS, { paymentMethod: testCard(PAN) }))).response).toMatchObject({ success: false, errorCode: 'processing_error' });
    answers = [(code) => xml(AUTHORISED(code)), () => ({ status: 500, body: 'oops' })];
    expect(await fault(gatewayRequest('purchase', CREDS, { paymentMethod: testCard(PAN) }))).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('maps REFUSED with ISO8583ReturnCode 5 to card_declined, with AVS and CVC', async () => {
    answers = [(code) => xml(REFUSED(code))];
    const { response, sent } = await run(gatewayRequest('purchase', CREDS, { paymentMethod: testCard(PAN) }));
    expect(sent).toHaveLength(1);
    expect(response).toMatchObject({ success: false, message: 'REFUSED', errorCode: 'card_declined', avsCode: 'I', cvvCode: 'N', errorDetail: 'REFUSED: 5: REFUSED' });
  });

  it.each([
    ['51', 'LIMIT EXCEEDED', 'insufficient_funds'],
    ['33', 'CARD EXPIRED', 'expired_card'],
    ['55', 'INVALID SECURITY CODE', 'incorrect_cvc'],
    ['2', 'REFERRED', 'call_issuer'],
    ['41', 'LOST CARD', 'pickup_card'],
    ['34', 'FRAUD SUSPICION', 'card_declined'],
  ])('maps ISO8583ReturnCode %s (%s) to %s', async (iso, text, standard) => {
    answers = [(code) => xml(REFUSED(code, iso, text))];
    expect((await run(authorizeRequest())).response).toMatchObject({ success: false, errorCode: standard, message: text });
  });

  it('maps lastEvent ERROR to processing_error and reply errors by code', async () => {
    answers = [(code) => xml(orderStatus(code, '<lastEvent>ERROR</lastEvent>'))];
    expect((await run(authorizeRequest())).response).toMatchObject({ success: false, errorCode: 'processing_error' });
    answers = [(code) => xml(service(`<orderStatus orderCode="${code}"><error code="7"><![CDATA[Invalid payment details : Card number : 4444********1111]]></error></orderStatus>`))];
    expect((await run(authorizeRequest())).response).toMatchObject({ success: false, errorCode: 'invalid_number', errorDetail: 'error 7: Invalid payment details : Card number : 4444********1111' });
    answers = [() => xml(ERROR_REPLY('4', 'Security violation'))];
    expect((await run(authorizeRequest())).response).toMatchObject({ errorCode: 'config_error' });
    answers = [() => xml(ERROR_REPLY('2', 'Parse error'))];
    expect((await run(authorizeRequest())).response).toMatchObject({ errorCode: 'processing_error', message: 'Parse error' });
  });

  it('maps AVS and CVC letters as ActiveMerchant does, and words', async () => {
    answers = [(code) => xml(orderStatus(code, '<lastEvent>AUTHORISED</lastEvent><CVCResultCode description="D"/><AVSResultCode description="A"/>'))];
    expect((await run(authorizeRequest())).response).toMatchObject({ avsCode: 'M', cvvCode: 'N' });
    answers = [(code) => xml(orderStatus(code, '<lastEvent>AUTHORISED</lastEvent><CVCResultCode description="NOT SENT TO ACQUIRER"/><AVSResultCode description="UNKNOWN"/>'))];
    expect((await run(authorizeRequest())).response).toMatchObject({ avsCode: 'U', cvvCode: 'P' });
  });

  it('a lastEvent that is not final (SENT_FOR_AUTHORISATION) is an unknown outcome', async () => {
    answers = [(code) => xml(orderStatus(code, '<lastEvent>SENT_FOR_AUTHORISATION</lastEvent>'))];
    expect(await fault(authorizeRequest())).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('401 is a config_error', async () => {
    answers = [() => ({ status: 401, body: '<html>401 Unauthorized</html>', contentType: 'text/html' })];
    expect((await run(authorizeRequest())).response).toMatchObject({ success: false, errorCode: 'config_error', message: 'Invalid credentials' });
  });

  it('amounts carry their exponent: JPY 0, KWD 3, HUF 0 (Worldpay), and the order code is cleaned', async () => {
    const amount = async (value: number, currencyCode: string) => xmlOf((await run(authorizeRequest({ amount: value, currencyCode }))).sent[0] as FakeRequest).paymentService.submit.order.amount;
    expect(await amount(1500, 'JPY')).toEqual({ '@_value': '1500', '@_currencyCode': 'JPY', '@_exponent': '0' });
    expect(await amount(1234, 'KWD')).toEqual({ '@_value': '1234', '@_currencyCode': 'KWD', '@_exponent': '3' });
    expect(await amount(150000, 'HUF')).toEqual({ '@_value': '1500', '@_currencyCode': 'HUF', '@_exponent': '0' });
    const before = fake.requests.length;
    expect((await run(authorizeRequest({ amount: 150050, currencyCode: 'HUF' }))).response).toMatchObject({ success: false, errorCode: 'invalid_amount' });
    expect(fake.requests.length).toBe(before);
    const { sent } = await run(authorizeRequest({ orderId: `a b|<c>'"${'x'.repeat(80)}` }));
    expect(codeOf(sent[0] as FakeRequest)).toBe(`abc${'x'.repeat(61)}`);
  });

  it('escapes text and sends no address when the card has no country', async () => {
    const { sent } = await run(authorizeRequest({ description: 'Tea & <cake>', paymentMethod: testCard(PAN, { cvc: null, address: false }) }));
    const body = (sent[0] as FakeRequest).rawBody;
    expect(body).toContain('<description>Tea &amp; &lt;cake&gt;</description>');
    expect(body).not.toContain('cardAddress');
    expect(body).not.toContain('<cvc>');
  });
});

describe('Worldpay: wallet tokens (Apple Pay, Google Pay)', () => {
  const detailsOf = (request: FakeRequest) => xmlOf(request).paymentService.submit.order.paymentDetails;

  it('sends an Apple Pay DPAN as EMVCO_TOKEN-SSL type APPLEPAY with the cryptogram and two-digit ECI; the transcript holds neither', async () => {
    const { response, sent, transcript } = await run(authorizeRequest({ paymentMethod: walletMethod(PAN) }));
    expect(response.success).toBe(true);
    expect(detailsOf(sent[0] as FakeRequest)['EMVCO_TOKEN-SSL']).toEqual({
      '@_type': 'APPLEPAY',
      tokenNumber: PAN,
      expiryDate: { date: { '@_month': '12', '@_year': '2034' } },
      cardHolderName: 'Ada Lovelace',
      cryptogram: WALLET_CRYPTOGRAM,
      eciIndicator: '07',
    });
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(text).not.toContain(WALLET_CRYPTOGRAM);
    expect(text).not.toContain(PAN);
  });

  it('types a Google Pay DPAN GOOGLEPAY, sends no cryptogram on a merchant-initiated charge, and a PAN_ONLY card as CARD-SSL', async () => {
    const mit = detailsOf((await run(authorizeRequest({ paymentMethod: walletMethod(PAN, { type: 'google_pay' }), storedCredential: { initiator: 'merchant', reasonType: 'recurring', networkTransactionId: null } }))).sent[0] as FakeRequest);
    expect(mit['EMVCO_TOKEN-SSL']['@_type']).toBe('GOOGLEPAY');
    expect(mit['EMVCO_TOKEN-SSL'].cryptogram).toBeUndefined();
    expect(mit['EMVCO_TOKEN-SSL'].eciIndicator).toBeUndefined();
    const card = detailsOf((await run(authorizeRequest({ paymentMethod: googlePanOnly(PAN) }))).sent[0] as FakeRequest);
    expect(card['CARD-SSL']).toMatchObject({ cardNumber: PAN, cardHolderName: 'Ada Lovelace' });
  });
});

describe('Worldpay: capture, credit, void, verify', () => {
  it('captures part of an order', async () => {
    answers = [(code) => xml(OK('captureReceived', code))];
    const request = gatewayRequest('capture', CREDS, { amount: 600, reference: reference('order-42') });
    const { response, sent } = await run(request);
    const modification = xmlOf(sent[0] as FakeRequest).paymentService.modify.orderModification;
    expect(modification['@_orderCode']).toBe('order-42');
    expect(modification.capture.amount).toEqual({ '@_value': '600', '@_currencyCode': 'EUR', '@_exponent': '2' });
    expect(sent[0]?.headers['idempotency-key']).toBe(request.transactionToken);
    expect(response).toMatchObject({ success: true, message: 'Capture received', gatewayTransactionId: 'order-42' });
  });

  it('refunds with debitCreditIndicator credit', async () => {
    answers = [(code) => xml(OK('refundReceived', code))];
    const { response, sent } = await run(gatewayRequest('credit', CREDS, { amount: 250, reference: reference('order-42', 'Capture') }));
    expect(xmlOf(sent[0] as FakeRequest).paymentService.modify.orderModification.refund.amount).toEqual({ '@_value': '250', '@_currencyCode': 'EUR', '@_exponent': '2', '@_debitCreditIndicator': 'credit' });
    expect(response).toMatchObject({ success: true, message: 'Refund received' });
  });

  it('cancels an authorization, or cancelOrRefund on request', async () => {
    answers = [(code) => xml(service(`<ok><cancelReceived orderCode="${code}"/></ok>`))];
    const { response, sent } = await run(gatewayRequest('void', CREDS, { reference: reference('order-42') }));
    expect((sent[0] as FakeRequest).rawBody).toContain('<orderModification orderCode="order-42"><cancel/></orderModification>');
    expect(response).toMatchObject({ success: true, message: 'Cancellation received' });
    answers = [(code) => xml(service(`<ok><voidReceived orderCode="${code}"/></ok>`))];
    const either = await run(gatewayRequest('void', CREDS, { reference: reference('order-42'), gatewaySpecificFields: { cancel_or_refund: true } }));
    expect((either.sent[0] as FakeRequest).rawBody).toContain('<cancelOrRefund/>');
    expect(either.response.success).toBe(true);
    answers = [() => xml(ERROR_REPLY('5', 'Order not ready'))];
    expect((await run(gatewayRequest('void', CREDS, { reference: reference('order-42') }))).response).toMatchObject({ success: false, message: 'Order not ready' });
  });

  it('verifies with an authorization of 1.00 and cancels it', async () => {
    answers = [(code) => xml(AUTHORISED(code)), (code) => xml(service(`<ok><cancelReceived orderCode="${code}"/></ok>`))];
    const { response, sent } = await run(gatewayRequest('verify', CREDS, { paymentMethod: testCard(PAN), currencyCode: null }));
    expect(xmlOf(sent[0] as FakeRequest).paymentService.submit.order.amount).toEqual({ '@_value': '100', '@_currencyCode': 'USD', '@_exponent': '2' });
    expect((sent[1] as FakeRequest).rawBody).toContain('<cancel/>');
    expect(response).toMatchObject({ success: true, message: 'Card verified' });
  });

  it('a modification answer without its ok element is a fault', async () => {
    answers = [(code) => xml(service(`<ok><refundReceived orderCode="${code}"/></ok>`))];
    expect(await fault(gatewayRequest('capture', CREDS, { reference: reference('order-42') }))).toMatchObject({ name: 'GatewayFaultError', detail: 'reply/ok/captureReceived: missing' });
  });
});

describe('Worldpay: store (paymentTokenCreate) and stored cards', () => {
  const TOKEN_REPLY = (shopper: string) =>
    service(
      `<token><authenticatedShopperID>${shopper}</authenticatedShopperID><tokenEventReference>TOK7854321</tokenEventReference><tokenDetails tokenEvent="NEW"><paymentTokenID>99411111780163871111</paymentTokenID><paymentTokenExpiry><date dayOfMonth="13" month="06" year="2031"/></paymentTokenExpiry></tokenDetails><paymentInstrument><cardDetails><expiryDate><date month="03" year="2030"/></expiryDate><cardHolderName><![CDATA[Ada Lovelace]]></cardHolderName><derived><cardBrand>VISA</cardBrand><obfuscatedPAN>4444********1111</obfuscatedPAN></derived></cardDetails></paymentInstrument></token>`,
    );

  it('creates a shopper-scoped token: authenticatedShopperID, createToken, paymentInstrument/cardDetails', async () => {
    answers = [() => xml(TOKEN_REPLY('shopper-1'))];
    const request = gatewayRequest('store', CREDS, { paymentMethod: testCard(PAN), gatewaySpecificFields: { authenticated_shopper_id: 'shopper-1' } });
    const { response, sent } = await run(request);
    const create = xmlOf(sent[0] as FakeRequest).paymentService.submit.paymentTokenCreate;
    expect(create.authenticatedShopperID).toBe('shopper-1');
    expect(create.createToken).toEqual({ tokenEventReference: request.transactionToken });
    expect(create.paymentInstrument.cardDetails).toMatchObject({ cardNumber: PAN, expiryDate: { date: { '@_month': '03', '@_year': '2030' } }, cardHolderName: 'Ada Lovelace', cvc: '737' });
    expect((sent[0] as FakeRequest).rawBody).toMatch(/<authenticatedShopperID>.*<createToken>.*<paymentInstrument>/);
    expect(response).toMatchObject({ success: true, thirdPartyToken: 'shopper-1|99411111780163871111', gatewayTransactionId: '99411111780163871111' });
  });

  it('a token reply without paymentTokenID is a fault; an error reply a failure', async () => {
    answers = [() => xml(service('<token><authenticatedShopperID>s</authenticatedShopperID></token>'))];
    expect(await fault(gatewayRequest('store', CREDS, { paymentMethod: testCard(PAN) }))).toMatchObject({ name: 'GatewayFaultError', detail: 'reply/token/tokenDetails/paymentTokenID: missing' });
    answers = [() => xml(ERROR_REPLY('5', 'Invalid content'))];
    expect((await run(gatewayRequest('store', CREDS, { paymentMethod: testCard(PAN) }))).response).toMatchObject({ success: false, errorCode: 'processing_error' });
  });

  it('authorizes with a stored card: TOKEN-SSL tokenScope shopper and the shopper id, no card number', async () => {
    const { response, sent } = await run(authorizeRequest({ paymentMethod: { type: 'third_party_token', token: 'shopper-1|99411111780163871111' } }));
    const order = xmlOf(sent[0] as FakeRequest).paymentService.submit.order;
    expect(order.paymentDetails).toEqual({ 'TOKEN-SSL': { '@_tokenScope': 'shopper', paymentTokenID: '99411111780163871111' } });
    expect(order.shopper).toEqual({ authenticatedShopperID: 'shopper-1' });
    expect((sent[0] as FakeRequest).rawBody).not.toContain('cardNumber');
    expect(response.success).toBe(true);
    const bad = await run(authorizeRequest({ paymentMethod: { type: 'third_party_token', token: 'no-separator' } }));
    expect(bad.response).toMatchObject({ success: false, errorCode: 'invalid_number' });
  });
});

describe('Worldpay: answers that are not answers', () => {
  it('5xx, garbage, no reply, no lastEvent, external entities and a reset are faults; a timeout an unknown outcome', async () => {
    fake.setMode('error500');
    expect(await fault(authorizeRequest())).toMatchObject({ name: 'GatewayFaultError', detail: 'HTTP 500' });
    fake.setMode('garbage');
    expect(await fault(authorizeRequest())).toBeInstanceOf(GatewayFaultError);
    fake.setMode('normal');
    answers = [() => xml(`${DOCTYPE}<paymentService version="1.4" merchantCode="COFFERECOM"><notify/></paymentService>`)];
    expect(await fault(authorizeRequest())).toMatchObject({ name: 'GatewayFaultError', detail: 'paymentService/reply: missing' });
    answers = [(code) => xml(service(`<orderStatus orderCode="${code}"><payment><amount value="1"/></payment></orderStatus>`))];
    expect(await fault(authorizeRequest())).toMatchObject({ name: 'GatewayFaultError', detail: 'orderStatus/payment/lastEvent: missing' });
    answers = [() => xml('<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><paymentService><reply>&x;</reply></paymentService>')];
    expect(await fault(authorizeRequest())).toBeInstanceOf(GatewayFaultError);
    fake.setMode('hang');
    expect(await fault(authorizeRequest(), 300)).toBeInstanceOf(GatewayResultUnknownError);
    fake.setMode('reset');
    expect(await fault(authorizeRequest())).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('unknown elements in an answer are ignored', async () => {
    answers = [(code) => xml(orderStatus(code, '<lastEvent>AUTHORISED</lastEvent><somethingNew a="1"><x/></somethingNew>'))];
    expect((await run(authorizeRequest())).response.success).toBe(true);
  });
});

describe('Worldpay: endpoints, definition and scrubbing', () => {
  it('secure-test.worldpay.com in test mode, secure.worldpay.com live', () => {
    expect(worldpay.endpoint?.(authorizeRequest())).toBe(WORLDPAY_TEST_BASE);
    expect(worldpay.endpoint?.(authorizeRequest({ testMode: false }))).toBe(WORLDPAY_LIVE_BASE);
    expect(WORLDPAY_TEST_BASE).toBe('https://secure-test.worldpay.com');
    expect(WORLDPAY_LIVE_BASE).toBe('https://secure.worldpay.com');
  });

  it('advertises what it implements under the Spreedly gateway_type and credential names', () => {
    expect(worldpay.definition.gatewayType).toBe('worldpay');
    expect([...worldpay.definition.characteristics].sort()).toEqual(['supports_authorize', 'supports_capture', 'supports_credit', 'supports_purchase', 'supports_store', 'supports_verify', 'supports_void']);
    expect(worldpay.definition.authModes[0]?.credentials.map((field) => [field.name, field.safe])).toEqual([['login', true], ['password', false]]);
  });

  it('keeps no PAN, CVC or password in the transcript', async () => {
    answers = [(code) => xml(AUTHORISED(code)), (code) => xml(OK('captureReceived', code))];
    const { transcript } = await run(gatewayRequest('purchase', CREDS, { paymentMethod: testCard(PAN) }));
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(findCardData(text, [PAN])).toEqual([]);
    expect(text).not.toContain(PASSWORD);
    expect(text).not.toContain(Buffer.from(`COFFERECOM:${PASSWORD}`).toString('base64'));
    expect(text).not.toContain('<cvc>737</cvc>');
    expect(text).toContain('<cardNumber>[FILTERED]</cardNumber>');
    expect(text).toContain('<lastEvent>AUTHORISED</lastEvent>');
    expect(text).toContain(`POST ${fake.url}/jsp/merchant/xml/paymentService.jsp`);
  });
});
