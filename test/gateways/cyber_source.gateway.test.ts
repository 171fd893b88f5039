import { XMLParser } from 'fast-xml-parser';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cyberSourceGateway } from '../../src/gateways/cyber_source.gateway.js';
import { CYBERSOURCE_LIVE_BASE, CYBERSOURCE_TEST_BASE } from '../../src/gateways/cyber_source/cybersource-soap-api.js';
import { executeOperation, GatewayFaultError, GatewayResultUnknownError, type GatewayRequest, type GatewayResponse, type TranscriptEntry } from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { FakeGatewayServer, type FakeAnswer, type FakeRequest } from '../fakes/fake-gateway-server.js';
import { soapFault } from '../fakes/fake-cybersource-soap.js';
import { gatewayRequest, testCard } from '../helpers/gateway-requests.js';
import { findCardData } from '../helpers/leak-scan.js';
import { Secret } from '../../src/domain/secret.js';
import { googlePanOnly, WALLET_CRYPTOGRAM, walletMethod } from '../helpers/wallet-methods.js';

/**
 * Canned-response tests of the CyberSource SOAP Toolkit module (Simple Order API 1.201). The
 * replies are shaped like the samples of CyberSource's SOAP Toolkit guides (replyMessage with
 * decision, reasonCode, requestID, requestToken and one reply element per service) as
 * ActiveMerchant's CyberSource unit tests also record them. Each test asserts the exact envelope
 * sent (WS-Security header, namespace, element order) and how the reply maps.
 */

const KEY = 'q8W2mZ0tUe7Tq1xJk9VhR3yL5bN6cD4fG8hJ2kL0mN4pQ6rS8tU0vW2xY4zA6bC8dE0fG2hJ4kL6mN8pQ0rS2tU==';
const PAN = '4111111111111111';
const CREDENTIALS = { user_name: 'coffer_merchant', transaction_key: KEY };
const NS = 'urn:schemas-cybersource-com:transaction-data-1.201';

function reply(fields: string): string {
  return `<?xml version="1.0" encoding="utf-8"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header><wsse:Security xmlns:wsse="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd"><wsu:Timestamp xmlns:wsu="http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-utility-1.0.xsd" wsu:Id="Timestamp-2636690"><wsu:Created>2026-01-15T21:42:03.343Z</wsu:Created></wsu:Timestamp></wsse:Security></soap:Header><soap:Body><c:replyMessage xmlns:c="${NS}">${fields}</c:replyMessage></soap:Body></soap:Envelope>`;
}

const HEAD = (decision: string, reason: string, id = '2004333231260008401927', token = 'Afvvj7Ke2Fmsbq0wHFE2sM6R4GAptYZ0jwPSA+R9PhkyhFTb0KRjoE4') =>
  `<c:merchantReferenceCode>order-42</c:merchantReferenceCode><c:requestID>${id}</c:requestID><c:decision>${decision}</c:decision><c:reasonCode>${reason}</c:reasonCode><c:requestToken>${token}</c:requestToken>`;
const AUTH_REPLY = '<c:ccAuthReply><c:reasonCode>100</c:reasonCode><c:amount>19.99</c:amount><c:authorizationCode>123456</c:authorizationCode><c:avsCode>Y</c:avsCode><c:avsCodeRaw>Y</c:avsCodeRaw><c:cvCode>M</c:cvCode><c:cvCodeRaw>M</c:cvCodeRaw><c:authorizedDateTime>2026-01-15T21:42:03Z</c:authorizedDateTime><c:processorResponse>00</c:processorResponse><c:reconciliationID>23439130C40VZ2FB</c:reconciliationID><c:paymentNetworkTransactionID>016150703802094</c:paymentNetworkTransactionID></c:ccAuthReply>';
const SALE = reply(`${HEAD('ACCEPT', '100')}<c:purchaseTotals><c:currency>USD</c:currency></c:purchaseTotals>${AUTH_REPLY}<c:ccCaptureReply><c:reasonCode>100</c:reasonCode><c:amount>19.99</c:amount><c:reconciliationID>31159291T3XM2B13</c:reconciliationID></c:ccCaptureReply>`);
const DECLINED = reply(`${HEAD('REJECT', '203', '2004338415330008402434')}<c:ccAuthReply><c:reasonCode>203</c:reasonCode><c:avsCode>N</c:avsCode><c:cvCode>N</c:cvCode><c:processorResponse>05</c:processorResponse></c:ccAuthReply>`);
const MISSING = reply(`${HEAD('REJECT', '101', '5676453399086696204061')}<c:missingField>c:billTo/c:country</c:missingField><c:missingField>c:billTo/c:email</c:missingField><c:ccAuthReply><c:reasonCode>101</c:reasonCode></c:ccAuthReply>`);
const INVALID_CARD = reply(`${HEAD('REJECT', '102', '5676926465076767004068')}<c:invalidField>c:card/c:accountNumber</c:invalidField>`);
const REVIEW = reply(`${HEAD('REVIEW', '480', '1842651133440156177166')}${AUTH_REPLY}`);
const CAPTURED = reply(`${HEAD('ACCEPT', '100', '1846925324700976124593', 'AP4JZB883WKS')}<c:purchaseTotals><c:currency>USD</c:currency></c:purchaseTotals><c:ccCaptureReply><c:reasonCode>100</c:reasonCode><c:amount>6.00</c:amount><c:reconciliationID>31159291T3XM2B13</c:reconciliationID></c:ccCaptureReply>`);
const REFUNDED = reply(`${HEAD('ACCEPT', '100', '2009312387810008401927', 'Af/vj7OzPmut')}<c:ccCreditReply><c:reasonCode>100</c:reasonCode><c:amount>2.50</c:amount><c:reconciliationID>010112295WW70TBOPSSP2</c:reconciliationID></c:ccCreditReply>`);
const REVERSED = reply(`${HEAD('ACCEPT', '100', '4694810311256262804010', 'Ahj//wSR/QMp')}<c:ccAuthReversalReply><c:reasonCode>100</c:reasonCode><c:amount>10.00</c:amount><c:processorResponse>100</c:processorResponse></c:ccAuthReversalReply>`);
const VOIDED = reply(`${HEAD('ACCEPT', '100', '4694798504476543904007', 'Ahj//wSR/QLV')}<c:voidReply><c:reasonCode>100</c:reasonCode><c:amount>10.00</c:amount><c:currency>usd</c:currency></c:voidReply>`);
const SUBSCRIBED = reply(`${HEAD('ACCEPT', '100', '2240165983980008402433', 'AhjzbwSP5cIx')}<c:paySubscriptionCreateReply><c:reasonCode>100</c:reasonCode><c:subscriptionID>2240165983980008402433</c:subscriptionID></c:paySubscriptionCreateReply>`);

let fake: FakeGatewayServer;
let http: GatewayHttpClient;
let next: FakeAnswer;

const parser = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '@_', parseTagValue: false });

/** The envelope sent, parsed with its prefixes kept. */
function envelope(request: FakeRequest): Record<string, any> {
  return (parser.parse(request.rawBody) as Record<string, any>)['soap:Envelope'];
}

/** requestMessage's children, in order, names only. */
function childOrder(request: FakeRequest): string[] {
  const body = request.rawBody.slice(request.rawBody.indexOf('<requestMessage'));
  const names: string[] = [];
  let depth = 0;
  for (const match of body.matchAll(/<(\/?)([A-Za-z]+)[^>]*?(\/?)>/g)) {
    if (match[2] === 'requestMessage') continue;
    if (match[1] === '/') depth -= 1;
    else {
      if (depth === 0) names.push(match[2] as string);
      if (match[3] !== '/') depth += 1;
    }
  }
  return names;
}

const message = (request: FakeRequest) => envelope(request)['soap:Body'].requestMessage as Record<string, any>;

async function run(request: GatewayRequest): Promise<{ response: GatewayResponse; transcript: TranscriptEntry[]; sent: FakeRequest }> {
  const transcript: TranscriptEntry[] = [];
  const before = fake.requests.length;
  const response = await executeOperation(cyberSourceGateway, request, transcript, { http, override: fake.url, timeoutMs: 3000 });
  expect(fake.requests.length - before).toBeLessThanOrEqual(1);
  return { response, transcript, sent: fake.requests[fake.requests.length - 1] as FakeRequest };
}

async function fault(request: GatewayRequest, timeoutMs = 3000): Promise<unknown> {
  try {
    await executeOperation(cyberSourceGateway, request, [], { http, override: fake.url, timeoutMs });
  } catch (error) {
    return error;
  }
  throw new Error('expected the module to throw');
}

const purchase = (overrides: Partial<GatewayRequest> = {}) => gatewayRequest('purchase', CREDENTIALS, { paymentMethod: testCard(PAN), currencyCode: 'USD', ...overrides });
const reference = (id: string, transactionType = 'Authorization', amount = 1000) => ({ gatewayTransactionId: id, transactionType, amount });

beforeAll(async () => {
  fake = await FakeGatewayServer.start([{ method: 'POST', path: '/commerce/1.x/transactionProcessor', handle: () => next }], { garbageBody: '<html><body>Service Unavailable</body></html>' });
  http = new GatewayHttpClient();
});

afterAll(async () => {
  await http.close();
  await fake.close();
});

beforeEach(() => {
  fake.setMode('normal');
  next = { body: SALE, contentType: 'text/xml' };
});

describe('CyberSource SOAP: the envelope', () => {
  it('POSTs a SOAP 1.1 envelope with the runTransaction action and a WS-Security UsernameToken (PasswordText) to the test processor', async () => {
    const { sent } = await run(purchase({ orderId: 'order-42', amount: 1999, ip: '192.0.2.1' }));
    expect(sent.method).toBe('POST');
    expect(sent.path).toBe('/commerce/1.x/transactionProcessor');
    expect(sent.headers['content-type']).toBe('text/xml; charset=utf-8');
    expect(sent.headers.soapaction).toBe('runTransaction');
    const sentEnvelope = envelope(sent);
    expect(sentEnvelope['@_xmlns:soap']).toBe('http://schemas.xmlsoap.org/soap/envelope/');
    const security = sentEnvelope['soap:Header']['wsse:Security'];
    expect(security['@_xmlns:wsse']).toBe('http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-wssecurity-secext-1.0.xsd');
    expect(security['wsse:UsernameToken']).toEqual({
      'wsse:Username': 'coffer_merchant',
      'wsse:Password': { '#text': KEY, '@_Type': 'http://docs.oasis-open.org/wss/2004/01/oasis-200401-wss-username-token-profile-1.0#PasswordText' },
    });
    const body = message(sent);
    expect(body['@_xmlns']).toBe(NS);
    expect(childOrder(sent)).toEqual(['merchantID', 'merchantReferenceCode', 'billTo', 'purchaseTotals', 'card', 'ccAuthService', 'ccCaptureService']);
    // Well-formed service elements: the attribute keeps its value (`run="true"`, never a bare `run`).
    expect(sent.rawBody).toContain('<ccAuthService run="true"/><ccCaptureService run="true"/>');
    expect(sent.rawBody).toContain('<soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Header><wsse:Security');
    expect(body).toMatchObject({
      merchantID: 'coffer_merchant',
      merchantReferenceCode: 'order-42',
      billTo: { firstName: 'Ada', lastName: 'Lovelace', street1: '12 St James Sq', city: 'London', postalCode: 'SW1Y 4JH', country: 'GB', email: 'ada@example.com', ipAddress: '192.0.2.1' },
      purchaseTotals: { currency: 'USD', grandTotalAmount: '19.99' },
      card: { accountNumber: PAN, expirationMonth: '03', expirationYear: '2030', cvNumber: '737', cardType: '001' },
      ccAuthService: { '@_run': 'true' },
      ccCaptureService: { '@_run': 'true' },
    });
  });

  it('uses the live processor outside sandbox, and the transaction token as merchantReferenceCode without an order id', async () => {
    const request = purchase({ testMode: false });
    const { sent } = await run(request);
    expect(message(sent).merchantReferenceCode).toBe(request.transactionToken);
    expect(cyberSourceGateway.endpoint?.(request)).toBe(CYBERSOURCE_LIVE_BASE);
    expect(cyberSourceGateway.endpoint?.({ ...request, testMode: true })).toBe(CYBERSOURCE_TEST_BASE);
  });

  it('writes grandTotalAmount in the currency’s own decimals (JPY none, KWD three)', async () => {
    const yen = message((await run(purchase({ amount: 1500, currencyCode: 'JPY' }))).sent);
    expect(yen.purchaseTotals).toEqual({ currency: 'JPY', grandTotalAmount: '1500' });
    const dinar = message((await run(purchase({ amount: 1234, currencyCode: 'KWD' }))).sent);
    expect(dinar.purchaseTotals).toEqual({ currency: 'KWD', grandTotalAmount: '1.234' });
    const cents = message((await run(purchase({ amount: 5 }))).sent);
    expect(cents.purchaseTotals.grandTotalAmount).toBe('0.05');
  });

  it('refuses a missing transaction key, a bank account and a card without expiry without sending', async () => {
    const before = fake.requests.length;
    expect((await run(gatewayRequest('purchase', { user_name: 'm' }, { currencyCode: 'USD' }))).response).toMatchObject({ success: false, errorCode: 'config_error' });
    const bank = { type: 'bank_account', routingNumber: { reveal: () => '1' }, accountNumber: { reveal: () => '2' }, accountType: null, holderType: null, firstName: null, lastName: null } as never;
    expect((await run(purchase({ paymentMethod: bank }))).response).toMatchObject({ success: false, errorCode: 'unsupported_feature' });
    expect((await run(purchase({ paymentMethod: { ...testCard(PAN), month: null } as never }))).response).toMatchObject({ success: false, errorCode: 'invalid_expiry_date' });
    expect(fake.requests.length).toBe(before);
  });
});

describe('CyberSource SOAP: purchase, authorize and their answers', () => {
  it('maps an ACCEPT 100 sale: requestID;requestToken as the id, AVS, CVN and the network transaction id', async () => {
    const { response } = await run(purchase({ orderId: 'order-42', amount: 1999 }));
    expect(response).toMatchObject({
      success: true,
      message: 'Transaction approved',
      gatewayTransactionId: '2004333231260008401927;Afvvj7Ke2Fmsbq0wHFE2sM6R4GAptYZ0jwPSA+R9PhkyhFTb0KRjoE4',
      errorCode: null,
      avsCode: 'Y',
      cvvCode: 'M',
      cvvMessage: 'Match',
      networkTransactionId: '016150703802094',
      specificResponseFields: { cyber_source: { decision: 'ACCEPT', reason_code: '100', authorization_code: '123456', processor_response: '00', reconciliation_id: '23439130C40VZ2FB' } },
    });
  });

  it('authorizes with ccAuthService alone', async () => {
    const { sent, response } = await run(gatewayRequest('authorize', CREDENTIALS, { paymentMethod: testCard(PAN, { cvc: null, address: false }), currencyCode: 'EUR' }));
    expect(childOrder(sent)).toEqual(['merchantID', 'merchantReferenceCode', 'billTo', 'purchaseTotals', 'card', 'ccAuthService']);
    expect(message(sent).card).not.toHaveProperty('cvNumber');
    expect(message(sent).billTo).not.toHaveProperty('street1');
    expect(response).toMatchObject({ success: true, message: 'Transaction authorized' });
  });

  it('charges a stored profile by subscriptionID, without card or billTo', async () => {
    const { sent } = await run(purchase({ paymentMethod: { type: 'third_party_token', token: '2240165983980008402433' } }));
    expect(childOrder(sent)).toEqual(['merchantID', 'merchantReferenceCode', 'purchaseTotals', 'recurringSubscriptionInfo', 'ccAuthService', 'ccCaptureService']);
    expect(message(sent).recurringSubscriptionInfo).toEqual({ subscriptionID: '2240165983980008402433' });
  });

  it('sends stored-credential fields: subsequentAuthFirst on the first CIT, subsequentAuth with the network id on an unscheduled MIT', async () => {
    const first = message((await run(purchase({ storedCredential: { initiator: 'cardholder', reasonType: 'recurring', networkTransactionId: null } }))).sent);
    expect(first.ccAuthService).toEqual({ '@_run': 'true', commerceIndicator: 'recurring' });
    expect(first.subsequentAuthFirst).toBe('true');
    const mitRequest = purchase({ storedCredential: { initiator: 'merchant', reasonType: 'unscheduled', networkTransactionId: '016150703802094' } });
    const mit = await run(mitRequest);
    expect(childOrder(mit.sent).slice(-3)).toEqual(['subsequentAuth', 'subsequentAuthTransactionID', 'subsequentAuthStoredCredential']);
    expect(message(mit.sent)).toMatchObject({ ccAuthService: { commerceIndicator: 'internet' }, subsequentAuth: 'true', subsequentAuthTransactionID: '016150703802094', subsequentAuthStoredCredential: 'true' });
  });

  it('maps a REJECT 203 to card_declined with AVS and CVN, and no id', async () => {
    next = { body: DECLINED };
    expect((await run(purchase())).response).toMatchObject({ success: false, message: 'General decline of the card', errorCode: 'card_declined', errorDetail: 'REJECT 203', gatewayTransactionId: null, avsCode: 'N', cvvCode: 'N' });
  });

  it.each([
    ['202', 'expired_card'],
    ['204', 'insufficient_funds'],
    ['205', 'pickup_card'],
    ['201', 'call_issuer'],
    ['211', 'invalid_cvc'],
    ['230', 'incorrect_cvc'],
    ['200', 'incorrect_address'],
    ['231', 'invalid_number'],
    ['234', 'config_error'],
    ['235', 'invalid_amount'],
    ['481', 'card_declined'],
    ['999', 'card_declined'],
  ])('maps reason code %s to %s', async (reason, standard) => {
    next = { body: reply(`${HEAD('REJECT', reason)}<c:ccAuthReply><c:reasonCode>${reason}</c:reasonCode></c:ccAuthReply>`) };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: standard });
  });

  it('names the missing or invalid field of a 101/102, and maps a card field to its code', async () => {
    next = { body: MISSING };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'processing_error', message: 'Request is missing one or more required fields: c:billTo/c:country, c:billTo/c:email' });
    next = { body: INVALID_CARD };
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'invalid_number', message: 'One or more fields contains invalid data: c:card/c:accountNumber' });
  });

  it('holds a REVIEW 480: not a success, fraud review, the ids kept', async () => {
    next = { body: REVIEW };
    expect((await run(purchase())).response).toMatchObject({ success: false, fraudReview: true, gatewayTransactionId: '1842651133440156177166;Afvvj7Ke2Fmsbq0wHFE2sM6R4GAptYZ0jwPSA+R9PhkyhFTb0KRjoE4', errorCode: 'processing_error' });
  });

  it('treats 151, 152 and 250 (received, timed out inside CyberSource) as unknown outcomes, and ERROR 150 as a fault', async () => {
    for (const reason of ['151', '152', '250']) {
      next = { body: reply(HEAD('ERROR', reason)) };
      expect(await fault(purchase())).toBeInstanceOf(GatewayResultUnknownError);
    }
    next = { body: reply(HEAD('ERROR', '150')) };
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
  });

  it('turns the WS-Security fault (HTTP 500 wsse:FailedCheck) into config_error, and other SOAP faults into faults', async () => {
    next = soapFault('wsse:FailedCheck', 'Security Data : UsernameToken authentication failed.');
    expect((await run(purchase())).response).toMatchObject({ success: false, errorCode: 'config_error', message: 'Security Data : UsernameToken authentication failed.' });
    next = soapFault('soap:Server', 'Internal error');
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
  });
});

describe('CyberSource SOAP: wallet tokens (Apple Pay, Google Pay)', () => {
  beforeEach(() => {
    next = { body: SALE, contentType: 'text/xml' };
  });

  it('sends an Apple Pay Visa DPAN with the cryptogram as cavv and xid, vbv, paymentNetworkToken 1 and paymentSolution 001, in schema order', async () => {
    const { response, sent, transcript } = await run(purchase({ paymentMethod: walletMethod(PAN) }));
    expect(response.success).toBe(true);
    expect(childOrder(sent)).toEqual(['merchantID', 'merchantReferenceCode', 'billTo', 'purchaseTotals', 'card', 'ccAuthService', 'ccCaptureService', 'paymentNetworkToken', 'paymentSolution']);
    const sentMessage = message(sent);
    expect(sentMessage.card).toMatchObject({ accountNumber: PAN, expirationMonth: '12', expirationYear: '2034', cardType: '001' });
    expect(sentMessage.card.cvNumber).toBeUndefined();
    expect(sentMessage.ccAuthService).toMatchObject({ cavv: WALLET_CRYPTOGRAM, commerceIndicator: 'vbv', xid: WALLET_CRYPTOGRAM });
    expect(sentMessage.paymentNetworkToken).toEqual({ transactionType: '1' });
    expect(sentMessage.paymentSolution).toBe('001');
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(text).not.toContain(WALLET_CRYPTOGRAM);
    expect(text).not.toContain(PAN);
  });

  it('sends a Google Pay Mastercard cryptogram in ucaf (collection indicator 2) with spa and paymentSolution 012', async () => {
    const { sent } = await run(purchase({ paymentMethod: walletMethod('5555555555554444', { type: 'google_pay', cardType: 'master' }) }));
    expect(childOrder(sent)).toEqual(['merchantID', 'merchantReferenceCode', 'billTo', 'purchaseTotals', 'card', 'ucaf', 'ccAuthService', 'ccCaptureService', 'paymentNetworkToken', 'paymentSolution']);
    const sentMessage = message(sent);
    expect(sentMessage.ucaf).toEqual({ authenticationData: WALLET_CRYPTOGRAM, collectionIndicator: '2' });
    expect(sentMessage.ccAuthService).toMatchObject({ commerceIndicator: 'spa' });
    expect(sentMessage.ccAuthService.cavv).toBeUndefined();
    expect(sentMessage.paymentSolution).toBe('012');
  });

  it('splits an American Express cryptogram into cavv and xid', async () => {
    const cryptogram = Buffer.alloc(40, 7);
    const { sent } = await run(purchase({ paymentMethod: walletMethod('378282246310005', { cardType: 'american_express', cryptogram: new Secret(cryptogram.toString('base64')) }) }));
    expect(message(sent).ccAuthService).toMatchObject({ cavv: cryptogram.subarray(0, 20).toString('base64'), commerceIndicator: 'aesk', xid: cryptogram.subarray(20).toString('base64') });
  });

  it('sends no cryptogram on a merchant-initiated charge, and a PAN_ONLY card as a plain card', async () => {
    const mit = message((await run(purchase({ paymentMethod: walletMethod(PAN), storedCredential: { initiator: 'merchant', reasonType: 'recurring', networkTransactionId: '016150703802094' } }))).sent);
    expect(mit.ccAuthService.cavv).toBeUndefined();
    expect(mit.ccAuthService.commerceIndicator).toBe('recurring');
    expect(mit).toMatchObject({ paymentSolution: '001', subsequentAuth: 'true', subsequentAuthTransactionID: '016150703802094' });
    const { sent } = await run(purchase({ paymentMethod: googlePanOnly(PAN) }));
    expect(childOrder(sent)).toEqual(['merchantID', 'merchantReferenceCode', 'billTo', 'purchaseTotals', 'card', 'ccAuthService', 'ccCaptureService']);
  });
});

describe('CyberSource SOAP: follow-on services, verify and store', () => {
  it('captures part of an authorization with ccCaptureService naming authRequestID and authRequestToken', async () => {
    next = { body: CAPTURED };
    const { sent, response } = await run(gatewayRequest('capture', CREDENTIALS, { reference: reference('1842651133440156177166;AP4JY+Or4xRo'), amount: 600, currencyCode: 'USD', orderId: 'order-42' }));
    expect(childOrder(sent)).toEqual(['merchantID', 'merchantReferenceCode', 'purchaseTotals', 'ccCaptureService']);
    expect(message(sent)).toMatchObject({ purchaseTotals: { currency: 'USD', grandTotalAmount: '6.00' }, ccCaptureService: { '@_run': 'true', authRequestID: '1842651133440156177166', authRequestToken: 'AP4JY+Or4xRo' } });
    expect(response).toMatchObject({ success: true, message: 'Transaction captured', gatewayTransactionId: '1846925324700976124593;AP4JZB883WKS' });
  });

  it('refunds part of a capture with ccCreditService, and sends no token element for an id without one', async () => {
    next = { body: REFUNDED };
    const { sent, response } = await run(gatewayRequest('credit', CREDENTIALS, { reference: reference('1846925324700976124593', 'Capture'), amount: 250, currencyCode: 'USD' }));
    expect(message(sent)).toMatchObject({ purchaseTotals: { grandTotalAmount: '2.50' }, ccCreditService: { '@_run': 'true', captureRequestID: '1846925324700976124593' } });
    expect(message(sent).ccCreditService).not.toHaveProperty('captureRequestToken');
    expect(response).toMatchObject({ success: true, message: 'Transaction refunded' });
    next = { body: reply(HEAD('REJECT', '235')) };
    expect((await run(gatewayRequest('credit', CREDENTIALS, { reference: reference('1', 'Capture'), currencyCode: 'USD' }))).response).toMatchObject({ success: false, errorCode: 'invalid_amount' });
  });

  it('credits a card with no reference (general credit)', async () => {
    next = { body: REFUNDED };
    const { sent } = await run(gatewayRequest('general_credit', CREDENTIALS, { paymentMethod: testCard(PAN), currencyCode: 'USD', amount: 250 }));
    expect(childOrder(sent)).toEqual(['merchantID', 'merchantReferenceCode', 'billTo', 'purchaseTotals', 'card', 'ccCreditService']);
    expect(message(sent).ccCreditService).toEqual({ '@_run': 'true' });
  });

  it('reverses an authorization for its full amount, and voids a purchase with voidService', async () => {
    next = { body: REVERSED };
    const reversed = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('4694810311256262804010;Ahj//wSR', 'Authorization', 1000), currencyCode: 'USD' }));
    expect(childOrder(reversed.sent)).toEqual(['merchantID', 'merchantReferenceCode', 'purchaseTotals', 'ccAuthReversalService']);
    expect(message(reversed.sent)).toMatchObject({ purchaseTotals: { currency: 'USD', grandTotalAmount: '10.00' }, ccAuthReversalService: { authRequestID: '4694810311256262804010', authRequestToken: 'Ahj//wSR' } });
    expect(reversed.response).toMatchObject({ success: true, message: 'Transaction voided' });
    next = { body: VOIDED };
    const voided = await run(gatewayRequest('void', CREDENTIALS, { reference: reference('4694798504476543904007;Ahj//wSR/QLV', 'Purchase'), currencyCode: 'USD' }));
    expect(childOrder(voided.sent)).toEqual(['merchantID', 'merchantReferenceCode', 'voidService']);
    expect(message(voided.sent).voidService).toEqual({ '@_run': 'true', voidRequestID: '4694798504476543904007', voidRequestToken: 'Ahj//wSR/QLV' });
  });

  it('verifies with a zero-amount authorization', async () => {
    next = { body: reply(`${HEAD('ACCEPT', '100')}${AUTH_REPLY}`) };
    const { sent, response } = await run(gatewayRequest('verify', CREDENTIALS, { paymentMethod: testCard(PAN), currencyCode: null }));
    expect(message(sent)).toMatchObject({ purchaseTotals: { currency: 'USD', grandTotalAmount: '0.00' }, ccAuthService: { '@_run': 'true' } });
    expect(message(sent)).not.toHaveProperty('ccCaptureService');
    expect(response).toMatchObject({ success: true, message: 'Card verified' });
  });

  it('stores an on-demand profile; its subscriptionID is the third-party token', async () => {
    next = { body: SUBSCRIBED };
    const { sent, response } = await run(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN), currencyCode: null }));
    expect(childOrder(sent)).toEqual(['merchantID', 'merchantReferenceCode', 'billTo', 'purchaseTotals', 'card', 'subscription', 'recurringSubscriptionInfo', 'paySubscriptionCreateService']);
    expect(message(sent)).toMatchObject({ subscription: { paymentMethod: 'credit card' }, recurringSubscriptionInfo: { frequency: 'on-demand' }, purchaseTotals: { currency: 'USD' } });
    expect(response).toMatchObject({ success: true, message: 'Card stored', thirdPartyToken: '2240165983980008402433' });
    next = { body: reply(HEAD('ACCEPT', '100')) };
    expect(await fault(gatewayRequest('store', CREDENTIALS, { paymentMethod: testCard(PAN) }))).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('refuses a follow-on without a reference id as a fault, before sending', async () => {
    const before = fake.requests.length;
    expect(await fault(gatewayRequest('capture', CREDENTIALS, { reference: { gatewayTransactionId: null, transactionType: 'Authorization', amount: 1 } }))).toBeInstanceOf(GatewayFaultError);
    expect(fake.requests.length).toBe(before);
  });
});

describe('CyberSource SOAP: faults, unknown outcomes and the transcript', () => {
  it.each(['error500', 'garbage', 'reset'] as const)('turns %s into a fault (a reset may be unknown)', async (mode) => {
    fake.setMode(mode);
    const error = await fault(purchase());
    expect(error instanceof GatewayFaultError || (mode === 'reset' && error instanceof GatewayResultUnknownError)).toBe(true);
  });

  it('no answer in time is an unknown outcome', async () => {
    fake.setMode('hang');
    expect(await fault(purchase(), 300)).toBeInstanceOf(GatewayResultUnknownError);
  });

  it('a reply without requestID or decision is a fault naming it; unknown elements are ignored', async () => {
    next = { body: reply('<c:decision>ACCEPT</c:decision><c:reasonCode>100</c:reasonCode>') };
    const missing = await fault(purchase());
    expect(missing).toBeInstanceOf(GatewayFaultError);
    expect((missing as GatewayFaultError).detail).toContain('requestID');
    next = { body: '<?xml version="1.0"?><soap:Envelope xmlns:soap="http://schemas.xmlsoap.org/soap/envelope/"><soap:Body/></soap:Envelope>' };
    expect(await fault(purchase())).toBeInstanceOf(GatewayFaultError);
    next = { body: SALE.replace('<c:purchaseTotals>', '<c:brandNew>x</c:brandNew><c:purchaseTotals>') };
    expect((await run(purchase())).response.success).toBe(true);
  });

  it('keeps no card number, CVN, expiry or transaction key in the transcript (SOAP header and body)', async () => {
    const { transcript } = await run(purchase());
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(text).toMatch(/<wsse:Password Type="[^"]+">\[FILTERED\]<\/wsse:Password>/);
    expect(text).toContain('<accountNumber>[FILTERED]</accountNumber>');
    expect(text).toContain('<cvNumber>[FILTERED]</cvNumber>');
    expect(text).toContain('<expirationYear>[FILTERED]</expirationYear>');
    expect(text).toContain('<wsse:Username>coffer_merchant</wsse:Username>');
    expect(text).toContain('<c:decision>ACCEPT</c:decision>');
    expect(text).not.toContain(PAN);
    expect(text).not.toContain(KEY);
    expect(text).not.toContain('737');
    expect(findCardData(text, [PAN])).toEqual([]);
  });
});
