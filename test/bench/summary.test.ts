import { describe, expect, it } from 'vitest';
import type { LoadResult } from '../../bench/load-job.js';
import { formatReport } from '../../bench/report.js';
import { figuresOf, gatewayOverhead, ratioToBaseline, scenarioFigures, unclean, type BenchReport } from '../../bench/summary.js';

function result(overrides: Partial<LoadResult> = {}): LoadResult {
  return {
    requests: 3000,
    durationSeconds: 3,
    latency: { p50: 2.3456, p90: 4, p99: 9.8765, max: 20, mean: 2.5 },
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    statusCodes: { '200': 3000 },
    ...overrides,
  };
}

describe('bench figures', () => {
  it('turns a load result into requests per second and rounded percentiles', () => {
    expect(figuresOf('x', result())).toEqual({ name: 'x', rps: 1000, p50_ms: 2.35, p99_ms: 9.88, requests: 3000, non_2xx: 0, errors: 0 });
    expect(figuresOf('idle', result({ requests: 0, durationSeconds: 0 })).rps).toBe(0);
  });

  it('states the ratio to the baseline with three decimals, never Infinity', () => {
    expect(ratioToBaseline(1234, 15000)).toBe(0.082);
    expect(ratioToBaseline(10, 0)).toBe(0);
  });

  it('names a scenario by store (and build when comparing) and keeps its ratio', () => {
    const current = scenarioFigures(result(), { scenario: 'purchase_json', store: 'sqlite', build: 'current', title: 'purchase', baselineRps: 4000 });
    expect(current).toMatchObject({ name: 'sqlite: purchase', scenario: 'purchase_json', store: 'sqlite', build: 'current', ratio_to_baseline: 0.25 });
    expect(scenarioFigures(result(), { scenario: 'purchase_json', store: 'postgres', build: 'compare', title: 'purchase', baselineRps: 4000 }).name).toBe('compare postgres: purchase');
  });

  it("computes Coffer's latency on top of the gateway's, never below zero", () => {
    const coffer = scenarioFigures(result({ latency: { p50: 53.5, p90: 60, p99: 70.25, max: 80, mean: 55 } }), { scenario: 'purchase_gateway_50ms', store: 'sqlite', build: 'current', title: 'g', baselineRps: 1 });
    const gateway = figuresOf('fake', result({ latency: { p50: 51, p90: 52, p99: 71, max: 80, mean: 51 } }));
    expect(gatewayOverhead(coffer, gateway)).toEqual({ store: 'sqlite', build: 'current', gateway_p50_ms: 51, gateway_p99_ms: 71, coffer_p50_ms: 53.5, coffer_p99_ms: 70.25, added_p50_ms: 2.5, added_p99_ms: 0 });
  });

  it('lists the runs with failures, whose figures do not count', () => {
    const clean = figuresOf('clean', result());
    const broken = scenarioFigures(result({ non2xx: 3, errors: 1 }), { scenario: 'tokenize', store: 'sqlite', build: 'current', title: 't', baselineRps: 1 });
    expect(unclean({ baseline: clean, fake_gateway: null, scenarios: [broken] })).toEqual(['sqlite: t: 3 non-2xx, 1 errors']);
    expect(unclean({ baseline: clean, fake_gateway: clean, scenarios: [] })).toEqual([]);
  });
});

describe('bench report', () => {
  const baseline = figuresOf('baseline: bare Fastify, same JSON body', result({ requests: 45000 }));
  const purchase = scenarioFigures(result(), { scenario: 'purchase_json', store: 'sqlite', build: 'current', title: 'purchase, retained token, JSON', baselineRps: baseline.rps });
  const report: BenchReport = {
    scenarios: [purchase],
    baseline,
    fake_gateway: null,
    gateway_overhead: [],
    peak_rss_mb: { 'coffer sqlite': 120, baseline: null },
    settings: { mode: 'quick', connections: 10, duration_seconds: 3, rate_limits: '{"*":null}', tls: 'off', log_level: 'info', stores: ['sqlite'] },
    machine: { node: 'v20.0.0', cpus: 2, load_average_before: [1, 1, 1], load_average_after: [2, 1, 1], fdatasync: { directory: '/tmp', p50_ms: 0.2134, p99_ms: 1.5 } },
  };

  it('has the JSON shape of --json: scenarios with name, rps, p50_ms, p99_ms, ratio_to_baseline, and a baseline', () => {
    const parsed = JSON.parse(JSON.stringify(report)) as Record<string, any>;
    expect(Object.keys(parsed)).toEqual(expect.arrayContaining(['scenarios', 'baseline']));
    for (const scenario of parsed.scenarios) expect(scenario).toEqual(expect.objectContaining({ name: expect.any(String), rps: expect.any(Number), p50_ms: expect.any(Number), p99_ms: expect.any(Number), ratio_to_baseline: expect.any(Number) }));
    expect(parsed.baseline).toEqual(expect.objectContaining({ name: expect.any(String), rps: 15000, p50_ms: 2.35, p99_ms: 9.88 }));
  });

  it('prints the rate limits lifted, each scenario with its ratio, and peak RSS', () => {
    const text = formatReport(report);
    expect(text).toContain(`COFFER_RATE_LIMITS='{"*":null}'`);
    expect(text).toMatch(/sqlite: purchase, retained token, JSON\s+1,000\s+2\.35\s+9\.88\s+0\.067/);
    expect(text).toContain('Peak RSS: coffer sqlite 120 MiB, baseline n/a');
    expect(text).toContain('Disk: fdatasync after a 12 KiB append in /tmp: p50 0.213 ms, p99 1.500 ms');
  });

  it('prints the store commits of each measured run: CPU per request, commits, batch sizes, commit latency', () => {
    const withCommits: BenchReport = {
      ...report,
      scenarios: [{ ...purchase, commits: { commits: 400, transactions: 2000, meanMs: 0.3, p50Ms: 0.25, p99Ms: 1.5, meanBatchSize: 5, p99BatchSize: 10, cpuSeconds: purchase.requests * 0.0021 } }],
    };
    const text = formatReport(withCommits);
    expect(text).toMatch(/sqlite: purchase, retained token, JSON\s+2,100\s+400\s+2,000\s+5\.00\s+10\s+0\.250\s+1\.500/);
    expect(formatReport(report)).not.toContain('Store commits');
    // A scenario that committed nothing (a show) still has its CPU per request.
    const readOnly = formatReport({ ...report, scenarios: [{ ...purchase, commits: { commits: 0, transactions: 0, meanMs: null, p50Ms: null, p99Ms: null, meanBatchSize: null, p99BatchSize: null, cpuSeconds: purchase.requests * 0.0003 } }] });
    expect(readOnly).toMatch(/sqlite: purchase, retained token, JSON\s+300\s+0\s+0\s+-/);
  });
});
