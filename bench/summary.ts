import type { RoundsSummary } from './rounds.js';
import type { DiskProbe } from './disk-probe.js';
import type { CommitStats } from './commit-metrics.js';
import type { LoadResult } from './load-job.js';
import type { ScenarioId } from './scenarios.js';

/** Where a Coffer under test keeps its data. */
export type StoreKind = 'sqlite' | 'postgres';

/** The figures of one load run, as the report states them. */
export interface Figures {
  name: string;
  /** Completed responses per second over the run. */
  rps: number;
  p50_ms: number;
  p99_ms: number;
  requests: number;
  /** Responses that were not 2xx, and connection errors: a run with any is not a clean figure. */
  non_2xx: number;
  errors: number;
}

/** One scenario against one Coffer, with its ratio to the baseline measured in the same run. */
export interface ScenarioFigures extends Figures {
  scenario: ScenarioId;
  store: StoreKind;
  /** `current` (this checkout) or `compare` (the build given with --compare). */
  build: BuildLabel;
  ratio_to_baseline: number;
  /** The store's commits during the measured run, from the server's /metrics (null: a build without them). */
  commits?: CommitStats | null;
}

export type BuildLabel = 'current' | 'compare';

/** Coffer's own share of a purchase through the 50 ms fake gateway. */
export interface GatewayOverhead {
  store: StoreKind;
  build: BuildLabel;
  gateway_p50_ms: number;
  gateway_p99_ms: number;
  coffer_p50_ms: number;
  coffer_p99_ms: number;
  added_p50_ms: number;
  added_p99_ms: number;
}

/** Everything `npm run bench -- --json` prints: one JSON object. */
export interface BenchReport {
  scenarios: ScenarioFigures[];
  baseline: Figures;
  /** The fake gateway measured directly (no Coffer in between). */
  fake_gateway: Figures | null;
  gateway_overhead: GatewayOverhead[];
  /** With --rounds N > 1 and --compare: each scenario's CPU ratios round by round (rounds.ts). */
  rounds?: RoundsSummary[];
  /** Peak resident set size per process, MiB (Linux VmHWM). */
  peak_rss_mb: Record<string, number | null>;
  settings: {
    mode: 'quick' | 'full';
    connections: number;
    duration_seconds: number;
    /** Measured runs per scenario and build; each build's row is its median round (rounds.ts). */
    rounds?: number;
    /** The COFFER_RATE_LIMITS every Coffer under test ran with. */
    rate_limits: string;
    tls: 'off';
    log_level: string;
    stores: StoreKind[];
    /** Where Coffer's master key lived (docs/key-custody.md): env, or pkcs11 on SoftHSM2. */
    master_key_provider?: 'env' | 'pkcs11';
  };
  /** `fdatasync`: the disk's own durable-write latency, probed before the runs (disk-probe.ts). */
  machine: { node: string; cpus: number; load_average_before: number[]; load_average_after: number[]; fdatasync: DiskProbe };
}

const round = (value: number, digits: number) => Number(value.toFixed(digits));

/** Requests per second and latency percentiles of a load run. */
export function figuresOf(name: string, result: LoadResult): Figures {
  return {
    name,
    rps: result.durationSeconds > 0 ? round(result.requests / result.durationSeconds, 1) : 0,
    p50_ms: round(result.latency.p50, 2),
    p99_ms: round(result.latency.p99, 2),
    requests: result.requests,
    non_2xx: result.non2xx,
    errors: result.errors,
  };
}

/** `rps / baselineRps`, three decimals; 0 when the baseline did nothing (never Infinity). */
export function ratioToBaseline(rps: number, baselineRps: number): number {
  return baselineRps > 0 ? round(rps / baselineRps, 3) : 0;
}

export function scenarioFigures(
  result: LoadResult,
  context: { scenario: ScenarioId; store: StoreKind; build: BuildLabel; title: string; baselineRps: number },
): ScenarioFigures {
  const prefix = context.build === 'compare' ? 'compare ' : '';
  const figures = figuresOf(`${prefix}${context.store}: ${context.title}`, result);
  return { ...figures, scenario: context.scenario, store: context.store, build: context.build, ratio_to_baseline: ratioToBaseline(figures.rps, context.baselineRps) };
}

/** Latency Coffer adds on top of the gateway's own, at p50 and p99 (never below zero). */
export function gatewayOverhead(coffer: ScenarioFigures, gateway: Figures): GatewayOverhead {
  return {
    store: coffer.store,
    build: coffer.build,
    gateway_p50_ms: gateway.p50_ms,
    gateway_p99_ms: gateway.p99_ms,
    coffer_p50_ms: coffer.p50_ms,
    coffer_p99_ms: coffer.p99_ms,
    added_p50_ms: round(Math.max(0, coffer.p50_ms - gateway.p50_ms), 2),
    added_p99_ms: round(Math.max(0, coffer.p99_ms - gateway.p99_ms), 2),
  };
}

/** Runs whose figures are not clean: any non-2xx answer or connection error. */
export function unclean(report: Pick<BenchReport, 'scenarios' | 'baseline' | 'fake_gateway'>): string[] {
  const all: Figures[] = [report.baseline, ...(report.fake_gateway === null ? [] : [report.fake_gateway]), ...report.scenarios];
  return all.filter((figures) => figures.non_2xx > 0 || figures.errors > 0).map((figures) => `${figures.name}: ${figures.non_2xx} non-2xx, ${figures.errors} errors`);
}
