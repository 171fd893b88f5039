import { describe, expect, it } from 'vitest';
import { commitScrapeOf, commitStatsBetween } from '../../bench/commit-metrics.js';
import { histogramOf, parsePrometheusText, quantileOf, sumOf } from '../../bench/prometheus-text.js';

/** An exposition as prom-client writes it: HELP/TYPE lines, escaped label values, Nan, +Inf. */
function exposition(commits: number[], batches: number[], cpuSeconds = 0): string {
  const bounds = [0.001, 0.01, 0.1];
  const lines = ['# HELP coffer_store_commit_duration_seconds Durable commits.', '# TYPE coffer_store_commit_duration_seconds histogram'];
  for (const le of bounds) lines.push(`coffer_store_commit_duration_seconds_bucket{le="${le}",store="sqlite"} ${commits.filter((c) => c <= le).length}`);
  lines.push(`coffer_store_commit_duration_seconds_bucket{le="+Inf",store="sqlite"} ${commits.length}`);
  lines.push(`coffer_store_commit_duration_seconds_sum{store="sqlite"} ${commits.reduce((a, b) => a + b, 0)}`);
  lines.push(`coffer_store_commit_duration_seconds_count{store="sqlite"} ${commits.length}`);
  for (const le of [1, 2, 4, 8]) lines.push(`coffer_store_commit_batch_size_bucket{le="${le}",store="sqlite"} ${batches.filter((b) => b <= le).length}`);
  lines.push(`coffer_store_commit_batch_size_bucket{le="+Inf",store="sqlite"} ${batches.length}`);
  lines.push(`coffer_store_commit_batch_size_sum{store="sqlite"} ${batches.reduce((a, b) => a + b, 0)}`);
  lines.push(`coffer_store_commit_batch_size_count{store="sqlite"} ${batches.length}`);
  lines.push('# TYPE coffer_process_cpu_seconds_total counter', `coffer_process_cpu_seconds_total ${cpuSeconds}`);
  lines.push('coffer_nodejs_eventloop_lag_mean_seconds Nan');
  lines.push('coffer_odd{path="a\\\\b \\"q\\"\\nz",x="1"} -Inf 1700000000000');
  return `${lines.join('\n')}\n`;
}

describe('the Prometheus text reader', () => {
  it('reads names, escaped labels, special values and timestamps', () => {
    const samples = parsePrometheusText(exposition([0.0005], [1]));
    const odd = samples.find((sample) => sample.name === 'coffer_odd');
    expect(odd).toEqual({ name: 'coffer_odd', labels: { path: 'a\\b "q"\nz', x: '1' }, value: Number.NEGATIVE_INFINITY });
    expect(Number.isNaN(samples.find((sample) => sample.name === 'coffer_nodejs_eventloop_lag_mean_seconds')?.value)).toBe(true);
    expect(sumOf(samples, 'coffer_store_commit_duration_seconds_count', { store: 'sqlite' })).toBe(1);
    expect(sumOf(samples, 'coffer_store_commit_duration_seconds_count', { store: 'postgres' })).toBe(0);
  });

  it('refuses what is not the format', () => {
    expect(() => parsePrometheusText('coffer_x{a="1"}')).toThrow(/not a sample value/);
    expect(() => parsePrometheusText('coffer_x{a="1} 2')).toThrow(/unterminated/);
    expect(() => parsePrometheusText('coffer_x{a=1} 2')).toThrow(/bad labels/);
    expect(() => parsePrometheusText('{a="1"} 2')).toThrow(/not a sample line/);
    expect(() => parsePrometheusText('coffer_x 2 soon')).toThrow(/bad timestamp/);
  });

  it('estimates quantiles as histogram_quantile does', () => {
    // 10 observations: 4 ≤ 1 ms, 5 in (1, 10] ms, 1 above 100 ms.
    const histogram = histogramOf(parsePrometheusText(exposition([...Array(4).fill(0.0005), ...Array(5).fill(0.005), 0.5], [1])), 'coffer_store_commit_duration_seconds');
    expect(histogram.count).toBe(10);
    expect(quantileOf(histogram, 0.4)).toBeCloseTo(0.001, 9);
    // Rank 5 is the first of the 5 in (0.001, 0.01]: a fifth of the way.
    expect(quantileOf(histogram, 0.5)).toBeCloseTo(0.001 + 0.009 / 5, 9);
    // Rank 10 falls in +Inf: the highest finite bound.
    expect(quantileOf(histogram, 1)).toBe(0.1);
    expect(quantileOf(histogramOf([], 'none'), 0.5)).toBeNull();
  });
});

describe('commit figures for the bench', () => {
  it('reports the commits between two scrapes: count, transactions, latency and batch size', () => {
    const before = commitScrapeOf(exposition([0.0005, 0.0005], [1, 1], 12.5));
    const after = commitScrapeOf(exposition([0.0005, 0.0005, 0.002, 0.004, 0.006, 0.008], [1, 1, 2, 4, 4, 6], 14.75));
    const stats = commitStatsBetween(before, after);
    // The server's CPU over the interval, which the report divides by the requests served.
    expect(stats.cpuSeconds).toBeCloseTo(2.25, 9);
    expect(stats.commits).toBe(4);
    expect(stats.transactions).toBe(16);
    expect(stats.meanMs).toBeCloseTo(5, 9);
    expect(stats.meanBatchSize).toBe(4);
    // All four in (1, 10] ms: the median halfway through that bucket.
    expect(stats.p50Ms).toBeCloseTo(5.5, 9);
    expect(stats.p99BatchSize).toBeGreaterThan(4);
    expect(stats.p99BatchSize).toBeLessThanOrEqual(8);
  });

  it('has no latency figures when nothing was committed', () => {
    const scrape = commitScrapeOf(exposition([0.0005], [1]));
    expect(commitStatsBetween(scrape, scrape)).toEqual({ commits: 0, transactions: 0, meanMs: null, p50Ms: null, p99Ms: null, meanBatchSize: null, p99BatchSize: null, cpuSeconds: 0 });
  });
});
