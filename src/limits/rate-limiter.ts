/**
 * Rate limiting by exact sliding window: a budget of `limit` requests in any `windowMs` counts
 * the requests it let through whose time is later than `now - windowMs`. Unlike a fixed window
 * (2× the limit across a boundary) or GCRA (a full burst, then the sustained rate on top: up to
 * 2× − 1 in the first window), no window of that length ever holds more than `limit`.
 * The cost is one timestamp per counted request, at most `limit` per key.
 */

/** One budget a request counts against. */
export interface RateLimitCheck {
  /** Where the count lives (scope and limit name; never card digits). */
  key: string;
  /** Requests allowed in any window. */
  limit: number;
  windowMs: number;
}

/** What one budget says after the decision. */
export interface RateLimitVerdict {
  limit: number;
  /** Requests still allowed now (after counting this one, when it was let through). */
  remaining: number;
  /**
   * Until this budget next has more room, in ms: when the oldest counted request leaves the window
   * (when the budget is spent, when the request that would fit is allowed). 0 when nothing is counted.
   */
  resetMs: number;
  /** This budget had no room: it refused the request. */
  exhausted: boolean;
}

/** The decision over every budget of one request. */
export interface RateLimitOutcome {
  /** Every budget had room; the request was counted in each. A refused request is counted in none. */
  allowed: boolean;
  /** One per check, in the order given. */
  verdicts: RateLimitVerdict[];
}

/** Counts requests against budgets: in one process (memory) or shared by every node (Redis). */
export interface RateLimiter {
  /** Atomically: refuses when any budget is spent, else counts the request in all of them. */
  consume(checks: readonly RateLimitCheck[], nowMs: number): Promise<RateLimitOutcome>;
}

/** A verdict from a budget's count after the decision and the time its room next grows. */
export function verdictOf(check: RateLimitCheck, count: number, nextRoomAtMs: number | null, exhausted: boolean, nowMs: number): RateLimitVerdict {
  return {
    limit: check.limit,
    remaining: Math.max(0, check.limit - count),
    resetMs: nextRoomAtMs === null ? 0 : Math.max(0, nextRoomAtMs - nowMs),
    exhausted,
  };
}

/** The counted times of one key, oldest first. */
interface Log {
  windowMs: number;
  times: number[];
}

/** Idle keys are dropped at most this often (a full pass over the map). */
const SWEEP_EVERY_MS = 60_000;

/**
 * The limiter of one node: exact, synchronous (so each decision is atomic), and bounded: a key
 * holds at most `limit` times, and keys whose window has passed are dropped.
 */
export class MemoryRateLimiter implements RateLimiter {
  private readonly logs = new Map<string, Log>();
  private lastSweepMs = Number.NEGATIVE_INFINITY;

  async consume(checks: readonly RateLimitCheck[], nowMs: number): Promise<RateLimitOutcome> {
    this.sweep(nowMs);
    const logs = checks.map((check) => this.current(check, nowMs));
    const allowed = checks.every((check, i) => (logs[i] as Log).times.length < check.limit);
    const verdicts = checks.map((check, i) => {
      const log = logs[i] as Log;
      const exhausted = log.times.length >= check.limit;
      if (allowed) insertSorted(log.times, nowMs);
      if (log.times.length > 0) this.logs.set(check.key, log);
      return verdictOf(check, log.times.length, nextRoomAt(log, check.limit), exhausted, nowMs);
    });
    return { allowed, verdicts };
  }

  /** Keys held now (for tests of the bound). */
  get size(): number {
    return this.logs.size;
  }

  /** The key's times still inside the window. */
  private current(check: RateLimitCheck, nowMs: number): Log {
    const log = this.logs.get(check.key) ?? { windowMs: check.windowMs, times: [] };
    log.windowMs = check.windowMs;
    prune(log, nowMs);
    if (log.times.length === 0) this.logs.delete(check.key);
    return log;
  }

  private sweep(nowMs: number): void {
    if (Math.abs(nowMs - this.lastSweepMs) < SWEEP_EVERY_MS) return;
    this.lastSweepMs = nowMs;
    for (const [key, log] of this.logs) {
      prune(log, nowMs);
      if (log.times.length === 0) this.logs.delete(key);
    }
  }
}

/** Drops the times at or before `now - window`: a request counts while `now < time + window`. */
function prune(log: Log, nowMs: number): void {
  const cutoff = nowMs - log.windowMs;
  let first = 0;
  while (first < log.times.length && (log.times[first] as number) <= cutoff) first += 1;
  if (first > 0) log.times.splice(0, first);
}

/** Appends, keeping the order even if the clock stepped back. */
function insertSorted(times: number[], value: number): void {
  let at = times.length;
  while (at > 0 && (times[at - 1] as number) > value) at -= 1;
  times.splice(at, 0, value);
}

/**
 * When the key next has room for one more: once enough of the oldest times have left that fewer
 * than `limit` remain (the oldest, unless a lowered limit left more than `limit` counted).
 */
function nextRoomAt(log: Log, limit: number): number | null {
  if (log.times.length === 0) return null;
  const index = Math.max(0, log.times.length - limit);
  return (log.times[index] as number) + log.windowMs;
}
