import type { CallbackAttempt, CallbackDelivery, CallbackDestination } from '../../domain/callback.js';
import type { ApiEvent } from '../../domain/event.js';
import type { ClaimResult, DueClaim } from '../repositories/callback-claim.js';
import type { AttemptResult } from '../repositories/callbacks.repo.js';

/** The callback queue and its delivery log (docs/events.md, "Delivery"). */
export interface CallbacksRepository {
  /**
   * Claims the next deliveries to attempt, fairly (callback-claim.ts; docs/events.md, "Delivery"):
   * at most `perEnvironment` attempts of one environment at once, counting every node's leases;
   * across environments, each one's oldest due delivery before anyone's second; none to a blocked
   * destination. Claims of every node run one at a time (an advisory lock on PostgreSQL; SQLite's
   * write transactions already do), so the leases counted are all of them; the conditional update
   * decides, as before.
   */
  claimDue(claim: DueClaim): Promise<ClaimResult>;
  /** Records an attempt and its consequence, if `claimId` still holds the row; false otherwise. */
  finishAttempt(delivery: CallbackDelivery, claimId: string, result: AttemptResult): Promise<boolean>;
  /** The backoff of an environment's destination, if its last attempt failed. */
  destination(environmentKey: string, destination: string): Promise<CallbackDestination | undefined>;
  /**
   * Queues the callbacks `event` calls for (a first delivery of an event nothing was queued for),
   * as its change would have: `enqueueCallbacks`.
   */
  enqueue(event: ApiEvent): Promise<void>;
  /**
   * Queues every delivery of an event again, now, for another 24 hours; how many. A redelivery is
   * the merchant saying the receiver is back: its destinations' failures (and blocks) are forgotten.
   */
  requeueEvent(environmentKey: string, eventToken: string, now: string): Promise<number>;
  forEvent(environmentKey: string, eventToken: string): Promise<CallbackDelivery[]>;
  attempts(deliveryTokens: string[]): Promise<CallbackAttempt[]>;
}
