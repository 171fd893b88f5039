import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commitStatsBetween, scrapeCommits } from '../../bench/commit-metrics.js';
import { histogramOf, samplesOf, sumOf, type Sample } from '../../bench/prometheus-text.js';
import { startMetricsListener } from '../../src/http-app.js';
import { FaultyGateway, type FaultMode } from '../fakes/faulty-gateway.js';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { PortalClient } from '../helpers/portal-client.js';
import { scrapeMetrics, secretsIn, type Scrape } from '../helpers/metrics.js';
import { storeKinds } from '../helpers/postgres.js';
import { startServer, type TestServer } from '../helpers/server.js';

/*
 * Metrics (docs/metrics.md): GET /metrics in the Prometheus text format with a real server, real requests
 * and a real (misbehaving) Stripe on 127.0.0.1. Every assertion reads values from the parsed
 * exposition, before and after the requests that should move them.
 */

const TOKEN = randomBytes(24).toString('hex');
const PURCHASE = '/v1/gateways/:token/purchase';
const VISA = '4242424242424242';

/** A counter or gauge: the sum of the series matching `labels`. */
const value = (scrape: Scrape, name: string, labels: Record<string, string> = {}) => sumOf(scrape.samples, name, labels);
const delta = (before: Scrape, after: Scrape, name: string, labels: Record<string, string> = {}) => value(after, name, labels) - value(before, name, labels);

describe.each(storeKinds)('GET /metrics on the API port with a bearer token (%s)', (store) => {
  let fake: FaultyGateway;
  let server: TestServer;
  let live: ApiClient;
  let card: string;
  const clock = new ManualClock();

  const scrape = (headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) => scrapeMetrics(`${server.client.baseUrl}/metrics`, headers, server.ca);

  beforeAll(async () => {
    fake = await FaultyGateway.start();
    server = await startServer({ store, clock, env: { COFFER_METRICS_TOKEN: TOKEN, COFFER_GATEWAY_ENDPOINTS: fake.endpoints(), COFFER_EGRESS_ALLOW: '127.0.0.1', COFFER_GATEWAY_TIMEOUT: '1', COFFER_GATEWAY_MAX_IN_FLIGHT: '1' } });
    const production = await server.core.tenancy.createEnvironment(server.init.organization_token, 'live', true);
    live = server.client.withAuth({ user: production.key, password: server.init.access_secret });
    const res = await live.sendJson('POST', '/v1/payment_methods.json', {
      payment_method: { retained: true, credit_card: { first_name: 'Ada', last_name: 'Lovelace', number: VISA, verification_value: '123', month: 12, year: 2035 } },
    });
    expect(res.status, res.text).toBe(201);
    card = res.json().transaction.payment_method.token;
  });
  afterAll(async () => {
    await server?.close();
    await fake?.close();
  });

  async function stripeGateway(): Promise<string> {
    const res = await live.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'stripe', login: 'sk_live_metrics' } });
    expect(res.status, res.text).toBe(201);
    return res.json().gateway.token;
  }

  function purchase(gateway: string, format: 'json' | 'xml', mode: FaultMode = 'ok'): Promise<ApiResponse> {
    fake.mode = mode;
    if (format === 'xml') {
      return live.sendXml('POST', `/v1/gateways/${gateway}/purchase.xml`, `<transaction><amount>100</amount><currency_code>USD</currency_code><payment_method_token>${card}</payment_method_token></transaction>`);
    }
    return live.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { amount: 100, currency_code: 'USD', payment_method_token: card } });
  }

  it('serves the Prometheus text format with the token, the process metrics and event-loop lag prefixed', async () => {
    const res = await scrape();
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(samplesOf(res.samples, 'coffer_process_cpu_user_seconds_total')).toHaveLength(1);
    expect(value(res, 'coffer_process_resident_memory_bytes')).toBeGreaterThan(1_000_000);
    const lag = samplesOf(res.samples, 'coffer_nodejs_eventloop_lag_p99_seconds');
    expect(lag).toHaveLength(1);
    expect((lag[0] as Sample).value).toBeGreaterThanOrEqual(0);
    // Every metric of Coffer's own is prefixed: no unprefixed series at all.
    expect(res.samples.filter((sample) => !sample.name.startsWith('coffer_'))).toEqual([]);
  });

  it('refuses without the token, with a wrong one and with the v1 API credentials (401, Bearer challenge)', async () => {
    const basic = `Basic ${Buffer.from(`${server.init.environment_key}:${server.init.access_secret}`).toString('base64')}`;
    const wrong = randomBytes(24).toString('hex');
    const attempts: Array<Record<string, string>> = [{}, { authorization: `Bearer ${wrong}` }, { authorization: basic }, { authorization: `Bearer ${server.init.access_secret}` }, { authorization: TOKEN }, { authorization: `Bearer ${TOKEN}x` }];
    for (const headers of attempts) {
      const res = await scrape({ ...headers, accept: 'application/json' });
      expect(res.status, JSON.stringify(Object.keys(headers))).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="coffer-metrics"');
      expect(JSON.parse(res.text)).toEqual({ errors: [{ key: 'errors.access_denied', message: 'GET /metrics needs Authorization: Bearer with the metrics token.' }] });
      expect(res.text).not.toContain('coffer_');
    }
    // Without Accept, errors outside a suffixed path are XML (as every bare path of the API).
    const xml = await scrape({});
    expect(xml.status).toBe(401);
    expect(xml.headers['content-type']).toMatch(/^application\/xml/);
    expect((await scrape({ authorization: `bearer ${TOKEN}` })).status).toBe(200);
  });

  it('counts and times purchases by route pattern, method, format and status (JSON and XML)', async () => {
    const gateway = await stripeGateway();
    const before = await scrape();
    expect((await purchase(gateway, 'json')).status).toBe(200);
    expect((await purchase(gateway, 'xml')).status).toBe(200);
    expect((await purchase(gateway, 'xml')).status).toBe(200);
    expect((await purchase(gateway, 'json', 'decline')).status).toBe(422);
    const after = await scrape();
    const labels = (format: string, status: string) => ({ route: PURCHASE, method: 'POST', format, status });
    expect(delta(before, after, 'coffer_http_request_duration_seconds_count', labels('json', '200'))).toBe(1);
    expect(delta(before, after, 'coffer_http_request_duration_seconds_count', labels('xml', '200'))).toBe(2);
    expect(delta(before, after, 'coffer_http_request_duration_seconds_count', labels('json', '422'))).toBe(1);
    expect(delta(before, after, 'coffer_http_request_duration_seconds_sum', labels('xml', '200'))).toBeGreaterThan(0);
    expect(delta(before, after, 'coffer_http_request_duration_seconds_bucket', { ...labels('xml', '200'), le: '+Inf' })).toBe(2);
    // The raw URL (with the gateway's token) is never a label.
    expect(after.samples.some((sample) => Object.values(sample.labels).some((label) => label.includes(gateway)) && sample.name.startsWith('coffer_http_'))).toBe(false);
    // The scrape itself is counted as a route of its own, format other.
    expect(value(after, 'coffer_http_request_duration_seconds_count', { route: '/metrics', method: 'GET', format: 'other', status: '200' })).toBeGreaterThanOrEqual(1);
  });

  it('counts gateway calls by type and outcome: succeeded, declined, fault, unknown, with their latency', async () => {
    const gateway = await stripeGateway();
    const before = await scrape();
    expect((await purchase(gateway, 'json')).status).toBe(200);
    expect((await purchase(gateway, 'json', 'decline')).status).toBe(422);
    expect((await purchase(gateway, 'xml', 'status500')).status).toBe(422);
    expect((await purchase(gateway, 'json', 'reset')).status).toBe(408);
    const after = await scrape();
    for (const outcome of ['succeeded', 'declined', 'fault', 'unknown']) {
      expect(delta(before, after, 'coffer_gateway_calls_total', { gateway_type: 'stripe', outcome }), outcome).toBe(1);
      expect(delta(before, after, 'coffer_gateway_call_duration_seconds_count', { gateway_type: 'stripe', outcome }), outcome).toBe(1);
    }
    expect(delta(before, after, 'coffer_gateway_calls_total', { gateway_type: 'stripe' })).toBe(4);
    expect(delta(before, after, 'coffer_gateway_call_duration_seconds_sum', { gateway_type: 'stripe' })).toBeGreaterThan(0);
    // Two failures in a row (after the decline) leave this gateway's breaker closed.
    expect(samplesOf(after.samples, 'coffer_gateway_breaker_state', { gateway, gateway_type: 'stripe' }).map((sample) => sample.value)).toEqual([0]);
  });

  it('shows a breaker open after 5 faults, the refusal it causes, and half-open once the window has passed', async () => {
    const gateway = await stripeGateway();
    const before = await scrape();
    for (let i = 0; i < 5; i += 1) expect((await purchase(gateway, 'json', 'status500')).status).toBe(422);
    const open = await scrape();
    expect(samplesOf(open.samples, 'coffer_gateway_breaker_state', { gateway }).map((sample) => [sample.labels.gateway_type, sample.value])).toEqual([['stripe', 1]]);
    expect((await purchase(gateway, 'json')).status).toBe(503);
    const refused = await scrape();
    expect(delta(before, refused, 'coffer_gateway_refusals_total', { gateway_type: 'stripe', reason: 'circuit_open' })).toBe(1);
    expect(delta(open, refused, 'coffer_gateway_calls_total', { gateway_type: 'stripe' })).toBe(0);
    clock.advance(60_000);
    expect(value(await scrape(), 'coffer_gateway_breaker_state', { gateway })).toBe(2);
    // The probe succeeds: closed again.
    expect((await purchase(gateway, 'json')).status).toBe(200);
    expect(value(await scrape(), 'coffer_gateway_breaker_state', { gateway })).toBe(0);
  });

  it('counts a call refused because the gateway already has its maximum in flight (busy)', async () => {
    const gateway = await stripeGateway();
    const before = await scrape();
    fake.resetCounters();
    const hung = purchase(gateway, 'json', 'hang');
    await fake.waitForRequests(1);
    expect((await purchase(gateway, 'json', 'hang')).status).toBe(503);
    expect((await hung).status).toBe(408);
    const after = await scrape();
    expect(delta(before, after, 'coffer_gateway_refusals_total', { gateway_type: 'stripe', reason: 'busy' })).toBe(1);
    expect(delta(before, after, 'coffer_gateway_calls_total', { gateway_type: 'stripe', outcome: 'unknown' })).toBe(1);
    expect(delta(before, after, 'coffer_gateway_call_duration_seconds_sum', { gateway_type: 'stripe', outcome: 'unknown' })).toBeGreaterThanOrEqual(0.9);
  });

  it(`times each durable commit of a write (${store}), one transaction per commit`, async () => {
    const gateway = await stripeGateway();
    const before = await scrape();
    expect((await purchase(gateway, 'json')).status).toBe(200);
    const after = await scrape();
    const seconds = histogramOf(after.samples, 'coffer_store_commit_duration_seconds', { store });
    const earlier = histogramOf(before.samples, 'coffer_store_commit_duration_seconds', { store });
    // A purchase commits at least its processing record and its outcome.
    expect(seconds.count - earlier.count).toBeGreaterThanOrEqual(2);
    expect(seconds.sum - earlier.sum).toBeGreaterThan(0);
    expect(seconds.buckets.at(-1)).toEqual({ le: Number.POSITIVE_INFINITY, count: seconds.count });
    const batches = histogramOf(after.samples, 'coffer_store_commit_batch_size', { store });
    expect(batches.count).toBe(seconds.count);
    expect(batches.sum).toBe(batches.count);
  });

  it(store === 'postgres' ? 'shows the pool: connections open, idle among them, none waiting' : 'has no pool gauges on SQLite', async () => {
    const res = await scrape();
    if (store === 'sqlite') {
      expect(res.samples.filter((sample) => sample.name.startsWith('coffer_store_pool_'))).toEqual([]);
      return;
    }
    const total = value(res, 'coffer_store_pool_connections');
    expect(total).toBeGreaterThanOrEqual(1);
    expect(total).toBeLessThanOrEqual(10);
    expect(value(res, 'coffer_store_pool_idle_connections')).toBeGreaterThanOrEqual(0);
    expect(value(res, 'coffer_store_pool_idle_connections')).toBeLessThanOrEqual(total);
    expect(samplesOf(res.samples, 'coffer_store_pool_waiting_queries').map((sample) => sample.value)).toEqual([0]);
  });

  it('holds no card number, CVV, access secret, gateway credential or token in the scrape', async () => {
    const res = await scrape();
    expect(res.status).toBe(200);
    expect(secretsIn(res.text, [VISA, '123', server.init.access_secret, server.init.environment_key, 'sk_live_metrics', TOKEN, card].filter((secret) => secret.length > 3))).toEqual([]);
    expect(res.text).not.toContain(card);
  });
});

describe('rate-limit refusals', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ env: { COFFER_METRICS_TOKEN: TOKEN, COFFER_RATE_LIMITS: '{"*":null,"transactions_list":{"limit":1},"payment_methods_client_ip":{"limit":1},"payment_methods_bin6_last4":{"limit":100}}' } });
  });
  afterAll(() => server?.close());

  it('count each 429 by the limit that refused it; the other limits show 0', async () => {
    const scrape = () => scrapeMetrics(`${server.client.baseUrl}/metrics`, { authorization: `Bearer ${TOKEN}` }, server.ca);
    const before = await scrape();
    expect(value(before, 'coffer_rate_limit_refusals_total', { limit: 'transactions_list' })).toBe(0);
    expect((await server.client.get('/v1/transactions.json')).status).toBe(200);
    expect((await server.client.get('/v1/transactions.json')).status).toBe(429);
    expect((await server.client.get('/v1/transactions.xml')).status).toBe(429);
    const after = await scrape();
    expect(value(after, 'coffer_rate_limit_refusals_total', { limit: 'transactions_list' })).toBe(2);
    expect(value(after, 'coffer_rate_limit_refusals_total', { limit: 'events_list' })).toBe(0);
    expect(samplesOf(after.samples, 'coffer_rate_limit_refusals_total').length).toBeGreaterThan(10);
    expect(value(after, 'coffer_http_request_duration_seconds_count', { route: '/v1/transactions', method: 'GET', format: 'xml', status: '429' })).toBe(1);
  });

  it('name only the budget that was spent when a request counts against several', async () => {
    const scrape = () => scrapeMetrics(`${server.client.baseUrl}/metrics`, { authorization: `Bearer ${TOKEN}` }, server.ca);
    const vault = (number: string) => server.client.sendJson('POST', '/v1/payment_methods.json', { payment_method: { credit_card: { first_name: 'Ada', last_name: 'Lovelace', number, month: 3, year: 2035 } } });
    expect((await vault('4111111111111111')).status).toBe(201);
    expect((await vault('5555555555554444')).status).toBe(429);
    const after = await scrape();
    expect(value(after, 'coffer_rate_limit_refusals_total', { limit: 'payment_methods_client_ip' })).toBe(1);
    expect(value(after, 'coffer_rate_limit_refusals_total', { limit: 'payment_methods_bin6_last4' })).toBe(0);
  });
});

describe('portal sign-in refusals', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ env: { COFFER_METRICS_TOKEN: TOKEN, COFFER_RATE_LIMITS: '{"*":null,"portal_sign_in_account":{"limit":1,"window_seconds":900},"portal_sign_in_ip":{"limit":2,"window_seconds":900}}' } });
  });
  afterAll(() => server?.close());

  it('count by the budget spent: the account, then the address', async () => {
    const signIn = (email: string) => new PortalClient(server.client).signIn(email, 'not the password');
    expect((await signIn('a@example.com')).status).toBe(401);
    // The account's budget is spent; a refused attempt counts in neither budget.
    expect((await signIn('a@example.com')).status).toBe(429);
    expect((await signIn('b@example.com')).status).toBe(401);
    // Now the address's budget is spent, not c's.
    expect((await signIn('c@example.com')).status).toBe(429);
    const after = await scrapeMetrics(`${server.client.baseUrl}/metrics`, { authorization: `Bearer ${TOKEN}` }, server.ca);
    expect(value(after, 'coffer_rate_limit_refusals_total', { limit: 'portal_sign_in_account' })).toBe(1);
    expect(value(after, 'coffer_rate_limit_refusals_total', { limit: 'portal_sign_in_ip' })).toBe(1);
  });
});

describe('the separate metrics port (COFFER_METRICS_PORT)', () => {
  let server: TestServer;
  let listener: { url: string; close(): Promise<void> } | null = null;
  beforeAll(async () => {
    server = await startServer({ env: { COFFER_METRICS_PORT: '0' } });
    listener = await startMetricsListener(server.core, server.logger);
  });
  afterAll(async () => {
    await listener?.close();
    await server?.close();
  });

  it('binds to 127.0.0.1 by default and serves /metrics there without a token, counting the API port requests', async () => {
    expect(listener).not.toBeNull();
    const url = new URL((listener as { url: string }).url);
    expect(url.protocol).toBe('http:');
    expect(url.hostname).toBe('127.0.0.1');
    expect((await server.client.get('/healthz', { auth: null })).status).toBe(200);
    const res = await scrapeMetrics(`${url.origin}/metrics`);
    expect(res.status).toBe(200);
    expect(value(res, 'coffer_http_request_duration_seconds_count', { route: '/healthz', method: 'GET', format: 'other', status: '200' })).toBe(1);
  });

  it('gives the bench its commit figures: the commits of a write between two scrapes', async () => {
    const url = `${new URL((listener as { url: string }).url).origin}/metrics`;
    const before = await scrapeCommits(url, null);
    const created = await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } });
    expect(created.status, created.text).toBe(201);
    const stats = commitStatsBetween(before, await scrapeCommits(url, null));
    expect(stats.commits).toBeGreaterThanOrEqual(1);
    expect(stats.transactions).toBe(stats.commits);
    expect(stats.meanBatchSize).toBe(1);
    expect(stats.meanMs).toBeGreaterThan(0);
    expect(stats.p99Ms).toBeGreaterThan(0);
  });

  it('serves nothing else there, and /metrics is 404 on the API port (no token configured)', async () => {
    const origin = new URL((listener as { url: string }).url).origin;
    const other = await scrapeMetrics(`${origin}/v1/gateways.json`, { accept: 'application/json' });
    expect(other.status).toBe(404);
    expect(JSON.parse(other.text).errors[0].key).toBe('errors.route_not_found');
    const api = await scrapeMetrics(`${server.client.baseUrl}/metrics`, { accept: 'application/json' }, server.ca);
    expect(api.status).toBe(404);
    expect(JSON.parse(api.text)).toEqual({ errors: [{ key: 'errors.route_not_found', message: 'The requested resource does not exist.' }] });
  });
});

describe('the separate port with a token as well', () => {
  let server: TestServer;
  let listener: { url: string; close(): Promise<void> } | null = null;
  beforeAll(async () => {
    server = await startServer({ tls: false, env: { COFFER_METRICS_PORT: '0', COFFER_METRICS_TOKEN: TOKEN } });
    listener = await startMetricsListener(server.core, server.logger);
  });
  afterAll(async () => {
    await listener?.close();
    await server?.close();
  });

  it('needs the token on both ports', async () => {
    const metricsPort = `${new URL((listener as { url: string }).url).origin}/metrics`;
    for (const url of [metricsPort, `${server.client.baseUrl}/metrics`]) {
      expect((await scrapeMetrics(url)).status, url).toBe(401);
      expect((await scrapeMetrics(url, { authorization: `Bearer ${TOKEN}` })).status, url).toBe(200);
    }
  });
});

describe('metrics off (neither COFFER_METRICS_PORT nor COFFER_METRICS_TOKEN)', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(() => server?.close());

  it('collects nothing, starts no listener, and answers /metrics 404 whatever the credentials', async () => {
    expect(server.core.metrics).toBeNull();
    expect(await startMetricsListener(server.core, server.logger)).toBeNull();
    const attempts: Array<Record<string, string>> = [{}, { authorization: `Bearer ${TOKEN}` }];
    for (const headers of attempts) {
      const res = await scrapeMetrics(`${server.client.baseUrl}/metrics`, { ...headers, accept: 'application/json' }, server.ca);
      expect(res.status).toBe(404);
      expect(JSON.parse(res.text).errors[0].key).toBe('errors.route_not_found');
    }
  });
});
