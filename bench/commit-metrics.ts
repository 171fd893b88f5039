import { Agent, request } from 'undici';
import { histogramDelta, histogramOf, parsePrometheusText, quantileOf, sumOf, type HistogramData } from './prometheus-text.js';

/**
 * The bench reports the store's commit latency and batch size from the server's own
 * /metrics (the same figures production sees). Scrape before and after a scenario, then
 * `commitStatsBetween(before, after)`. The server needs COFFER_METRICS_TOKEN (API port) or
 * COFFER_METRICS_PORT (its own port) set.
 */

/** The two commit histograms at one moment. */
export interface CommitScrape {
  seconds: HistogramData;
  batchSize: HistogramData;
  /** The server process's CPU time so far (user + system), from prom-client's default metrics. */
  cpuSeconds: number;
}

/** Commit figures over an interval; latencies in ms, null when nothing was committed. */
export interface CommitStats {
  commits: number;
  /** Transactions made durable (the sum of the batch sizes). */
  transactions: number;
  meanMs: number | null;
  p50Ms: number | null;
  p99Ms: number | null;
  meanBatchSize: number | null;
  p99BatchSize: number | null;
  /**
   * CPU the server spent over the interval (user + system seconds). Divided by the requests
   * served, it is the cost of one request: steadier from run to run than requests per second,
   * which move with whatever else the machine runs.
   */
  cpuSeconds: number;
}

/** Reads the commit histograms from a Prometheus exposition. */
export function commitScrapeOf(exposition: string): CommitScrape {
  const samples = parsePrometheusText(exposition);
  return {
    seconds: histogramOf(samples, 'coffer_store_commit_duration_seconds'),
    batchSize: histogramOf(samples, 'coffer_store_commit_batch_size'),
    cpuSeconds: sumOf(samples, 'coffer_process_cpu_seconds_total'),
  };
}

/**
 * GETs `metricsUrl` (e.g. `https://127.0.0.1:8443/metrics` or `http://127.0.0.1:9464/metrics`)
 * with the bearer token when given; `dispatcher` carries the bench's TLS settings (its CA).
 */
export async function scrapeCommits(metricsUrl: string, token: string | null, dispatcher?: Agent): Promise<CommitScrape> {
  const response = await request(metricsUrl, {
    method: 'GET',
    headers: token === null ? {} : { authorization: `Bearer ${token}` },
    ...(dispatcher === undefined ? {} : { dispatcher }),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`GET ${new URL(metricsUrl).pathname}: ${response.statusCode}`);
  return commitScrapeOf(text);
}

const ms = (seconds: number | null) => (seconds === null ? null : seconds * 1000);

/** The commits made between two scrapes of one server. */
export function commitStatsBetween(before: CommitScrape, after: CommitScrape): CommitStats {
  const seconds = histogramDelta(before.seconds, after.seconds);
  const batch = histogramDelta(before.batchSize, after.batchSize);
  const commits = seconds.count;
  return {
    commits,
    transactions: batch.sum,
    meanMs: commits > 0 ? (seconds.sum / commits) * 1000 : null,
    p50Ms: ms(quantileOf(seconds, 0.5)),
    p99Ms: ms(quantileOf(seconds, 0.99)),
    meanBatchSize: batch.count > 0 ? batch.sum / batch.count : null,
    p99BatchSize: quantileOf(batch, 0.99),
    cpuSeconds: after.cpuSeconds - before.cpuSeconds,
  };
}
