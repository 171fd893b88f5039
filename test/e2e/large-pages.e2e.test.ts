import diagnostics from 'node:diagnostics_channel';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { largeData, largeMetadata } from '../../drills/availability/large-pages.js';
import { encodeJson } from '../../src/http/format/json-codec.js';
import { WireList, type Wire } from '../../src/http/format/wire.js';
import { encodeXml } from '../../src/http/format/xml-codec.js';
import { paymentMethodView } from '../../src/http/views/payment-method.view.js';
import { transactionView } from '../../src/http/views/transaction.view.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { turnCounter } from '../helpers/turn-counter.js';
import type { Environment } from '../../src/domain/environment.js';
import type { Transaction } from '../../src/domain/transaction.js';

/*
 * docs/wire-compatibility.md, "Large pages". A page of 100 payment methods whose `data` is as large
 * as input allows was written in one synchronous call (seconds, hundreds of MB of XML): every other
 * request waited for it. The server runs in this process, so its event loop is this test's: turns
 * of the loop are counted while the server writes a large page, from the moment it receives the
 * request to the moment it ends the response, and a second request sent as the first arrives must
 * be answered before that end. Counted, never timed: the slices are bounded in values and bytes
 * whatever the machine's speed. The page must still be the one-call encoding, byte for byte, and
 * complete (every row: a Spreedly client stops listing at a short page).
 */

interface Watched {
  /** Turns counted when the server received the request. */
  startedAt: number;
  /** Turns counted when the server ended the response (the whole body written). */
  endedAt: Promise<number>;
}

/**
 * Watches the server's handling of the request for `url`: when it arrives (`onArrival` runs then,
 * inside the server's turn) and when the server calls end() on its response.
 */
function watchRequest(url: string, turns: () => number, onArrival: () => void): Promise<Watched> {
  return new Promise((resolveWatched) => {
    const onStart = (message: unknown) => {
      const { request: incoming, response } = message as { request: IncomingMessage; response: ServerResponse };
      if (incoming.url !== url) return;
      diagnostics.unsubscribe('http.server.request.start', onStart);
      const startedAt = turns();
      const endedAt = new Promise<number>((resolveEnd) => {
        const end = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
        response.end = ((...args: unknown[]) => {
          resolveEnd(turns());
          return end(...args);
        }) as ServerResponse['end'];
      });
      onArrival();
      resolveWatched({ startedAt, endedAt });
    };
    diagnostics.subscribe('http.server.request.start', onStart);
  });
}

describe('a page of 100 large payment methods is written a slice at a time', () => {
  let server: TestServer;
  let environment: Environment;
  let authorization: string;
  /** Methods in list order, the 3rd and 29th holding a stored time that is no date. */
  let broken: string[] = [];

  async function seed(kind: string, shape: 'nested-arrays' | 'ampersands', count = 100): Promise<string[]> {
    const metadata = { ...largeMetadata(), kind };
    delete (metadata as Record<string, string>)[Object.keys(largeMetadata())[0] as string];
    const body = JSON.stringify({ payment_method: { credit_card: { first_name: 'Joe', last_name: 'Jones', number: '4111111111111111', month: 3, year: 2035 }, retained: true, data: largeData(shape), metadata } });
    const tokens: string[] = [];
    for (let start = 0; start < count; start += 10) {
      const batch = await Promise.all(Array.from({ length: 10 }, () => server.client.request('POST', '/v1/payment_methods.json', { body, contentType: 'application/json' })));
      for (const res of batch) {
        expect(res.status).toBe(201);
        tokens.push(res.json().transaction.payment_method.token as string);
      }
    }
    // In list order (ascending seq), whatever order the concurrent creations finished in.
    const rows = await server.core.paymentMethods.list(environment, { states: ['retained'], metadata: { kind } }, { sinceToken: null, order: 'asc', count });
    expect(rows.map((row) => row.token).sort()).toEqual([...tokens].sort());
    return rows.map((row) => row.token);
  }

  beforeAll(async () => {
    server = await startServer({ tls: false });
    authorization = `Basic ${Buffer.from(`${server.init.environment_key}:${server.init.access_secret}`).toString('base64')}`;
    environment = await server.core.tenancy.findEnvironment(server.init.organization_token, server.init.environment_key);
    const methods = await seed('arrays', 'nested-arrays');
    await seed('text', 'ampersands');
    // A stored time that is no date (the one value the writers refuse), early in one page and
    // past its first MiB in another.
    broken = await seed('broken', 'nested-arrays', 30);
    for (const token of [broken[2], broken[28]] as string[]) {
      await server.core.store.db.updateTable('payment_methods').set({ created_at: 'not a date' }).where('token', '=', token).execute();
    }
    // 100 purchases, each on its own large method: a page of transactions nests them all.
    const gateway = (await server.client.sendJson('POST', '/v1/gateways.json', { gateway: { gateway_type: 'test' } })).json().gateway.token as string;
    for (let start = 0; start < methods.length; start += 10) {
      await Promise.all(
        methods.slice(start, start + 10).map(async (token) => {
          const res = await server.client.sendJson('POST', `/v1/gateways/${gateway}/purchase.json`, { transaction: { payment_method_token: token, amount: 100, currency_code: 'USD' } });
          expect(res.status).toBe(200);
        }),
      );
    }
  }, 240_000);

  afterAll(async () => {
    await server?.close();
  });

  /**
   * GETs `path` while counting turns; the moment the server receives it, a second request (another
   * list, small) is sent. Returns the page's bytes and the turns at which things happened.
   */
  async function readWhileAnotherAsks(path: string) {
    const counter = turnCounter();
    let victimDoneAt: Promise<number> = Promise.resolve(Number.POSITIVE_INFINITY);
    const sendVictim = () => {
      victimDoneAt = (async () => {
        const res = await request(`${server.client.baseUrl}/v1/gateways.json?count=1`, { headers: { authorization } });
        expect(res.statusCode).toBe(200);
        await res.body.arrayBuffer();
        return counter.turns();
      })();
    };
    const watched = watchRequest(path, counter.turns, sendVictim);
    const res = await request(`${server.client.baseUrl}${path}`, { headers: { authorization } });
    const bytes = Buffer.from(await res.body.arrayBuffer());
    const { startedAt, endedAt } = await watched;
    const result = { status: res.statusCode, bytes, startedAt, endedAt: await endedAt, victimDoneAt: await victimDoneAt };
    counter.stop();
    return result;
  }

  /** The page was written a slice at a time (at least `minTurns` turns; the other request answered before its end), and is `expected`, byte for byte. */
  function expectSlicedAndExact(page: Awaited<ReturnType<typeof readWhileAnotherAsks>>, minTurns: number, expected: string): void {
    expect(page.status).toBe(200);
    expect(page.endedAt - page.startedAt).toBeGreaterThanOrEqual(minTurns);
    expect(page.victimDoneAt).toBeLessThan(page.endedAt);
    const bytes = Buffer.from(expected, 'utf8');
    expect(page.bytes.length).toBe(bytes.length);
    expect(page.bytes.equals(bytes)).toBe(true);
  }

  // JSON: 100 rows of ~32,000 values, hundreds of slices by the per-slice cap of values alone.
  // XML: ~39 MB, long texts escaped a piece at a time, dozens of slices by the cap of bytes alone.
  it.each([
    { format: 'json', kind: 'arrays', minTurns: 100, encode: encodeJson },
    { format: 'xml', kind: 'text', minTurns: 30, encode: encodeXml },
  ])('$format: the loop turns while a page of large methods is written, another request is answered meanwhile, the bytes are the one-call encoding', async ({ format, kind, minTurns, encode }) => {
    const page = await readWhileAnotherAsks(`/v1/payment_methods.${format}?count=100&metadata[kind]=${kind}`);
    const rows = await server.core.paymentMethods.list(environment, { states: ['retained'], metadata: { kind } }, { sinceToken: null, order: 'asc', count: 100 });
    expect(rows).toHaveLength(100);
    expectSlicedAndExact(page, minTurns, encode('payment_methods', new WireList('payment_method', rows.map(paymentMethodView))));
  });

  it('JSON: a page of 100 transactions nesting the large methods, the same', async () => {
    const page = await readWhileAnotherAsks('/v1/transactions.json?count=100&order=desc');
    const query = server.core.transactionQuery;
    const listed = await query.withChains(environment, await query.list(environment, { sinceToken: null, order: 'desc', count: 100 }, {}));
    const lookup = (token: string | null) => (token === null ? null : (listed.paymentMethods.get(token) ?? null));
    const attemptsOf = (row: Transaction) => (row.firstAttemptToken === null ? [] : (listed.chains?.get(row.firstAttemptToken) ?? []));
    const views: Wire[] = listed.transactions.map((row) => transactionView(row, lookup, attemptsOf));
    expect(views).toHaveLength(100);
    expectSlicedAndExact(page, 100, encodeJson('transactions', new WireList('transaction', views)));
  });

  it('pages through every method with since_token: each page full until the last', async () => {
    const seen: string[] = [];
    let since = '';
    for (;;) {
      const res = await server.client.request('GET', `/v1/payment_methods.json?count=30&metadata[kind]=arrays${since === '' ? '' : `&since_token=${since}`}`);
      expect(res.status).toBe(200);
      const page = res.json().payment_methods as Array<{ token: string }>;
      seen.push(...page.map((method) => method.token));
      if (page.length < 30) break;
      since = (page[page.length - 1] as { token: string }).token;
    }
    expect(seen).toHaveLength(100);
    expect(new Set(seen).size).toBe(100);
  });

  it('a value that cannot be written before the first MiB is the usual 500 envelope; past it, the connection is cut, never a page that looks complete', async () => {
    const early = await server.client.request('GET', '/v1/payment_methods.json?count=5&metadata[kind]=broken');
    expect(early.status).toBe(500);
    expect(early.json().errors[0].key).toBe('errors.internal');
    expect(server.logs.some((line) => line.includes('unhandled error') && line.includes('RangeError'))).toBe(true);
    // From the 4th: the broken one is the 26th of the page, ~2 MB of JSON in.
    const late = await request(`${server.client.baseUrl}/v1/payment_methods.json?count=30&metadata[kind]=broken&since_token=${broken[2] as string}`, { headers: { authorization } });
    expect(late.statusCode).toBe(200);
    await expect(late.body.arrayBuffer()).rejects.toThrow();
    // The failure is logged although no answer could say it.
    await expect.poll(() => server.logs.some((line) => line.includes('answer failed after it began') && line.includes('RangeError'))).toBe(true);
  });
});
