import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startTarget, type BenchTarget } from './bench-target.js';
import { startHelper, type HelperServer } from './helper-process.js';
import { runLoad } from './load-driver.js';
import { commitStatsBetween, scrapeCommits, type CommitScrape } from './commit-metrics.js';
import type { LoadJob } from './load-job.js';
import { OptionsError, parseBenchOptions, USAGE, type BenchOptions } from './options.js';
import { probeDisk } from './disk-probe.js';
import { compareInProcess, formatAb } from './in-process-ab.js';
import { profilePurchase } from './profile-run.js';
import { formatReport } from './report.js';
import { medianRound, roundsSummary, type RoundsSummary } from './rounds.js';
import { baselineJob, cofferScenarios, fakeGatewayJob, type LoadShape, type ScenarioId } from './scenarios.js';
import { figuresOf, gatewayOverhead, scenarioFigures, unclean, type BenchReport, type BuildLabel, type Figures, type ScenarioFigures, type StoreKind } from './summary.js';

/**
 * `npm run bench`: the baseline, the fake gateway alone, then every scenario against Coffer on
 * SQLite (and PostgreSQL when COFFER_BENCH_DATABASE_URL is set), each Coffer a `coffer serve`
 * child process and each load run an autocannon child process. With --compare, a second build
 * runs beside the first and every scenario alternates between the two.
 */

const RATE_LIMITS = '{"*":null}';

const progress = (line: string) => process.stderr.write(`bench: ${line}\n`);

/** One warm-up run (discarded), then the measured run, with the store's commits made during it. */
async function measure(job: LoadJob, options: BenchOptions, target?: BenchTarget) {
  await runLoad({ ...job, durationSeconds: options.warmupSeconds });
  const before = target === undefined ? null : await commitScrape(target);
  const result = await runLoad(job);
  const after = before === null || target === undefined ? null : await commitScrape(target);
  return { result, commits: before === null || after === null ? null : commitStatsBetween(before, after) };
}

/** The server's commit histograms; null for a build that has no /metrics (an older --compare). */
async function commitScrape(target: BenchTarget): Promise<CommitScrape | null> {
  try {
    return await scrapeCommits(`${target.coffer.url}/metrics`, target.metricsToken);
  } catch {
    return null;
  }
}

interface Build {
  label: BuildLabel;
  bin?: string;
}

function buildsOf(options: BenchOptions): Build[] {
  if (options.compareDir === null) return [{ label: 'current' }];
  const bin = path.resolve(options.compareDir, 'bin', 'coffer');
  if (!fs.existsSync(bin)) throw new OptionsError(`--compare: no bin/coffer in ${options.compareDir}`);
  return [{ label: 'current' }, { label: 'compare', bin }];
}

async function benchStore(
  store: StoreKind,
  options: BenchOptions,
  context: { fake: HelperServer; logDir: string; shape: LoadShape; baseline: Figures; rss: Record<string, number | null>; rounds: RoundsSummary[] },
): Promise<ScenarioFigures[]> {
  const targets: BenchTarget[] = [];
  try {
    for (const build of buildsOf(options)) {
      progress(`starting ${build.label} Coffer on ${store}`);
      targets.push(
        await startTarget({
          store,
          build: build.label,
          postgresUrl: options.postgresUrl,
          fakeGatewayUrl: context.fake.url,
          logDir: context.logDir,
          masterKeyProvider: options.masterKeyProvider,
          ...(build.bin === undefined ? {} : { bin: build.bin }),
        }),
      );
    }
    const results: ScenarioFigures[] = [];
    const ids = cofferScenarios('', (targets[0] as BenchTarget).tenant, context.shape, options.only).map((scenario) => scenario.id);
    for (const id of ids) {
      const runs = new Map<BenchTarget, ScenarioFigures[]>(targets.map((target) => [target, []]));
      for (let round = 0; round < options.rounds; round += 1) {
        // Builds alternate scenario by scenario, so both see the same machine conditions; with
        // several rounds, who goes first swaps every round.
        for (const target of round % 2 === 0 ? targets : [...targets].reverse()) {
          const scenario = cofferScenarios(target.coffer.url, target.tenant, context.shape, [id as ScenarioId])[0];
          if (scenario === undefined) continue;
          progress(`${target.build} ${store}: ${scenario.title}${options.rounds > 1 ? ` (round ${round + 1} of ${options.rounds})` : ''}`);
          const { result, commits } = await measure(scenario.job, options, target);
          runs.get(target)?.push({ ...scenarioFigures(result, { scenario: id, store, build: target.build, title: scenario.title, baselineRps: context.baseline.rps }), commits });
        }
      }
      // A round with failures is the one reported, so that the run is flagged (unclean) whatever the median.
      for (const rows of runs.values()) if (rows.length > 0) results.push(rows.find((row) => row.non_2xx + row.errors > 0) ?? medianRound(rows));
      const [current, compare] = targets.map((target) => runs.get(target) ?? []);
      if (options.rounds > 1 && current !== undefined && compare !== undefined && current.length > 0 && compare.length > 0) context.rounds.push(roundsSummary(current, compare));
    }
    for (const target of targets) context.rss[`${target.build === 'compare' ? 'compare ' : ''}coffer ${store}`] = target.coffer.peakRssMb();
    return results;
  } finally {
    for (const target of targets) await target.close();
  }
}

async function main(): Promise<void> {
  const options = parseBenchOptions(process.argv.slice(2), process.env);
  if (options.profile) {
    process.stdout.write(await profilePurchase(options));
    return;
  }
  if (options.inProcess) {
    const rounds = options.quick ? 6 : 20;
    const requests = options.quick ? 100 : 200;
    for (const store of options.postgresUrl === null ? (['sqlite'] as const) : (['sqlite', 'postgres'] as const)) {
      progress(`in-process A/B on ${store} against ${options.compareDir}`);
      const lines = await compareInProcess({ compareDir: options.compareDir as string, store, postgresUrl: options.postgresUrl, rounds, requests, ...(options.only === undefined ? {} : { only: options.only }) });
      process.stdout.write(options.json ? `${JSON.stringify({ store, rounds, requests, lines })}\n` : `${formatAb(lines, store, rounds, requests)}\n`);
    }
    return;
  }
  const loadBefore = os.loadavg().map((value) => Number(value.toFixed(2)));
  // Before anything else runs: the disk alone, on a machine still quiet.
  const disk = probeDisk();
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-bench-logs-'));
  const shape: LoadShape = { connections: options.connections, durationSeconds: options.durationSeconds };
  const stores: StoreKind[] = options.postgresUrl === null ? ['sqlite'] : ['sqlite', 'postgres'];
  progress(`rate limits lifted for the run: COFFER_RATE_LIMITS='${RATE_LIMITS}'; logs in ${logDir} (removed after a clean run)`);
  const fake = await startHelper('./fake-gateway.js', ['50']);
  const baselineServer = await startHelper('./baseline-server.js');
  const rss: Record<string, number | null> = {};
  try {
    progress('baseline: bare Fastify parsing the same JSON body');
    const baseline = figuresOf('baseline: bare Fastify, same JSON body', (await measure(baselineJob(baselineServer.url, shape), options)).result);
    const gatewayAlone = options.only === undefined || options.only.includes('purchase_gateway_50ms');
    let fakeFigures: Figures | null = null;
    if (gatewayAlone) {
      progress('fake gateway alone (answers after 50 ms)');
      fakeFigures = figuresOf('fake gateway alone (50 ms)', (await measure(fakeGatewayJob(fake.url, shape), options)).result);
    }
    const scenarios: ScenarioFigures[] = [];
    const rounds: RoundsSummary[] = [];
    for (const store of stores) scenarios.push(...(await benchStore(store, options, { fake, logDir, shape, baseline, rss, rounds })));
    rss.baseline = baselineServer.peakRssMb();
    rss['fake gateway'] = fake.peakRssMb();
    const report: BenchReport = {
      scenarios,
      baseline,
      fake_gateway: fakeFigures,
      gateway_overhead:
        fakeFigures === null ? [] : scenarios.filter((row) => row.scenario === 'purchase_gateway_50ms').map((row) => gatewayOverhead(row, fakeFigures as Figures)),
      ...(rounds.length === 0 ? {} : { rounds }),
      peak_rss_mb: rss,
      settings: {
        mode: options.quick ? 'quick' : 'full',
        connections: options.connections,
        duration_seconds: options.durationSeconds,
        rounds: options.rounds,
        rate_limits: RATE_LIMITS,
        tls: 'off',
        log_level: 'info',
        stores,
        master_key_provider: options.masterKeyProvider,
      },
      machine: {
        node: process.version,
        cpus: os.cpus().length,
        load_average_before: loadBefore,
        load_average_after: os.loadavg().map((value) => Number(value.toFixed(2))),
        fdatasync: disk,
      },
    };
    process.stdout.write(options.json ? `${JSON.stringify(report)}\n` : formatReport(report));
    const problems = unclean(report);
    if (problems.length > 0) {
      progress(`runs with failures (their figures do not count); logs kept in ${logDir}:\n  ${problems.join('\n  ')}`);
      process.exitCode = 1;
    } else fs.rmSync(logDir, { recursive: true, force: true });
  } finally {
    await baselineServer.stop();
    await fake.stop();
  }
}

main().catch((error: unknown) => {
  if (error instanceof OptionsError) process.stderr.write(`bench: ${error.message}\n${USAGE}\n`);
  else process.stderr.write(`bench: failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
