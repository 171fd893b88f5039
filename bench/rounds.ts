import { percentile } from './latency.js';
import type { ScenarioId } from './scenarios.js';
import type { ScenarioFigures, StoreKind } from './summary.js';

/**
 * `--rounds N`: every scenario is measured N times per build, the builds' order swapped each round,
 * both servers started once and warm throughout. One pair of 10 s runs on a shared 2-core machine
 * can differ by a third with nothing changed; the per-round ratio of CPU per request, and its
 * median, tell apart a few percent (docs/benchmarks.md, "Hooks without promises").
 */

/** One scenario's rounds with --compare: CPU per request, current / compare, round by round. */
export interface RoundsSummary {
  scenario: ScenarioId;
  store: StoreKind;
  /** One ratio per round in which both builds reported their CPU; rounded to three decimals. */
  cpu_ratios: number[];
  /** The median of `cpu_ratios` (the lower middle one of an even count); null when there is none. */
  median_cpu_ratio: number | null;
}

/** The server's CPU per request over a run (µs), or null when the build reported no CPU. */
export function cpuPerRequest(row: ScenarioFigures): number | null {
  const cpuSeconds = row.commits?.cpuSeconds;
  return cpuSeconds === undefined || row.requests === 0 ? null : (cpuSeconds * 1e6) / row.requests;
}

/**
 * The round a build is reported by: its median by CPU per request, or by requests per second
 * when a run lacks the CPU figure. A real run, not an average of several, so every figure in the
 * report (latencies, commits) comes from one and the same run.
 */
export function medianRound(rows: readonly ScenarioFigures[]): ScenarioFigures {
  if (rows.length === 0) throw new Error('medianRound needs at least one run');
  const byCpu = rows.every((row) => cpuPerRequest(row) !== null);
  const key = (row: ScenarioFigures) => (byCpu ? (cpuPerRequest(row) as number) : row.rps);
  const middle = percentile(Float64Array.from(rows, key).sort(), 50);
  return rows.find((row) => key(row) === middle) as ScenarioFigures;
}

/** Round-by-round CPU ratios of the two builds (runs of the same round index belong together). */
export function roundsSummary(current: readonly ScenarioFigures[], compare: readonly ScenarioFigures[]): RoundsSummary {
  const first = current[0] ?? compare[0];
  if (first === undefined) throw new Error('roundsSummary needs at least one run');
  const ratios: number[] = [];
  for (let index = 0; index < Math.min(current.length, compare.length); index += 1) {
    const mine = cpuPerRequest(current[index] as ScenarioFigures);
    const theirs = cpuPerRequest(compare[index] as ScenarioFigures);
    if (mine !== null && theirs !== null && theirs > 0) ratios.push(Number((mine / theirs).toFixed(3)));
  }
  return { scenario: first.scenario, store: first.store, cpu_ratios: ratios, median_cpu_ratio: ratios.length === 0 ? null : percentile(Float64Array.from(ratios).sort(), 50) };
}
