import { describe, expect, it } from 'vitest';
import { histogramOf, parsePrometheusText, samplesOf, sumOf } from '../../bench/prometheus-text.js';
import { MemoryBreakerStore, type BreakerState } from '../../src/limits/circuit-breaker.js';
import { CofferMetrics } from '../../src/metrics/coffer-metrics.js';
import { CommitFeed } from '../../src/store/commit-feed.js';
import type { PoolUse, StoreHandle } from '../../src/store/database.js';

/**
 * CofferMetrics and the commit feed in one process, without a server: what a scrape shows for
 * commit samples, the pool, and a breaker store that cannot answer for one gateway.
 */

function handle(commits: CommitFeed, pool: PoolUse | null): StoreHandle {
  return { dialect: pool === null ? 'sqlite' : 'postgres', commits, poolUse: () => pool } as unknown as StoreHandle;
}

/** A breaker whose state cannot be read for one gateway (its Redis shard fails, say). */
class PartlyUnreadable extends MemoryBreakerStore {
  override async state(gatewayKey: string, nowMs: number): Promise<BreakerState> {
    if (gatewayKey === 'gw_broken') throw new Error('unreadable');
    return super.state(gatewayKey, nowMs);
  }
}

describe('CofferMetrics', () => {
  it('records commit samples from the feed, and stops listening once closed', async () => {
    const commits = new CommitFeed();
    const metrics = new CofferMetrics({ store: handle(commits, null), breaker: new MemoryBreakerStore(), now: () => 0 });
    commits.publish({ seconds: 0.002, batchSize: 1 });
    commits.publish({ seconds: 0.004, batchSize: 3 });
    let samples = parsePrometheusText(await metrics.scrape());
    const seconds = histogramOf(samples, 'coffer_store_commit_duration_seconds', { store: 'sqlite' });
    expect(seconds.count).toBe(2);
    expect(seconds.sum).toBeCloseTo(0.006, 9);
    expect(seconds.buckets.find((bucket) => bucket.le === 0.0025)?.count).toBe(1);
    expect(histogramOf(samples, 'coffer_store_commit_batch_size', { store: 'sqlite' })).toMatchObject({ count: 2, sum: 4 });
    expect(samples.filter((sample) => sample.name.startsWith('coffer_store_pool_'))).toEqual([]);
    metrics.close();
    commits.publish({ seconds: 0.001, batchSize: 1 });
    samples = parsePrometheusText(await metrics.scrape());
    expect(sumOf(samples, 'coffer_store_commit_duration_seconds_count')).toBe(2);
  });

  it('reads the pool at scrape time', async () => {
    const pool = { total: 3, idle: 1, waiting: 0 };
    const metrics = new CofferMetrics({ store: handle(new CommitFeed(), pool), breaker: new MemoryBreakerStore(), now: () => 0 });
    pool.total = 7;
    pool.waiting = 2;
    const samples = parsePrometheusText(await metrics.scrape());
    expect(sumOf(samples, 'coffer_store_pool_connections')).toBe(7);
    expect(sumOf(samples, 'coffer_store_pool_idle_connections')).toBe(1);
    expect(sumOf(samples, 'coffer_store_pool_waiting_queries')).toBe(2);
    metrics.close();
  });

  it('leaves out a breaker whose state cannot be read, and still shows the others', async () => {
    const breaker = new PartlyUnreadable();
    const metrics = new CofferMetrics({ store: handle(new CommitFeed(), null), breaker, now: () => 1_000 });
    metrics.admitted('gw_ok', 'stripe');
    metrics.admitted('gw_broken', 'adyen');
    metrics.refused('gw_open', 'nmi', 'circuit_open');
    for (let i = 0; i < 5; i += 1) await breaker.recordFailure('gw_open', 1_000);
    const samples = parsePrometheusText(await metrics.scrape());
    expect(samplesOf(samples, 'coffer_gateway_breaker_state').map((sample) => [sample.labels.gateway, sample.labels.gateway_type, sample.value])).toEqual([
      ['gw_ok', 'stripe', 0],
      ['gw_open', 'nmi', 1],
    ]);
    expect(sumOf(samples, 'coffer_gateway_refusals_total', { gateway_type: 'nmi', reason: 'circuit_open' })).toBe(1);
    metrics.close();
  });

  it('keeps two registries apart in one process', async () => {
    const first = new CofferMetrics({ store: handle(new CommitFeed(), null), breaker: new MemoryBreakerStore(), now: () => 0 });
    const second = new CofferMetrics({ store: handle(new CommitFeed(), null), breaker: new MemoryBreakerStore(), now: () => 0 });
    first.request('/healthz', 'GET', 'other', 200, 0.001);
    expect(sumOf(parsePrometheusText(await first.scrape()), 'coffer_http_request_duration_seconds_count')).toBe(1);
    expect(sumOf(parsePrometheusText(await second.scrape()), 'coffer_http_request_duration_seconds_count')).toBe(0);
    first.close();
    second.close();
  });
});

describe('CommitFeed', () => {
  it('tells every listener, survives one that throws, and unsubscribes', async () => {
    const feed = new CommitFeed();
    const seen: number[] = [];
    feed.subscribe(() => {
      throw new Error('broken observer');
    });
    const stop = feed.subscribe((sample) => seen.push(sample.batchSize));
    await feed.timed(4, async () => undefined);
    feed.publish({ seconds: 0.001, batchSize: 2 });
    stop();
    feed.publish({ seconds: 0.001, batchSize: 9 });
    expect(seen).toEqual([4, 2]);
  });

  it('publishes nothing for a commit that fails, and lets its error through', async () => {
    const feed = new CommitFeed();
    const seen: number[] = [];
    feed.subscribe((sample) => seen.push(sample.seconds));
    await expect(feed.timed(1, async () => Promise.reject(new Error('disk full')))).rejects.toThrow('disk full');
    expect(seen).toEqual([]);
  });
});
