import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { BreakerState, BreakerStore } from '../limits/circuit-breaker.js';
import { RATE_LIMIT_DEFAULTS, type RateLimitName } from '../limits/rate-limit-policy.js';
import type { GatewayCallObserver, GatewayCallResult, GatewayRefusal } from '../services/transactions/gateway-caller.js';
import type { StoreHandle } from '../store/database.js';

/** Every metric's name starts with this (the process defaults included). */
export const METRIC_PREFIX = 'coffer_';

/** What a request's `format` label says: the v1 API's two formats, or anything else (portal, health, plain text). */
export type RequestFormat = 'json' | 'xml' | 'other';

/** Seconds: from a cache hit (~1 ms) to the 60 s gateway timeout. */
const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const GATEWAY_BUCKETS = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** An fsync on a fast SSD is ~0.1–2 ms; on a busy disk, tens. */
const COMMIT_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
const BATCH_BUCKETS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** Status codes as label values, made once (a request's status is one of a few dozen). */
const STATUS_LABELS = Array.from({ length: 600 }, (_, code) => String(code));

function statusLabel(status: number): string {
  return STATUS_LABELS[status] ?? String(status);
}

/** The gauge's value per breaker state. */
const BREAKER_GAUGE: Record<BreakerState, number> = { closed: 0, open: 1, half_open: 2 };

/** Gateways the breaker gauge follows at most: a bound on the series one node exports. */
const MAX_FOLLOWED_GATEWAYS = 10_000;

export interface MetricsSources {
  store: StoreHandle;
  breaker: BreakerStore;
  now: () => number;
}

/**
 * The node's Prometheus metrics (docs/metrics.md), in a registry of its own: several apps in one
 * process (the tests) never share or clash. Labels are bounded sets (route patterns, formats,
 * statuses, gateway types and tokens, limit names): never a raw URL, a body or a credential.
 */
export class CofferMetrics implements GatewayCallObserver {
  readonly registry = new Registry();
  private readonly requestSeconds: Histogram<'route' | 'method' | 'format' | 'status'>;
  private readonly gatewayCalls: Counter<'gateway_type' | 'outcome'>;
  private readonly gatewaySeconds: Histogram<'gateway_type' | 'outcome'>;
  private readonly gatewayRefusals: Counter<'gateway_type' | 'reason'>;
  private readonly rateLimitRefusals: Counter<'limit'>;
  /** Gateway token → type of every gateway this node has called: the breaker gauge's series. */
  private readonly followed = new Map<string, string>();
  private readonly unsubscribe: () => void;

  constructor(sources: MetricsSources) {
    const registers = [this.registry];
    const storeLabel = { store: sources.store.dialect };
    collectDefaultMetrics({ register: this.registry, prefix: METRIC_PREFIX });
    // Its _count is the request count: a separate counter would double the cost per request for the same number.
    this.requestSeconds = new Histogram({ name: 'coffer_http_request_duration_seconds', help: 'HTTP requests answered (_count) and the time from request received to response sent, in seconds.', labelNames: ['route', 'method', 'format', 'status'], buckets: REQUEST_BUCKETS, registers });
    this.gatewayCalls = new Counter({ name: 'coffer_gateway_calls_total', help: 'Gateway calls made, by gateway type and outcome (succeeded, declined, pending, fault, unknown, error).', labelNames: ['gateway_type', 'outcome'], registers });
    this.gatewaySeconds = new Histogram({ name: 'coffer_gateway_call_duration_seconds', help: 'Gateway call latency in seconds, by gateway type and outcome.', labelNames: ['gateway_type', 'outcome'], buckets: GATEWAY_BUCKETS, registers });
    this.gatewayRefusals = new Counter({ name: 'coffer_gateway_refusals_total', help: 'Gateway calls refused before sending: circuit_open (breaker) or busy (too many in flight).', labelNames: ['gateway_type', 'reason'], registers });
    this.rateLimitRefusals = new Counter({ name: 'coffer_rate_limit_refusals_total', help: 'Requests refused with 429, by the spent limit (API.md section 7).', labelNames: ['limit'], registers });
    for (const limit of Object.keys(RATE_LIMIT_DEFAULTS)) this.rateLimitRefusals.inc({ limit }, 0);

    const followed = this.followed;
    new Gauge({
      name: 'coffer_gateway_breaker_state',
      help: 'Circuit breaker per gateway this node has called: 0 closed, 1 open, 2 half-open.',
      labelNames: ['gateway', 'gateway_type'],
      registers,
      // Read at scrape time: with Redis the state is shared, and it changes on time alone.
      async collect() {
        this.reset();
        const now = sources.now();
        // A state that cannot be read is left out of this scrape rather than failing all of it.
        const read = async (gateway: string): Promise<BreakerState | null> => sources.breaker.state(gateway, now).catch(() => null);
        const states = await Promise.all([...followed].map(async ([gateway, type]) => [gateway, type, await read(gateway)] as const));
        for (const [gateway, gatewayType, state] of states) if (state !== null) this.set({ gateway, gateway_type: gatewayType }, BREAKER_GAUGE[state]);
      },
    });

    const commitSeconds = new Histogram({ name: 'coffer_store_commit_duration_seconds', help: 'Durable commits: time from COMMIT to acknowledgement (fsync included), in seconds.', labelNames: ['store'], buckets: COMMIT_BUCKETS, registers });
    const batchSize = new Histogram({ name: 'coffer_store_commit_batch_size', help: 'Transactions made durable per commit.', labelNames: ['store'], buckets: BATCH_BUCKETS, registers });
    this.unsubscribe = sources.store.commits.subscribe((sample) => {
      commitSeconds.observe(storeLabel, sample.seconds);
      batchSize.observe(storeLabel, sample.batchSize);
    });

    if (sources.store.poolUse() !== null) {
      const pool = (pick: 'total' | 'idle' | 'waiting') =>
        function collect(this: Gauge) {
          const use = sources.store.poolUse();
          if (use !== null) this.set(use[pick]);
        };
      new Gauge({ name: 'coffer_store_pool_connections', help: 'PostgreSQL pool: connections open.', registers, collect: pool('total') });
      new Gauge({ name: 'coffer_store_pool_idle_connections', help: 'PostgreSQL pool: open connections not in use.', registers, collect: pool('idle') });
      new Gauge({ name: 'coffer_store_pool_waiting_queries', help: 'PostgreSQL pool: queries waiting for a connection.', registers, collect: pool('waiting') });
    }
  }

  /** One answered request (the onResponse hook). */
  request(route: string, method: string, format: RequestFormat, status: number, seconds: number): void {
    this.requestSeconds.observe({ route, method, format, status: statusLabel(status) }, seconds);
  }

  admitted(gatewayToken: string, gatewayType: string): void {
    if (this.followed.size < MAX_FOLLOWED_GATEWAYS && !this.followed.has(gatewayToken)) this.followed.set(gatewayToken, gatewayType);
  }

  refused(gatewayToken: string, gatewayType: string, reason: GatewayRefusal): void {
    this.admitted(gatewayToken, gatewayType);
    this.gatewayRefusals.inc({ gateway_type: gatewayType, reason });
  }

  finished(gatewayType: string, result: GatewayCallResult, seconds: number): void {
    const labels = { gateway_type: gatewayType, outcome: result };
    this.gatewayCalls.inc(labels);
    this.gatewaySeconds.observe(labels, seconds);
  }

  rateLimited(limit: RateLimitName): void {
    this.rateLimitRefusals.inc({ limit });
  }

  /** The exposition text (Prometheus text format 0.0.4). */
  scrape(): Promise<string> {
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  /** Stops listening to the store; the registry's series stay readable. */
  close(): void {
    this.unsubscribe();
  }
}
