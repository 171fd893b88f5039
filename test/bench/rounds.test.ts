import { describe, expect, it } from 'vitest';
import type { CommitStats } from '../../bench/commit-metrics.js';
import { formatReport } from '../../bench/report.js';
import { cpuPerRequest, medianRound, roundsSummary } from '../../bench/rounds.js';
import type { BenchReport, ScenarioFigures } from '../../bench/summary.js';

/** A run of `requests` requests that cost the server `cpuSeconds` (null: a build without /metrics). */
function run(requests: number, cpuSeconds: number | null, build: 'current' | 'compare' = 'current', rps = requests / 10): ScenarioFigures {
  const commits: CommitStats | null = cpuSeconds === null ? null : { cpuSeconds, commits: 0, transactions: 0, meanMs: null, p50Ms: null, p99Ms: null, meanBatchSize: null, p99BatchSize: null };
  return { name: `${build === 'compare' ? 'compare ' : ''}sqlite: show`, rps, p50_ms: 1, p99_ms: 2, requests, non_2xx: 0, errors: 0, scenario: 'show_transaction', store: 'sqlite', build, ratio_to_baseline: 0.1, commits };
}

describe('bench rounds', () => {
  it('reads the CPU per request of a run, in µs; none without the CPU figure or requests', () => {
    expect(cpuPerRequest(run(4000, 1))).toBe(250);
    expect(cpuPerRequest(run(4000, null))).toBeNull();
    expect(cpuPerRequest(run(0, 1))).toBeNull();
  });

  it("reports a build by its median round by CPU (the lower middle of an even count), by req/s without CPU", () => {
    const rounds = [run(4000, 1.2), run(4000, 0.8), run(4000, 1.0)];
    expect(medianRound(rounds)).toBe(rounds[2]);
    const even = [run(4000, 1.2), run(4000, 0.8), run(4000, 1.0), run(4000, 0.9)];
    expect(medianRound(even)).toBe(even[3]);
    const withoutCpu = [run(3000, null, 'compare', 300), run(5000, null, 'compare', 500), run(4000, null, 'compare', 400)];
    expect(medianRound(withoutCpu)).toBe(withoutCpu[2]);
    expect(() => medianRound([])).toThrow();
  });

  it('pairs the builds round by round and takes the median of the CPU ratios', () => {
    const current = [run(4000, 0.9), run(4000, 1.0), run(4000, 0.88)];
    const compare = [run(4000, 1.0, 'compare'), run(4000, 1.0, 'compare'), run(4000, 1.1, 'compare')];
    expect(roundsSummary(current, compare)).toEqual({ scenario: 'show_transaction', store: 'sqlite', cpu_ratios: [0.9, 1, 0.8], median_cpu_ratio: 0.9 });
    // A round where one build reported no CPU counts in neither.
    expect(roundsSummary([run(4000, 1), run(4000, 1)], [run(4000, null, 'compare'), run(4000, 2, 'compare')]).cpu_ratios).toEqual([0.5]);
    expect(roundsSummary([run(4000, null)], [run(4000, null, 'compare')]).median_cpu_ratio).toBeNull();
  });

  it('prints the ratios round by round, and says how many rounds each row is the median of', () => {
    const report: BenchReport = {
      scenarios: [run(4000, 0.9)],
      baseline: { name: 'baseline', rps: 40000, p50_ms: 0.2, p99_ms: 1, requests: 400000, non_2xx: 0, errors: 0 },
      fake_gateway: null,
      gateway_overhead: [],
      rounds: [{ scenario: 'show_transaction', store: 'sqlite', cpu_ratios: [0.9, 1, 0.8], median_cpu_ratio: 0.9 }],
      peak_rss_mb: {},
      settings: { mode: 'full', connections: 10, duration_seconds: 10, rounds: 3, rate_limits: '{}', tls: 'off', log_level: 'info', stores: ['sqlite'] },
      machine: { node: 'v20', cpus: 2, load_average_before: [0], load_average_after: [0], fdatasync: { directory: '/tmp', p50_ms: 0.2, p99_ms: 0.3 } },
    };
    const text = formatReport(report);
    expect(text).toContain("3 rounds per scenario and build (each row its build's median round)");
    expect(text).toMatch(/sqlite: show_transaction\s+0\.900 1\.000 0\.800\s+0\.900/);
    expect(formatReport({ ...report, rounds: undefined, settings: { ...report.settings, rounds: 1 } })).not.toContain('round by round');
  });
});
