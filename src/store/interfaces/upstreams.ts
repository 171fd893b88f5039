import type { BackfillProgress, IntakeGrant, Upstream, UpstreamFailure, UpstreamSettings } from '../../domain/upstream.js';
import type { UpstreamCounter } from '../repositories/upstreams.repo.js';

/**
 * Single-query primitives over an environment's upstream (migration 020): its settings, its
 * counters and backfill progress, the failures, and the one-time intake grants.
 */
export interface UpstreamsRepository {
  find(environmentKey: string): Promise<Upstream | undefined>;
  /** Sets (or replaces) the upstream; a new URL or key starts the progress afresh, counters included. */
  put(settings: UpstreamSettings, at: string): Promise<void>;
  /** Removes the upstream, its failures and its grants; false when there was none. */
  remove(environmentKey: string): Promise<boolean>;
  /** Keeps the receiver made at the upstream, unless another node kept one first; false then. */
  setReceiverIfAbsent(environmentKey: string, receiverToken: string): Promise<boolean>;
  increment(environmentKey: string, counter: UpstreamCounter, by?: number): Promise<void>;
  /** Writes the backfill's state fields named in `progress`. */
  setBackfill(environmentKey: string, progress: Partial<BackfillProgress>): Promise<void>;
  /** Starts a backfill unless one is running; false when one is (another request or node owns it). */
  claimBackfill(environmentKey: string, at: string): Promise<boolean>;
  recordFailure(environmentKey: string, failure: UpstreamFailure): Promise<void>;
  clearFailure(environmentKey: string, token: string): Promise<void>;
  /** The latest failures, newest first. */
  failures(environmentKey: string, limit: number): Promise<UpstreamFailure[]>;
  countFailures(environmentKey: string): Promise<number>;
  grant(grant: IntakeGrant): Promise<void>;
  /**
   * Spends a grant: marks it used if it is unused and unexpired, and returns it; undefined when
   * there is no such grant, it expired, or it was spent already. One statement, so two intakes
   * racing with one credential cannot both win.
   */
  spend(credentialHash: string, now: string): Promise<IntakeGrant | undefined>;
  /** Forgets grants past their window (spent or not): a late delivery with one is refused anyway. */
  purgeGrants(before: string): Promise<number>;
}
