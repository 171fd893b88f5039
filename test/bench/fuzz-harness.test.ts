import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { caseUrl, fuzzEndpoints, groupFailures, isBrowserPage, judge, type EndpointOutcome } from '../../drills/fuzz.drill.js';
import { harnessPaths, paramKinds, startFuzzHarness, type FuzzHarness } from '../../drills/fuzz-harness.js';
import { tempDir } from '../helpers/temp.js';

/* A fast smoke test of the fuzz drill's machinery: the real app in process, a few cases per endpoint. */

describe('fuzz harness', () => {
  const temp = tempDir('coffer-fuzz-');
  let harness: FuzzHarness;

  beforeAll(async () => {
    harness = await startFuzzHarness(harnessPaths(temp.dir));
  });

  afterAll(async () => {
    await harness?.close();
    temp.cleanup();
  });

  it("reads every endpoint from the app's own route table", () => {
    const endpoints = harness.endpoints.map((endpoint) => `${endpoint.method} ${endpoint.url}`);
    for (const expected of ['POST /v1/gateways/:token/purchase', 'GET /v1/transactions/:token/transcript', 'DELETE /v1/environments/:key/access_secrets/:secretKey', 'GET /healthz']) {
      expect(endpoints).toContain(expected);
    }
    for (const endpoint of harness.endpoints) expect(harness.app.hasRoute({ method: endpoint.method as 'GET', url: endpoint.url })).toBe(true);
  });

  it('fills route params with tokens of their kind', async () => {
    expect(paramKinds('/v1/environments/:key/access_secrets/:secretKey')).toEqual(['environments', 'access_secrets']);
    const fixtures = await harness.fixtures();
    expect(fixtures.byKind.gateways).toHaveLength(1);
    expect(caseUrl({ method: 'GET', url: '/v1/gateways/:token/transactions' }, { params: ['a b'], suffix: '.xml', query: '?count=1' })).toBe('/v1/gateways/a%20b/transactions.xml?count=1');
  });

  it('finds nothing wrong with tokenizing, listing transactions and the health check on a few seeded cases', async () => {
    const endpoints = harness.endpoints.filter((endpoint) => ['POST /v1/payment_methods', 'GET /v1/transactions', 'GET /healthz'].includes(`${endpoint.method} ${endpoint.url}`));
    const outcomes = await fuzzEndpoints({ ...harness, endpoints }, { runs: 25, seed: 3 });
    expect(outcomes).toHaveLength(3);
    for (const outcome of outcomes) {
      expect(outcome.failure).toBeNull();
      expect(Object.values(outcome.statuses).reduce((sum, count) => sum + count, 0)).toBe(outcome.cases);
      expect(outcome.cases).toBeGreaterThanOrEqual(25);
    }
  });
});

describe('fuzz verdicts', () => {
  it('fails any 5xx, card data in an error body, and errors without the envelope', () => {
    expect(judge('GET', 500, 'application/json', '{"errors":[{"key":"errors.internal","message":"x"}]}')).toBe('status 500');
    expect(judge('GET', 404, 'application/json', '{"errors":[{"key":"errors.x","message":"Unable to find 4111111111111111."}]}')).toBe('status 404: card data in the error body');
    expect(judge('GET', 400, 'application/json', '{"statusCode":400,"message":"bad"}')).toBe('status 400: JSON error without errors[0].key and message');
    expect(judge('GET', 422, 'application/xml', '<errors><error>no key</error></errors>')).toBe('status 422: XML error without <errors><error key>');
    expect(judge('GET', 415, 'text/html', '<h1>no</h1>')).toBe('status 415: error answered as text/html');
    // The portal and the card form's frame are pages: their errors are HTML, but never carry a card.
    expect(judge('POST', 415, 'text/html; charset=utf-8', '<h1>Unsupported</h1>', true)).toBeNull();
    expect(judge('POST', 422, 'text/html', '<p>4111111111111111</p>', true)).toBe('status 422: card data in the error body');
    expect(judge('POST', 500, 'text/html', '<h1>oops</h1>', true)).toBe('status 500');
    expect(isBrowserPage('/portal/account/totp/start')).toBe(true);
    expect(isBrowserPage('/iframe/v1/frame.html')).toBe(true);
    expect(isBrowserPage('/v1/portal')).toBe(false);
  });

  it('accepts successes, HEAD errors and proper envelopes in JSON and XML', () => {
    expect(judge('POST', 201, 'application/json', '{}')).toBeNull();
    expect(judge('HEAD', 404, '', '')).toBeNull();
    expect(judge('GET', 404, 'application/json; charset=utf-8', '{"errors":[{"key":"errors.route_not_found","message":"No."}]}')).toBeNull();
    expect(judge('GET', 401, 'application/xml', '<?xml version="1.0"?>\n<errors>\n  <error key="errors.access_denied">No.</error>\n</errors>')).toBeNull();
  });

  it('reports one line per kind of failure with its count of endpoints', () => {
    const outcome = (url: string, failure: string | null): EndpointOutcome => ({ endpoint: { method: 'GET', url }, cases: 1, statuses: {}, failure });
    const lines = groupFailures([
      outcome('/a', 'GET /a/%zz: status 400: JSON error without errors[0].key and message; auth valid'),
      outcome('/b', 'GET /b/%zz: status 400: JSON error without errors[0].key and message; auth valid'),
      outcome('/c', null),
      outcome('/d', 'GET /d: status 500; auth none'),
    ]);
    expect(lines).toEqual([
      'status 400: JSON error without errors[0].key and message on 2 endpoint(s), e.g. GET /a/%zz: status 400: JSON error without errors[0].key and message; auth valid',
      'status 500 on 1 endpoint(s), e.g. GET /d: status 500; auth none',
    ]);
  });
});
