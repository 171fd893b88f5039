import type { RateLimitCheck, RateLimitOutcome, RateLimiter } from './rate-limiter.js';
import type { SharedStateStatus } from './shared-state-status.js';

/**
 * Prefers the limiter shared through Redis; while Redis fails, this node's memory counts instead,
 * so the node keeps serving (with per-node limits: N nodes may then let up to N× through) rather
 * than refusing every limited request or letting them all through. The memory counts only what
 * this node saw during the outage; when Redis returns, the shared counts resume where they were.
 */
export class FallbackRateLimiter implements RateLimiter {
  constructor(
    private readonly shared: RateLimiter,
    private readonly local: RateLimiter,
    private readonly status: SharedStateStatus,
  ) {}

  async consume(checks: readonly RateLimitCheck[], nowMs: number): Promise<RateLimitOutcome> {
    if (this.status.shouldTryShared()) {
      try {
        const outcome = await this.shared.consume(checks, nowMs);
        this.status.reportSuccess();
        return outcome;
      } catch (error) {
        this.status.reportFailure(error);
      }
    }
    return this.local.consume(checks, nowMs);
  }
}
