/**
 * Latency percentiles at full resolution. autocannon's histogram keeps whole milliseconds, too
 * coarse for a bare server (p50 below 1 ms) or for Coffer's few milliseconds on top of a gateway,
 * so the worker records every response time itself.
 */

export interface LatencySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

/** Nearest-rank percentile of ascending `sorted` values; 0 for none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1] as number;
}

/** p50, p90, p99, max and mean of response times in ms, three decimals. */
export function summarizeLatencies(times: readonly number[]): LatencySummary {
  const sorted = Float64Array.from(times).sort();
  const round = (value: number) => Math.round(value * 1000) / 1000;
  const total = sorted.reduce((sum, value) => sum + value, 0);
  return {
    p50: round(percentile(sorted, 50)),
    p90: round(percentile(sorted, 90)),
    p99: round(percentile(sorted, 99)),
    max: round(sorted.length === 0 ? 0 : (sorted[sorted.length - 1] as number)),
    mean: round(sorted.length === 0 ? 0 : total / sorted.length),
  };
}
