import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EgressGuard } from '../../src/receivers/egress.js';
import { Secret } from '../../src/domain/secret.js';
import { IDLE_BACKFILL, type BackfillProgress, type Upstream, type UpstreamPaymentMethodFields } from '../../src/domain/upstream.js';
import { BackfillService } from '../../src/services/upstream/backfill.service.js';
import { UpstreamClient } from '../../src/services/upstream/upstream-client.js';
import { upstreamAppError } from '../../src/services/upstream/upstream-settings.service.js';
import { retryAfterMs, UpstreamHttp, UpstreamThrottledError, UpstreamUnavailableError } from '../../src/services/upstream/upstream-http.js';

/*
 * The upstream client and the backfill walk against the upstream's 429s (Retry-After), its
 * failures and the egress guard, over a local HTTP server and small fakes of the store.
 */

describe('upstream HTTP', () => {
  let server: http.Server;
  let base: string;
  const answers: Array<{ status: number; headers?: Record<string, string>; body: string }> = [];
  beforeAll(async () => {
    server = http.createServer((_request, response) => {
      const next = answers.shift() ?? { status: 200, body: '{"payment_methods":[]}' };
      response.writeHead(next.status, { 'content-type': 'application/json', ...next.headers });
      response.end(next.body);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const endpoint = () => ({ url: base, environmentKey: 'env', accessSecret: new Secret('s3cret') });

  it('turns a 429 into the wait its Retry-After asks for (seconds or an HTTP date)', async () => {
    answers.push({ status: 429, headers: { 'retry-after': '7' }, body: '{}' });
    const client = new UpstreamHttp(new EgressGuard(['127.0.0.0/8']), 2_000);
    await expect(client.call(endpoint(), 'GET', '/v1/payment_methods.json')).rejects.toMatchObject({ name: 'UpstreamThrottledError', retryAfterMs: 7_000 });
    expect(retryAfterMs(new Date(Date.UTC(2030, 0, 1, 0, 0, 30)).toUTCString(), Date.UTC(2030, 0, 1))).toBe(30_000);
    expect(retryAfterMs(undefined, 0)).toBe(1_000);
    await client.close();
  });

  it('reports 5xx, refused credentials and a body that is not JSON as unavailable', async () => {
    const client = new UpstreamHttp(new EgressGuard(['127.0.0.0/8']), 2_000);
    answers.push({ status: 503, body: '' }, { status: 401, body: '{}' }, { status: 200, body: 'not json' });
    for (const detail of [/HTTP 503/, /HTTP 401/, /not JSON/]) {
      const failure = await client.call(endpoint(), 'GET', '/x').catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(UpstreamUnavailableError);
      expect((failure as Error).message).toMatch(detail);
      expect((failure as Error).message).not.toContain('s3cret');
    }
    await client.close();
  });

  it('goes through the egress guard: a loopback upstream the operator did not allow is refused, nothing sent', async () => {
    const before = answers.length;
    const client = new UpstreamHttp(new EgressGuard([]), 2_000);
    await expect(client.call(endpoint(), 'GET', '/v1/payment_methods.json')).rejects.toThrow(/egress refused \(loopback address\)/);
    expect(answers.length).toBe(before);
    await client.close();
  });

  it('answers an on-demand pull the upstream throttled with 503 and its Retry-After, an unreachable one with 502', () => {
    const throttled = upstreamAppError(new UpstreamThrottledError(2_500));
    expect(throttled.status).toBe(503);
    expect(throttled.headers['Retry-After']).toBe('3');
    expect(throttled.entries[0]?.key).toBe('errors.upstream_unavailable');
    expect(upstreamAppError(new UpstreamUnavailableError('ECONNREFUSED')).status).toBe(502);
  });

  it('shows a payment method, 404 as null', async () => {
    const client = new UpstreamClient(new UpstreamHttp(new EgressGuard(['127.0.0.0/8']), 2_000));
    answers.push({ status: 404, body: '{"errors":[]}' });
    expect(await client.showPaymentMethod(endpoint(), 'T1')).toBeNull();
  });
});

function fields(token: string): UpstreamPaymentMethodFields {
  return { token, paymentMethodType: 'credit_card', storageState: 'retained', email: null, createdAt: null, metadata: null, data: null, firstName: null, lastName: null, month: 1, year: 2035, address: {}, eligibleForCardUpdater: null, bankName: null, accountType: null, accountHolderType: null, thirdPartyToken: null, gatewayType: null };
}

describe('backfill walk', () => {
  function harness(pages: Array<() => Promise<{ methods: UpstreamPaymentMethodFields[]; last: boolean }>>) {
    let backfill: BackfillProgress = { ...IDLE_BACKFILL };
    const held = new Set<string>(['T2']);
    const upstream = (): Upstream => ({ environmentKey: 'env', url: 'http://up', upstreamEnvironmentKey: 'k', sealedAccessSecret: 'x', publicUrl: 'http://down', receiverToken: 'R', pulledOnDemand: 0, backfill: { ...backfill }, createdAt: '', updatedAt: '' });
    const counters: Record<string, number> = {};
    const store = {
      repos: {
        upstreams: {
          find: async () => upstream(),
          claimBackfill: async () => (backfill.state === 'running' ? false : ((backfill = { ...backfill, state: 'running' }), true)),
          setBackfill: async (_key: string, progress: Partial<BackfillProgress>) => void (backfill = { ...backfill, ...progress }),
          increment: async (_key: string, counter: string) => void (counters[counter] = (counters[counter] ?? 0) + 1),
        },
        paymentMethods: { find: async (_key: string, token: string) => (held.has(token) ? { token } : undefined) },
      },
    };
    const sinceTokens: Array<string | null> = [];
    const client = { listRetained: async (_endpoint: unknown, since: string | null) => (sinceTokens.push(since), (pages.shift() as () => Promise<{ methods: UpstreamPaymentMethodFields[]; last: boolean }>)()) };
    const pulled: string[] = [];
    const pullThrough = { pull: async (_environment: unknown, _upstream: unknown, token: string) => (pulled.push(token), held.add(token), 'pulled' as const) };
    const settings = { endpoint: async () => ({ url: 'http://up', environmentKey: 'k', accessSecret: new Secret('s') }) };
    const waits: number[] = [];
    const service = new BackfillService(store as never, settings as never, client as never, pullThrough as never, { now: () => new Date(0) } as never, async (ms) => void waits.push(ms));
    return { service, waits, pulled, sinceTokens, counters, progress: () => backfill };
  }
  const environment = { key: 'env' } as never;

  it('waits out a 429 (Retry-After), then walks every page after the cursor, skipping what is here', async () => {
    const h = harness([
      async () => {
        throw new UpstreamThrottledError(3_000);
      },
      async () => ({ methods: [fields('T1'), fields('T2')], last: false }),
      async () => ({ methods: [fields('T3')], last: true }),
    ]);
    await h.service.run(environment);
    expect(h.waits).toEqual([3_000]);
    expect(h.pulled).toEqual(['T1', 'T3']);
    expect(h.sinceTokens).toEqual([null, null, 'T2']);
    expect(h.counters).toMatchObject({ backfill_seen: 3, backfill_already_here: 1 });
    expect(h.progress()).toMatchObject({ state: 'done', cursor: 'T3', throttledUntil: null });
  });

  it('stops as interrupted when the upstream keeps failing, and resumes after the cursor', async () => {
    const down = async () => {
      throw new UpstreamUnavailableError('HTTP 503');
    };
    const h = harness([async () => ({ methods: [fields('T1')], last: false }), down, down, down, down, down, async () => ({ methods: [fields('T4')], last: true })]);
    await h.service.run(environment);
    expect(h.progress()).toMatchObject({ state: 'interrupted', cursor: 'T1' });
    expect(h.pulled).toEqual(['T1']);
    await h.service.run(environment);
    expect(h.progress()).toMatchObject({ state: 'done', cursor: 'T4' });
    expect(h.sinceTokens.at(-1)).toBe('T1');
    expect(h.pulled).toEqual(['T1', 'T4']);
  });
});
