import { request, Agent } from 'undici';
import { ApiClient, basicAuth, type ApiCredentials } from '../../bench/api-client.js';
import { cardFields, SANDBOX_PAN } from '../../bench/bench-tenant.js';
import { startTarget } from '../../bench/bench-target.js';
import { runCofferCommand } from '../../bench/coffer-process.js';
import { summarizeLatencies, type LatencySummary } from '../../bench/latency.js';
import { parsePrometheusText, samplesOf } from '../../bench/prometheus-text.js';
import { MAX_FREE_FORM_BYTES, MAX_NESTING } from '../../src/http/format/input-bounds.js';
import { METADATA_LIMITS } from '../../src/services/payment-method-validation.js';
import { MAX_PAGE_SIZE } from '../../src/services/list-query.js';
import type { DrillReport } from '../drill-report.js';
import { createVictimTenant } from './victim.js';

/**
 * Availability under large pages (docs/wire-compatibility.md, "Large pages"): a tenant stores
 * MAX_PAGE_SIZE payment methods whose `data` and `metadata` are as large as the input caps allow,
 * shaped for the most output per stored byte, and readers with a read-only secret fetch that page
 * in a loop; another tenant (the victim) lists its gateways one at a time meanwhile. Reported: the
 * victim's latency idle, beside one reader and beside `readers` readers, and the server's longest
 * event-loop delay (its own /metrics) in each phase. Passes when the victim's p50 beside the
 * readers stays within twice its idle p50.
 */

export interface PagesDrillOptions {
  logDir: string;
  /** Seconds each phase is measured for. */
  seconds: number;
  /** Readers looping on the page together (the attack). */
  readers: number;
  format: 'xml' | 'json';
  /** The `data` stored: arrays nested MAX_NESTING deep (the most XML per stored byte), or a string of `&` (XML's escape). */
  shape: 'nested-arrays' | 'ampersands';
}

export const DEFAULT_PAGES_DRILL: Omit<PagesDrillOptions, 'logDir'> = { seconds: 6, readers: 2, format: 'xml', shape: 'nested-arrays' };

/** The largest value of `make(n)` whose JSON fits MAX_FREE_FORM_BYTES. */
function largestWithin(make: (n: number) => unknown): unknown {
  let low = 1;
  let high = MAX_FREE_FORM_BYTES;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (Buffer.byteLength(JSON.stringify(make(middle))) <= MAX_FREE_FORM_BYTES) low = middle;
    else high = middle - 1;
  }
  return make(low);
}

/** `data` as large as the caps allow (input-bounds.ts). */
export function largeData(shape: PagesDrillOptions['shape']): unknown {
  if (shape === 'ampersands') return largestWithin((n) => ({ text: '&'.repeat(n) }));
  return largestWithin((n) => {
    let value: unknown = new Array<number>(n).fill(0);
    for (let level = 1; level < MAX_NESTING; level += 1) value = [value];
    return value;
  });
}

/** `metadata` as large as its limits allow, of `&` (five bytes each in XML). */
export function largeMetadata(): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (let index = 0; index < METADATA_LIMITS.keys; index += 1) {
    metadata[`k${String(index).padStart(2, '0')}${'m'.repeat(METADATA_LIMITS.keyLength - 3)}`] = '&'.repeat(METADATA_LIMITS.valueLength);
  }
  return metadata;
}

async function seedLargePage(baseUrl: string, credentials: ApiCredentials, shape: PagesDrillOptions['shape']): Promise<void> {
  const client = new ApiClient(baseUrl, credentials, 4);
  const paymentMethod = { credit_card: cardFields(SANDBOX_PAN), retained: true, data: largeData(shape), metadata: largeMetadata() };
  try {
    for (let start = 0; start < MAX_PAGE_SIZE; start += 4) {
      await Promise.all(Array.from({ length: Math.min(4, MAX_PAGE_SIZE - start) }, () => client.expect(201, 'POST', '/v1/payment_methods.json', { json: { payment_method: paymentMethod } })));
    }
  } finally {
    await client.close();
  }
}

async function readOnlySecret(env: Record<string, string>, organization: string, environmentKey: string): Promise<ApiCredentials> {
  const secret = JSON.parse(
    await runCofferCommand(['access-secrets', 'create', '--organization', organization, '--environment', environmentKey, '--role', 'read', '--json'], env),
  ) as { access_secret: string };
  return { environment_key: environmentKey, access_secret: secret.access_secret };
}

/** GETs `path` in a loop until `stop()`; each answer's time in ms. */
async function loop(baseUrl: string, path: string, credentials: ApiCredentials, stop: () => boolean, seen: { bytes: number; pages: number }): Promise<number[]> {
  const agent = new Agent({ connections: 1, keepAliveTimeout: 10_000 });
  const times: number[] = [];
  try {
    while (!stop()) {
      const started = performance.now();
      const response = await request(`${baseUrl}${path}`, { method: 'GET', headers: { authorization: basicAuth(credentials) }, dispatcher: agent, signal: AbortSignal.timeout(120_000) });
      // Counted, not kept: the reader's own parsing would compete with the server for the CPU.
      for await (const chunk of response.body) seen.bytes += (chunk as Buffer).length;
      if (response.statusCode !== 200) throw new Error(`GET ${path.replace(/\?.*/, '')}: ${response.statusCode}`);
      seen.pages += 1;
      times.push(performance.now() - started);
    }
  } finally {
    await agent.close();
  }
  return times;
}

/** The server's longest event-loop delay since the previous scrape (prom-client resets it on each). */
async function longestEventLoopDelayMs(baseUrl: string, token: string): Promise<number> {
  const response = await request(`${baseUrl}/metrics`, { method: 'GET', headers: { authorization: `Bearer ${token}` } });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET /metrics: ${response.statusCode}`);
  const [sample] = samplesOf(parsePrometheusText(text), 'coffer_nodejs_eventloop_lag_max_seconds');
  return Math.round((sample?.value ?? Number.NaN) * 1000 * 10) / 10;
}

interface Phase {
  victim: LatencySummary;
  victimRequests: number;
  longestEventLoopDelayMs: number;
  pages: number;
  pageBytes: number;
  pageMs: number | null;
}

/** The victim measured for `seconds` while `readers` readers loop on the large page. */
async function phase(baseUrl: string, metricsToken: string, victim: ApiCredentials, reader: ApiCredentials, readers: number, format: string, seconds: number): Promise<Phase> {
  let stopped = false;
  const stop = () => stopped;
  const seen = { bytes: 0, pages: 0 };
  const pagePath = `/v1/payment_methods.${format}?count=${MAX_PAGE_SIZE}`;
  const readerLoops = Array.from({ length: readers }, () => loop(baseUrl, pagePath, reader, stop, seen));
  // The readers get going (their first page under way) before the victim is timed.
  if (readers > 0) await new Promise((resolve) => setTimeout(resolve, 500));
  await longestEventLoopDelayMs(baseUrl, metricsToken);
  const victimSeen = { bytes: 0, pages: 0 };
  const deadline = performance.now() + seconds * 1000;
  const victimTimes = await loop(baseUrl, '/v1/gateways.json?count=1', victim, () => performance.now() >= deadline, victimSeen);
  const longest = await longestEventLoopDelayMs(baseUrl, metricsToken);
  stopped = true;
  const pageTimes = (await Promise.all(readerLoops)).flat();
  const pageMs = pageTimes.length === 0 ? null : Math.round(summarizeLatencies(pageTimes).p50);
  return { victim: summarizeLatencies(victimTimes), victimRequests: victimTimes.length, longestEventLoopDelayMs: longest, pages: seen.pages, pageBytes: seen.pages === 0 ? 0 : Math.round(seen.bytes / seen.pages), pageMs };
}

/** Runs the drill on a fresh SQLite store (see the comment at the top). */
export async function availabilityPagesDrill(options: PagesDrillOptions): Promise<DrillReport> {
  const name = `availability: ${options.readers} readers of a ${MAX_PAGE_SIZE}-row page of large payment methods (${options.format}) beside a victim tenant`;
  const target = await startTarget({ store: 'sqlite', build: 'current', postgresUrl: null, fakeGatewayUrl: null, logDir: options.logDir, sizes: { cards: 1, purchases: 0 } });
  try {
    const baseUrl = target.coffer.url;
    const organization = target.init.organization_token;
    await seedLargePage(baseUrl, target.tenant.sandbox, options.shape);
    const reader = await readOnlySecret(target.env, organization, target.init.environment_key);
    const victim = await createVictimTenant(baseUrl, target.env);
    const idle = await phase(baseUrl, target.metricsToken, victim, reader, 0, options.format, options.seconds);
    const one = await phase(baseUrl, target.metricsToken, victim, reader, 1, options.format, options.seconds);
    const attack = await phase(baseUrl, target.metricsToken, victim, reader, options.readers, options.format, options.seconds);
    const ratio = idle.victim.p50 === 0 ? Number.POSITIVE_INFINITY : attack.victim.p50 / idle.victim.p50;
    const lost = ratio <= 2 ? [] : [`the victim's p50 beside ${options.readers} readers is ${attack.victim.p50} ms, ${ratio.toFixed(1)}× its idle ${idle.victim.p50} ms (more than 2×)`];
    return {
      name,
      ok: lost.length === 0,
      tried: [
        `${MAX_PAGE_SIZE} payment methods with \`data\` of ${options.shape} (${MAX_FREE_FORM_BYTES} bytes of JSON, ${MAX_NESTING} levels) and ${METADATA_LIMITS.keys} metadata values of ${METADATA_LIMITS.valueLength} \`&\``,
        `GET /v1/payment_methods.${options.format}?count=${MAX_PAGE_SIZE} in a loop with a read-only secret; victim: GET /v1/gateways.json?count=1 in a loop, another organization; ${options.seconds} s a phase`,
      ],
      lost,
      figures: {
        page_bytes: attack.pageBytes || one.pageBytes,
        page_ms_p50_one_reader: one.pageMs ?? 'none finished',
        page_ms_p50_attack: attack.pageMs ?? 'none finished',
        pages_read_attack: attack.pages,
        victim_idle_p50_ms: idle.victim.p50,
        victim_idle_p99_ms: idle.victim.p99,
        victim_one_reader_p50_ms: one.victim.p50,
        victim_one_reader_p99_ms: one.victim.p99,
        victim_attack_p50_ms: attack.victim.p50,
        victim_attack_p99_ms: attack.victim.p99,
        victim_attack_requests: attack.victimRequests,
        victim_attack_p50_ratio: Math.round(ratio * 100) / 100,
        longest_event_loop_delay_idle_ms: idle.longestEventLoopDelayMs,
        longest_event_loop_delay_one_reader_ms: one.longestEventLoopDelayMs,
        longest_event_loop_delay_attack_ms: attack.longestEventLoopDelayMs,
        server_peak_rss_mb: target.coffer.peakRssMb() ?? 'unknown',
      },
      logFiles: [target.logFile, `${target.logFile}.stderr`],
    };
  } finally {
    await target.close();
  }
}
