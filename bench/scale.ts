import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config/config.js';
import { basicAuth } from './api-client.js';
import { startTarget, type BenchTarget } from './bench-target.js';
import { startCoffer, type RunningCoffer } from './coffer-process.js';
import { runLoad } from './load-driver.js';
import type { LoadJob } from './load-job.js';
import { cofferScenarios, type LoadShape, type ScenarioId } from './scenarios.js';
import { formatScaleReport, type ScaleReport, type ScaleStoreResult } from './scale-report.js';
import { DEPTHS, seedStore } from './seeder.js';
import { figuresOf, type Figures, type StoreKind } from './summary.js';

/**
 * `npm run bench:scale`: per store, the purchase, show and list scenarios on a fresh store;
 * then the server stops, the fast bulk path seeds 1,000,000 payment methods and 1,000,000
 * transactions (`--rows N` for another size), the server restarts on the seeded store and the
 * same scenarios run again, plus the list page after `since_token` deep into the data.
 */

const RATE_LIMITS = '{"*":null}';
const SCENARIOS: ScenarioId[] = ['purchase_json', 'show_transaction', 'list_transactions'];
const progress = (line: string) => process.stderr.write(`bench:scale: ${line}\n`);

interface ScaleOptions {
  rows: number;
  /** Only this store (both by default, PostgreSQL when configured). */
  store: StoreKind | null;
  json: boolean;
  shape: LoadShape;
  warmupSeconds: number;
  postgresUrl: string | null;
}

function parseScaleOptions(argv: readonly string[], env: Record<string, string | undefined>): ScaleOptions {
  let rows = 1_000_000;
  let duration = 10;
  let json = env.npm_config_json === 'true';
  let store: StoreKind | null = null;
  for (let index = 0; index < argv.length; index += 1) {
    const flag = argv[index];
    const value = Number(argv[index + 1]);
    if (flag === '--json') json = true;
    else if (flag === '--store' && (argv[index + 1] === 'sqlite' || argv[index + 1] === 'postgres')) {
      store = argv[index + 1] as StoreKind;
      index += 1;
    } else if ((flag === '--rows' || flag === '--duration') && Number.isInteger(value) && value > 0) {
      if (flag === '--rows') rows = value;
      else duration = value;
      index += 1;
    } else throw new Error(`usage: npm run bench:scale -- [--rows N] [--duration S] [--store sqlite|postgres] [--json] (unknown or invalid ${flag})`);
  }
  const postgresUrl = env.COFFER_BENCH_DATABASE_URL?.trim() || null;
  if (store === 'postgres' && postgresUrl === null) throw new Error('--store postgres needs COFFER_BENCH_DATABASE_URL');
  return { rows, json, store, shape: { connections: 10, durationSeconds: duration }, warmupSeconds: 2, postgresUrl };
}

async function measure(job: LoadJob, options: ScaleOptions, name: string): Promise<Figures> {
  await runLoad({ ...job, durationSeconds: options.warmupSeconds });
  return figuresOf(name, await runLoad(job));
}

async function measureScenarios(coffer: RunningCoffer, target: BenchTarget, options: ScaleOptions): Promise<Record<string, Figures>> {
  const out: Record<string, Figures> = {};
  for (const scenario of cofferScenarios(coffer.url, target.tenant, options.shape, SCENARIOS)) {
    progress(`${target.store}: ${scenario.title}`);
    out[scenario.id] = await measure(scenario.job, options, scenario.title);
  }
  return out;
}

async function storeSizeMb(target: BenchTarget): Promise<number | null> {
  const config = loadConfig(target.env).store;
  if (config.kind === 'sqlite') {
    const bytes = ['', '-wal'].map((suffix) => fs.statSync(`${config.path}${suffix}`, { throwIfNoEntry: false })?.size ?? 0).reduce((a, b) => a + b, 0);
    return Math.round(bytes / 1024 / 1024);
  }
  const client = new pg.Client({ connectionString: config.url });
  await client.connect();
  try {
    const result = await client.query<{ size: string }>('select pg_database_size(current_database()) as size');
    return Math.round(Number(result.rows[0]?.size ?? 0) / 1024 / 1024);
  } finally {
    await client.end();
  }
}

async function scaleStore(store: StoreKind, options: ScaleOptions, logDir: string): Promise<ScaleStoreResult> {
  progress(`${store}: fresh store`);
  const target = await startTarget({ store, build: 'current', postgresUrl: options.postgresUrl, fakeGatewayUrl: null, logDir });
  let seededCoffer: RunningCoffer | null = null;
  try {
    const empty = await measureScenarios(target.coffer, target, options);
    // Read while the process lives: its /proc entry goes with it.
    const emptyPeakRss = target.coffer.peakRssMb();
    await target.coffer.stop();
    progress(`${store}: seeding ${options.rows.toLocaleString('en-US')} payment methods and as many transactions`);
    const seeded = await seedStore({
      store: loadConfig(target.env).store,
      masterKey: Buffer.from(target.env.COFFER_MASTER_KEY as string, 'base64'),
      environmentKey: target.tenant.sandbox.environment_key,
      gatewayToken: target.tenant.testGateway,
      paymentMethods: options.rows,
      transactions: options.rows,
      onProgress: (line) => progress(`${store}: ${line}`),
    });
    seededCoffer = await startCoffer({ env: target.env, logFile: target.logFile });
    // Purchases and shows now spread over rows from the whole seeded range.
    const spread: BenchTarget = { ...target, tenant: { ...target.tenant, retainedCards: seeded.samplePaymentMethods, transactions: seeded.sampleTransactions } };
    const after = await measureScenarios(seededCoffer, spread, options);
    const auth = basicAuth(target.tenant.sandbox);
    const pagination: ScaleStoreResult['pagination'] = [];
    for (const { fraction, token } of seeded.transactionsAtDepth) {
      const depth = `${(fraction * 100).toFixed(1)}% (row ${Math.floor(fraction * options.rows).toLocaleString('en-US')})`;
      progress(`${store}: list after since_token at ${depth}`);
      const job: LoadJob = { url: seededCoffer.url, method: 'GET', paths: [`/v1/transactions.json?since_token=${token}`], headers: { accept: 'application/json', authorization: auth }, ...options.shape };
      pagination.push({ depth, figures: await measure(job, options, `list after ${depth}`) });
    }
    const newest: LoadJob = { url: seededCoffer.url, method: 'GET', paths: ['/v1/transactions.json?order=desc'], headers: { accept: 'application/json', authorization: auth }, ...options.shape };
    pagination.push({ depth: 'newest first (order=desc)', figures: await measure(newest, options, 'list newest first') });
    const seededPeakRss = seededCoffer.peakRssMb();
    return {
      store,
      rows: { paymentMethods: options.rows, transactions: options.rows },
      seeding: {
        payment_methods_per_second: seeded.paymentMethodsPerSecond,
        transactions_per_second: seeded.transactionsPerSecond,
        payment_method_seconds: seeded.paymentMethodSeconds,
        transaction_seconds: seeded.transactionSeconds,
      },
      empty,
      seeded: after,
      pagination,
      store_size_mb: await storeSizeMb(target),
      peak_rss_mb: { empty: emptyPeakRss, seeded: seededPeakRss },
    };
  } finally {
    await seededCoffer?.stop();
    await target.close();
  }
}

async function main(): Promise<void> {
  const options = parseScaleOptions(process.argv.slice(2), process.env);
  const before = os.loadavg().map((value) => Number(value.toFixed(2)));
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-scale-logs-'));
  progress(`rate limits lifted for the run: COFFER_RATE_LIMITS='${RATE_LIMITS}'; logs in ${logDir} (removed at the end); list depths ${DEPTHS.join(', ')}`);
  const stores: StoreKind[] = options.store !== null ? [options.store] : options.postgresUrl === null ? ['sqlite'] : ['sqlite', 'postgres'];
  const results: ScaleStoreResult[] = [];
  for (const store of stores) results.push(await scaleStore(store, options, logDir));
  const report: ScaleReport = {
    settings: { connections: options.shape.connections, duration_seconds: options.shape.durationSeconds, rate_limits: RATE_LIMITS, tls: 'off' },
    machine: { node: process.version, cpus: os.cpus().length, load_average_before: before, load_average_after: os.loadavg().map((value) => Number(value.toFixed(2))) },
    stores: results,
  };
  process.stdout.write(options.json ? `${JSON.stringify(report)}\n` : formatScaleReport(report));
  fs.rmSync(logDir, { recursive: true, force: true });
}

main().catch((error: unknown) => {
  process.stderr.write(`bench:scale: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
