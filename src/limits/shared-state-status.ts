import type { Logger } from 'pino';

/** A change of reachability of the shared state (Redis). */
export interface SharedStateChange {
  reachable: boolean;
  /** Why it became unreachable (the Redis client's error, no secrets); null on recovery. */
  reason: string | null;
}

/** What /readyz reports for Redis when this node serves with its own memory. */
export const LOCAL_FALLBACK_DETAIL = 'unreachable: serving with local limits';

/**
 * Whether the state shared through Redis (rate-limit counters, circuit-breaker state) is usable.
 * Both fallbacks report each Redis outcome here, and the Redis client its connection events;
 * listeners hear only transitions, so an outage is logged once when it starts and once when it
 * ends, however many requests run meanwhile. While Redis is down the fallbacks skip it, except
 * for one attempt per `retryMs` (a hung Redis then costs one command timeout, not every request).
 */
export class SharedStateStatus {
  private reachable = true;
  private lastFailureAt = Number.NEGATIVE_INFINITY;
  private reason: string | null = null;
  private readonly listeners = new Set<(change: SharedStateChange) => void>();

  constructor(
    private readonly retryMs = 1_000,
    private readonly monotonicMs: () => number = () => performance.now(),
  ) {}

  /** Whether to try Redis for this operation. */
  shouldTryShared(): boolean {
    return this.reachable || this.monotonicMs() - this.lastFailureAt >= this.retryMs;
  }

  reportFailure(error: unknown): void {
    this.lastFailureAt = this.monotonicMs();
    if (!this.reachable) return;
    this.reachable = false;
    this.reason = describe(error);
    this.emit();
  }

  reportSuccess(): void {
    if (this.reachable) return;
    this.reachable = true;
    this.reason = null;
    this.emit();
  }

  get isReachable(): boolean {
    return this.reachable;
  }

  /** The `redis` field of /readyz. */
  readiness(): string {
    return this.reachable ? 'ok' : LOCAL_FALLBACK_DETAIL;
  }

  /** Calls `listener` on every change; returns the function that stops it. */
  onChange(listener: (change: SharedStateChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Logs each change (and the current outage at once, if there is one). */
  logTo(logger: Logger): () => void {
    const log = (change: SharedStateChange): void => {
      if (change.reachable) logger.info({ redis: 'ok' }, 'Redis reachable again: rate limits and circuit breaker shared across nodes again');
      else logger.warn({ redis: 'unreachable', reason: change.reason }, 'Redis unreachable: serving with local rate limits and circuit breaker state');
    };
    if (!this.reachable) log({ reachable: false, reason: this.reason });
    return this.onChange(log);
  }

  private emit(): void {
    const change = { reachable: this.reachable, reason: this.reason };
    for (const listener of this.listeners) listener(change);
  }
}

function describe(error: unknown): string {
  if (error instanceof Error) return `${error.name}: ${error.message}`.slice(0, 200);
  return 'unknown error';
}
