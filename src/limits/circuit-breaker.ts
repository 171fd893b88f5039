import type { SharedStateStatus } from './shared-state-status.js';

/** What the breaker says about one call to one gateway. */
export type Admission = { kind: 'allow' } | { kind: 'probe' } | { kind: 'reject'; retryAfterSeconds: number };

/**
 * A breaker's state as the metrics show it: closed (calls go through), open (refused until the
 * window ends), half-open (the window has ended: the next call, or the one in flight, is the probe).
 */
export type BreakerState = 'closed' | 'open' | 'half_open';

/** The state implied by a breaker's failure count and the end of its open window. */
export function breakerStateOf(failures: number, openUntilMs: number, nowMs: number): BreakerState {
  if (failures < BREAKER_POLICY.failureThreshold) return 'closed';
  return nowMs < openUntilMs ? 'open' : 'half_open';
}

/** Where breaker state lives: one process (memory) or every node (Redis). */
export interface BreakerStore {
  admit(gatewayKey: string, nowMs: number): Promise<Admission>;
  /** Reads the state without changing it (the metrics' scrape). */
  state(gatewayKey: string, nowMs: number): Promise<BreakerState>;
  recordSuccess(gatewayKey: string): Promise<void>;
  recordFailure(gatewayKey: string, nowMs: number): Promise<void>;
  /** A probe that was admitted but never sent (refused for another reason): let the next caller probe. */
  abandonProbe(gatewayKey: string): Promise<void>;
}

/** API.md §8: 5 consecutive errors or timeouts open the breaker for 60 s, then one probe goes through. */
export const BREAKER_POLICY = {
  failureThreshold: 5,
  openMs: 60_000,
  /**
   * A probe that never reports back (its node died) stops blocking others after this long; the
   * composition root raises it above the longest configured gateway timeout.
   */
  probeLeaseMs: 120_000,
  /** Breaker state with no news for this long is forgotten (the Redis keys expire). */
  retentionMs: 24 * 60 * 60 * 1000,
} as const;

interface Entry {
  failures: number;
  openUntil: number;
  probeUntil: number;
}

/**
 * The breaker for one node. Declines never reach it: only faults and unknown results count,
 * and any success closes it. After the open window the first caller becomes the probe; the
 * others are still refused until the probe's result is known.
 */
export class MemoryBreakerStore implements BreakerStore {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly probeLeaseMs: number = BREAKER_POLICY.probeLeaseMs) {}

  async admit(gatewayKey: string, nowMs: number): Promise<Admission> {
    const entry = this.entries.get(gatewayKey);
    if (entry === undefined || entry.failures < BREAKER_POLICY.failureThreshold) return { kind: 'allow' };
    if (nowMs < entry.openUntil) return { kind: 'reject', retryAfterSeconds: Math.ceil((entry.openUntil - nowMs) / 1000) };
    if (nowMs < entry.probeUntil) return { kind: 'reject', retryAfterSeconds: Math.ceil(BREAKER_POLICY.openMs / 1000) };
    entry.probeUntil = nowMs + this.probeLeaseMs;
    return { kind: 'probe' };
  }

  async abandonProbe(gatewayKey: string): Promise<void> {
    const entry = this.entries.get(gatewayKey);
    if (entry !== undefined) entry.probeUntil = 0;
  }

  async state(gatewayKey: string, nowMs: number): Promise<BreakerState> {
    const entry = this.entries.get(gatewayKey);
    return entry === undefined ? 'closed' : breakerStateOf(entry.failures, entry.openUntil, nowMs);
  }

  async recordSuccess(gatewayKey: string): Promise<void> {
    this.entries.delete(gatewayKey);
  }

  async recordFailure(gatewayKey: string, nowMs: number): Promise<void> {
    const entry = this.entries.get(gatewayKey) ?? { failures: 0, openUntil: 0, probeUntil: 0 };
    entry.failures += 1;
    if (entry.failures >= BREAKER_POLICY.failureThreshold) {
      entry.openUntil = nowMs + BREAKER_POLICY.openMs;
      entry.probeUntil = 0;
    }
    this.entries.set(gatewayKey, entry);
  }
}

/**
 * Caps the calls in flight to one gateway on this node, so a gateway that hangs ties up at
 * most that many requests and never slows the others.
 */
export class InFlightLimiter {
  private readonly counts = new Map<string, number>();

  constructor(private readonly maxPerGateway: number) {}

  tryAcquire(gatewayKey: string): boolean {
    const current = this.counts.get(gatewayKey) ?? 0;
    if (current >= this.maxPerGateway) return false;
    this.counts.set(gatewayKey, current + 1);
    return true;
  }

  release(gatewayKey: string): void {
    const current = this.counts.get(gatewayKey) ?? 0;
    if (current <= 1) this.counts.delete(gatewayKey);
    else this.counts.set(gatewayKey, current - 1);
  }
}

/**
 * Prefers the shared store and falls back to this node's memory while the shared one fails
 * (Redis down): the node keeps serving with local state rather than refusing payments. Outcomes
 * go to `status`, which the rate limiter's fallback shares: one log line when Redis goes, one when
 * it comes back, and Redis is skipped (but for a periodic retry) while it is down.
 */
export class FallbackBreakerStore implements BreakerStore {
  constructor(
    private readonly shared: BreakerStore,
    private readonly local: BreakerStore,
    private readonly status: SharedStateStatus,
  ) {}

  private async attempt<T>(work: (store: BreakerStore) => Promise<T>): Promise<T> {
    if (this.status.shouldTryShared()) {
      try {
        const result = await work(this.shared);
        this.status.reportSuccess();
        return result;
      } catch (error) {
        this.status.reportFailure(error);
      }
    }
    return work(this.local);
  }

  admit(gatewayKey: string, nowMs: number): Promise<Admission> {
    return this.attempt((store) => store.admit(gatewayKey, nowMs));
  }

  state(gatewayKey: string, nowMs: number): Promise<BreakerState> {
    return this.attempt((store) => store.state(gatewayKey, nowMs));
  }

  recordSuccess(gatewayKey: string): Promise<void> {
    return this.attempt((store) => store.recordSuccess(gatewayKey));
  }

  recordFailure(gatewayKey: string, nowMs: number): Promise<void> {
    return this.attempt((store) => store.recordFailure(gatewayKey, nowMs));
  }

  abandonProbe(gatewayKey: string): Promise<void> {
    return this.attempt((store) => store.abandonProbe(gatewayKey));
  }
}
