import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  avsResult,
  cvvResult,
  decimalAmount,
  defineGateway,
  executeOperation,
  faultOnServerError,
  gatewayMinorUnits,
  GatewayFaultError,
  GatewayInputError,
  GatewayResultUnknownError,
  mapErrorCode,
  parseJsonAnswer,
  parseXmlAnswer,
  readAnswer,
  scrubFormFields,
  scrubHeaders,
  scrubJsonKeys,
  scrubXmlElements,
  withOriginOverride,
  xmlDocument,
  type GatewayCall,
  type OutboundResponse,
  type TranscriptEntry,
} from '../../src/gateways/kit/index.js';
import { GatewayHttpClient } from '../../src/gateways/kit/http-client.js';
import { z } from 'zod';
import { FakeGatewayServer } from '../fakes/fake-gateway-server.js';
import { gatewayRequest } from '../helpers/gateway-requests.js';

const answer = (body: string, status = 200): OutboundResponse => ({ status, headers: {}, body, latencyMs: 1 });

describe('amounts by currency exponent', () => {
  it('keeps ISO minor units by default and formats decimals with the exponent', () => {
    expect(gatewayMinorUnits(1000, 'USD')).toBe(1000);
    expect(gatewayMinorUnits(1000, 'JPY')).toBe(1000);
    expect(gatewayMinorUnits(1234, 'KWD')).toBe(1234);
    expect(decimalAmount(1000, 'USD')).toBe('10.00');
    expect(decimalAmount(5, 'USD')).toBe('0.05');
    expect(decimalAmount(1000, 'JPY')).toBe('1000');
    expect(decimalAmount(1234, 'KWD')).toBe('1.234');
  });

  it("converts to a gateway's own exponent and refuses what its unit cannot hold", () => {
    expect(gatewayMinorUnits(150000, 'IDR', { IDR: 0 })).toBe(1500);
    expect(() => gatewayMinorUnits(150050, 'IDR', { IDR: 0 })).toThrow(GatewayInputError);
    expect(gatewayMinorUnits(12, 'BHD', { BHD: 4 })).toBe(120);
    expect(() => gatewayMinorUnits(1, 'XXX')).toThrow(GatewayInputError);
  });
});

describe('endpoints', () => {
  it('an override replaces scheme, host and port only, keeping the documented path and query', () => {
    expect(withOriginOverride('https://checkout-test.adyen.com/v71/payments', 'http://127.0.0.1:4000')).toBe('http://127.0.0.1:4000/v71/payments');
    expect(withOriginOverride('https://x-checkout-live.adyenpayments.com/checkout/v71/payments?a=1', 'http://127.0.0.1:4000/ignored')).toBe('http://127.0.0.1:4000/checkout/v71/payments?a=1');
    expect(withOriginOverride('https://api.stripe.com/v1/refunds', undefined)).toBe('https://api.stripe.com/v1/refunds');
  });
});

describe('error codes and AVS/CVV', () => {
  it('maps the most specific known key, else the fallback', () => {
    const table = { '51': 'insufficient_funds', card_declined: 'card_declined' } as const;
    expect(mapErrorCode(table, [51, 'card_declined'], 'processing_error')).toBe('insufficient_funds');
    expect(mapErrorCode(table, [undefined, 'card_declined'], 'processing_error')).toBe('card_declined');
    expect(mapErrorCode(table, ['toString', null], 'processing_error')).toBe('processing_error');
  });

  it('names standard AVS and CVV letters and drops unknown ones', () => {
    expect(avsResult('y')).toEqual({ avsCode: 'Y', avsMessage: 'Street address and 5-digit postal code match.' });
    expect(avsResult('?')).toEqual({ avsCode: null, avsMessage: null });
    expect(cvvResult('M')).toEqual({ cvvCode: 'M', cvvMessage: 'Match' });
    expect(cvvResult(null)).toEqual({ cvvCode: null, cvvMessage: null });
  });
});

describe('answers', () => {
  it('reads JSON objects (byte-order mark included) and refuses anything else as a fault', () => {
    expect(parseJsonAnswer('G', answer('\uFEFF{"a":1}'))).toEqual({ a: 1 });
    for (const body of ['<html>', '[1]', 'null', '']) expect(() => parseJsonAnswer('G', answer(body, 200))).toThrow(GatewayFaultError);
  });

  it('reads XML without namespace prefixes and refuses what is not XML', () => {
    expect(parseXmlAnswer('G', answer('<ns:reply xmlns:ns="urn:x"><ns:code>00</ns:code></ns:reply>'))).toMatchObject({ reply: { code: '00' } });
    expect(() => parseXmlAnswer('G', answer('not xml <'))).toThrow(GatewayFaultError);
  });

  it('ignores unknown fields and turns a missing required one into a fault naming it', () => {
    const schema = z.object({ pspReference: z.string(), resultCode: z.string() });
    expect(readAnswer('Adyen', schema, { pspReference: 'P', resultCode: 'Authorised', extra: 1 })).toEqual({ pspReference: 'P', resultCode: 'Authorised' });
    expect(() => readAnswer('Adyen', schema, { resultCode: 'Authorised' })).toThrow(expect.objectContaining({ name: 'GatewayFaultError', detail: expect.stringContaining('pspReference') }) as Error);
  });

  it('builds XML in the order given, leaving out empty fields and escaping text', () => {
    expect(xmlDocument('req', { b: 'x & y', a: 1, skip: null, nested: { c: 'z' } })).toBe('<?xml version="1.0" encoding="UTF-8"?><req><b>x &amp; y</b><a>1</a><nested><c>z</c></nested></req>');
  });
});

describe('scrub rules', () => {
  it('filters JSON keys, XML elements, form fields and headers by name', () => {
    expect(scrubJsonKeys('cvc', 'number')('{"cvc":"737","number":4111111111111111,"ok":"1"}')).toBe('{"cvc":"[FILTERED]","number":"[FILTERED]","ok":"1"}');
    expect(scrubXmlElements('cardCode')('<a:cardCode>123</a:cardCode><x>1</x>')).toBe('<a:cardCode>[FILTERED]</a:cardCode><x>1</x>');
    expect(scrubFormFields('cvc')('card%5Bcvc%5D=123&amount=5')).toBe('card%5Bcvc%5D=[FILTERED]&amount=5');
    expect(scrubHeaders('x-api-key')('POST /x\nx-api-key: AQE1secret\ncontent-type: json')).toBe('POST /x\nx-api-key: [FILTERED]\ncontent-type: json');
  });
});

describe('executeOperation', () => {
  let fake: FakeGatewayServer;
  const http = new GatewayHttpClient();
  const example = (handler: (call: GatewayCall) => Promise<never>) =>
    defineGateway({
      gatewayType: 'example',
      name: 'Example',
      test: false,
      authModes: [{ authModeType: 'default', name: 'Default', credentials: [{ name: 'api_key', label: 'API key', safe: false }] }],
      paymentMethods: ['credit_card'],
      gatewaySpecificFields: [],
      supportedCountries: [],
      supportedCardtypes: [],
      regions: [],
      homepage: '',
      displayApiUrl: '',
      companyName: '',
      capturesAreFinal: false,
      endpoint: () => 'https://gateway.invalid/api',
      operations: { purchase: handler },
    });

  beforeAll(async () => {
    fake = await FakeGatewayServer.start([{ method: 'POST', path: '/api/pay', handle: (request) => ({ json: { echoed: request.rawBody, key: request.headers['x-key'] } }) }]);
  });
  afterAll(async () => {
    await fake.close();
    await http.close();
  });

  it('answers an operation the module lacks with unsupported_feature, sending nothing', async () => {
    const response = await executeOperation(example(() => Promise.reject(new Error('x'))), gatewayRequest('void', { api_key: 'k' }), [], { http, timeoutMs: 1000 });
    expect(response).toMatchObject({ success: false, errorCode: 'unsupported_feature' });
  });

  it('turns a GatewayInputError before sending into a decline with its code', async () => {
    const module = example(() => Promise.reject(new GatewayInputError('No JPY fractions', 'invalid_amount')));
    const transcript: TranscriptEntry[] = [];
    expect(await executeOperation(module, gatewayRequest('purchase', { api_key: 'k' }), transcript, { http, timeoutMs: 1000 })).toMatchObject({ success: false, errorCode: 'invalid_amount', message: 'No JPY fractions' });
    expect(transcript.map((entry) => entry.text).join('\n')).toContain('not sent');
  });

  it('sends to the override origin, keeps the path, and scrubs literal secrets and the PAN from the transcript', async () => {
    const secret = 'AQEyhmfxLYzOSecretKey42';
    let echoed: unknown;
    const module = example(async (call) => {
      const reply = await call.http.postJson('/pay', { number: '4111 1111 1111 1111'.replace(/ /g, ''), note: `key ${secret}` }, { 'x-key': secret });
      echoed = parseJsonAnswer('Example', reply);
      throw new Error('stop');
    });
    const transcript: TranscriptEntry[] = [];
    await expect(executeOperation(module, gatewayRequest('purchase', { api_key: secret }), transcript, { http, override: fake.url, timeoutMs: 2000 })).rejects.toBeInstanceOf(GatewayResultUnknownError);
    expect(fake.lastRequest().path).toBe('/api/pay');
    expect(echoed).toMatchObject({ key: secret });
    const text = transcript.map((entry) => entry.text).join('\n');
    expect(text).not.toContain(secret);
    expect(text).not.toContain('4111111111111111');
    expect(text).toContain(`${fake.url}/api/pay`);
  });

  it('an adapter error before anything was sent is a fault, not a crash', async () => {
    const module = example(() => Promise.reject(new TypeError('bug')));
    await expect(executeOperation(module, gatewayRequest('purchase', { api_key: 'k' }), [], { http, timeoutMs: 1000 })).rejects.toBeInstanceOf(GatewayFaultError);
  });

  /** The fault `handler` ends in, whatever it is. */
  async function faultOf(handler: (call: GatewayCall) => Promise<never>, override?: string): Promise<GatewayFaultError> {
    const error: unknown = await executeOperation(example(handler), gatewayRequest('purchase', { api_key: 'k' }), [], { http, ...(override === undefined ? {} : { override }), timeoutMs: 2000 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(GatewayFaultError);
    return error as GatewayFaultError;
  }

  it('marks notTaken only a fault that proves the payment was not taken (a retry chain may move on)', async () => {
    // Nothing sent: an adapter error before sending, a refused connection.
    expect((await faultOf(() => Promise.reject(new TypeError('bug')))).notTaken).toBe(true);
    const refused = await faultOf(async (call) => {
      await call.http.postJson('/pay', {});
      throw new Error('unreachable');
    }, 'http://127.0.0.1:1');
    expect(refused).toMatchObject({ detail: 'ECONNREFUSED', notTaken: true });
    // A 503 says the request was not handled; a 500 and garbage may come after the gateway acted.
    const answering = (status: number) => async (call: GatewayCall): Promise<never> => {
      const reply = await call.http.postJson('/pay', {});
      faultOnServerError('Example', { ...reply, status });
      parseJsonAnswer('Example', { ...reply, body: '<html>' });
      throw new Error('unreachable');
    };
    expect((await faultOf(answering(503), fake.url)).notTaken).toBe(true);
    expect((await faultOf(answering(500), fake.url)).notTaken).toBe(false);
    expect((await faultOf(answering(200), fake.url)).notTaken).toBe(false);
    // A refused connection on the second request cannot vouch for the first one.
    const closing = await FakeGatewayServer.start([{ method: 'POST', path: '/api/pay', handle: () => ({ json: {} }) }]);
    const second = await faultOf(async (call) => {
      await call.http.postJson('/pay', {});
      await closing.close();
      await call.http.postJson('/pay', {});
      throw new Error('unreachable');
    }, closing.url);
    expect(second).toMatchObject({ detail: 'ECONNREFUSED', notTaken: false });
  });
});
