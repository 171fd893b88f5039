import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import pino from 'pino';
import { purchaseJson, purchaseXml, SANDBOX_PAN, cardFields } from './bench-tenant.js';
import { repoRoot } from './coffer-process.js';
import { percentile } from './latency.js';
import { createScratchDatabase, type ScratchDatabase } from './postgres-database.js';
import type { StoreKind } from './summary.js';

/**
 * Before/after on a shared, noisy machine: two builds of Coffer (this checkout's dist/ and the
 * --compare checkout's) loaded side by side in ONE process, each on a store of its own, driven
 * in alternating rounds of sequential requests through Fastify's inject. Both see the same
 * machine at the same moments, so the ratio holds even when absolute figures drift. What it
 * measures is the cost of one request (CPU and store), not throughput under concurrency.
 */

interface Injectable {
  inject(request: { method: string; url: string; headers: Record<string, string>; payload?: string }): Promise<{ statusCode: number; body: string }>;
  close(): Promise<unknown>;
}

interface LoadedBuild {
  label: string;
  app: Injectable;
  close(): Promise<void>;
  auth: string;
  gateway: string;
  cards: string[];
  transactions: string[];
}

/** One scenario's per-request cost in each build: median and p90 of the rounds, µs. */
export interface AbLine {
  scenario: string;
  medians: Record<string, number>;
  p90s: Record<string, number>;
  /** Current build's median over the compare build's (below 1: current is cheaper). */
  ratio: number;
  /** Process CPU time (user + system) per request, median of rounds, µs: steadier than wall time on a loaded machine. */
  cpuMedians: Record<string, number>;
  /** The same ratio on CPU time. */
  cpuRatio: number;
}

/** One round's cost per request: wall-clock and this process's CPU time, µs. */
interface RoundCost {
  wall: number;
  cpu: number;
}

type Request = { method: string; url: string; headers: Record<string, string>; payload?: string };

async function loadBuild(label: string, dist: string, store: StoreKind, postgresUrl: string | null, workDir: string): Promise<LoadedBuild> {
  const load = (file: string) => import(pathToFileURL(path.join(dist, file)).href);
  const { buildCore, buildApp } = await load('app.js');
  const { loadConfig } = await load('config/config.js');
  const { createLogger } = await load('logger.js');
  const dataDir = path.join(workDir, label);
  let database: ScratchDatabase | null = null;
  if (store === 'postgres') database = await createScratchDatabase(postgresUrl as string, 'coffer_ab');
  const config = loadConfig({ COFFER_DATA_DIR: dataDir, COFFER_TLS: 'off', COFFER_RATE_LIMITS: '{"*":null}', ...(database === null ? {} : { COFFER_DATABASE_URL: database.url }) });
  const core = await buildCore(config);
  const init = await core.tenancy.init();
  // Logs are written as in production (a request line each), to a file nobody reads.
  const app: Injectable = buildApp(core, createLogger('info', pino.destination({ dest: path.join(workDir, `${label}.log`), sync: false })), null);
  const auth = `Basic ${Buffer.from(`${init.environment_key}:${init.access_secret}`).toString('base64')}`;
  const post = async (url: string, body: unknown) => JSON.parse((await app.inject({ method: 'POST', url, headers: { authorization: auth, 'content-type': 'application/json' }, payload: JSON.stringify(body) })).body);
  const gateway = (await post('/v1/gateways.json', { gateway: { gateway_type: 'test' } })).gateway.token as string;
  const cards: string[] = [];
  for (let index = 0; index < 50; index += 1) cards.push((await post('/v1/payment_methods.json', { payment_method: { credit_card: cardFields(SANDBOX_PAN), retained: true } })).transaction.payment_method.token);
  const transactions: string[] = [];
  for (const card of cards) transactions.push((await post(`/v1/gateways/${gateway}/purchase.json`, JSON.parse(purchaseJson(card)))).transaction.token);
  return {
    label,
    app,
    auth,
    gateway,
    cards,
    transactions,
    close: async () => {
      await app.close();
      await core.close();
      await database?.drop();
    },
  };
}

const SCENARIOS: Record<string, (build: LoadedBuild, turn: number) => Request> = {
  tokenize: (build) => ({ method: 'POST', url: '/v1/payment_methods.json', headers: { authorization: build.auth, 'content-type': 'application/json' }, payload: JSON.stringify({ payment_method: { credit_card: cardFields(SANDBOX_PAN) } }) }),
  purchase_json: (build, turn) => ({ method: 'POST', url: `/v1/gateways/${build.gateway}/purchase.json`, headers: { authorization: build.auth, 'content-type': 'application/json' }, payload: purchaseJson(build.cards[turn % build.cards.length] as string) }),
  purchase_xml: (build, turn) => ({ method: 'POST', url: `/v1/gateways/${build.gateway}/purchase.xml`, headers: { authorization: build.auth, 'content-type': 'application/xml' }, payload: purchaseXml(build.cards[turn % build.cards.length] as string) }),
  show_transaction: (build, turn) => ({ method: 'GET', url: `/v1/transactions/${build.transactions[turn % build.transactions.length]}.json`, headers: { authorization: build.auth } }),
  list_transactions: (build) => ({ method: 'GET', url: '/v1/transactions.json', headers: { authorization: build.auth } }),
  list_transactions_gzip: (build) => ({ method: 'GET', url: '/v1/transactions.json', headers: { authorization: build.auth, 'accept-encoding': 'gzip' } }),
};

async function round(build: LoadedBuild, scenario: string, requests: number): Promise<RoundCost> {
  const make = SCENARIOS[scenario] as (build: LoadedBuild, turn: number) => Request;
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  for (let turn = 0; turn < requests; turn += 1) {
    const reply = await build.app.inject(make(build, turn));
    if (reply.statusCode >= 300) throw new Error(`${build.label} ${scenario}: status ${reply.statusCode}`);
  }
  const wall = ((performance.now() - started) * 1000) / requests;
  const cpu = process.cpuUsage(cpuBefore);
  return { wall, cpu: (cpu.user + cpu.system) / requests };
}

/** Alternating rounds of `requests` sequential requests per build and scenario; medians in µs. */
export async function compareInProcess(options: { compareDir: string; store: StoreKind; postgresUrl: string | null; rounds: number; requests: number; only?: readonly string[] }): Promise<AbLine[]> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-ab-'));
  const builds = [
    await loadBuild('current', path.join(repoRoot, 'dist'), options.store, options.postgresUrl, workDir),
    await loadBuild('compare', path.resolve(options.compareDir, 'dist'), options.store, options.postgresUrl, workDir),
  ];
  try {
    const lines: AbLine[] = [];
    for (const scenario of Object.keys(SCENARIOS).filter((id) => options.only === undefined || options.only.includes(id))) {
      const samples: Record<string, number[]> = { current: [], compare: [] };
      const cpuSamples: Record<string, number[]> = { current: [], compare: [] };
      for (let index = 0; index < options.rounds; index += 1) {
        // Who goes first alternates too: neither build always gets the warmer machine.
        const order = index % 2 === 0 ? builds : [...builds].reverse();
        for (const build of order) {
          const cost = await round(build, scenario, options.requests);
          (samples[build.label] as number[]).push(cost.wall);
          (cpuSamples[build.label] as number[]).push(cost.cpu);
        }
      }
      const median = (label: string) => Math.round(percentile(Float64Array.from(samples[label] as number[]).sort(), 50));
      const cpuMedian = (label: string) => Math.round(percentile(Float64Array.from(cpuSamples[label] as number[]).sort(), 50));
      const p90 = (label: string) => Math.round(percentile(Float64Array.from(samples[label] as number[]).sort(), 90));
      lines.push({
        scenario,
        medians: { current: median('current'), compare: median('compare') },
        p90s: { current: p90('current'), compare: p90('compare') },
        ratio: Math.round((median('current') / median('compare')) * 1000) / 1000,
        cpuMedians: { current: cpuMedian('current'), compare: cpuMedian('compare') },
        cpuRatio: Math.round((cpuMedian('current') / cpuMedian('compare')) * 1000) / 1000,
      });
    }
    return lines;
  } finally {
    for (const build of builds) await build.close();
    fs.rmSync(workDir, { recursive: true, force: true });
  }
}

/** The A/B lines as a table. */
export function formatAb(lines: AbLine[], store: StoreKind, rounds: number, requests: number): string {
  const header = `In-process A/B on ${store}: ${rounds} alternating rounds of ${requests} sequential requests per build; µs per request (median of rounds, p90 of rounds); CPU = this process's user + system time per request`;
  const rows = lines.map(
    (line) =>
      `${line.scenario.padEnd(22)} current ${String(line.medians.current).padStart(6)} (p90 ${line.p90s.current})   compare ${String(line.medians.compare).padStart(6)} (p90 ${line.p90s.compare})   current/compare ${line.ratio.toFixed(3)}   CPU ${line.cpuMedians.current} / ${line.cpuMedians.compare} = ${line.cpuRatio.toFixed(3)}`,
  );
  return [header, ...rows].join('\n');
}
