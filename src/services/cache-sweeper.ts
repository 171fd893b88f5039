import type { Clock } from '../domain/clock.js';
import { BackgroundRounds } from './background-rounds.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import { redactionPatch } from './payment-method.service.js';
import { changePaymentMethodIfUnchanged } from './payment-method-changes.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'journal' | 'paymentMethods';

export interface SweepResult {
  redacted: number;
  cvvsDropped: number;
  idempotencyKeysExpired: number;
  /** Exports left `pending` by a node that stopped mid-way, now recorded as failed. */
  exportsInterrupted: number;
  /** Gateway calls cut off mid-way (their node stopped), now `gateway_processing_result_unknown`. */
  abandonedCallsSettled: number;
  /** Events older than the retention period, deleted (docs/events.md, "Retention"). */
  eventsExpired: number;
  /** Unknown gateway results settled by asking the gateway (docs/events.md). */
  reconciled: number;
}

/** Other housekeeping the sweep runs each round. */
export interface SweepTasks {
  idempotency?: { removeExpired(): Promise<number> };
  exports?: { failInterrupted(): Promise<number> };
  abandonedCalls?: { settleAbandoned(): Promise<number> };
  events?: { removeExpired(): Promise<number> };
  reconciler?: { reconcileDue(): Promise<number> };
}

const BATCH = 500;

/**
 * Ends caching windows: redacts cached payment methods whose window has passed and drops
 * CVVs held past theirs (and forgets idempotency keys older than 24 hours). Every write is conditional on the state it read, so any number of
 * nodes may sweep at once and each method is redacted exactly once.
 */
export class CacheSweeper {
  private readonly repos: Pick<Repositories, Uses>;
  private readonly rounds = new BackgroundRounds(() => this.sweepOnce());

  constructor(
    private readonly store: StoreAccess<Uses>,
    private readonly clock: Clock,
    private readonly tasks: SweepTasks = {},
  ) {
    this.repos = store.repos;
  }

  async sweepOnce(): Promise<SweepResult> {
    const now = this.clock.now().toISOString();
    let redacted = 0;
    for (;;) {
      const expired = await this.repos.paymentMethods.expiredCached(now, BATCH);
      let progressed = 0;
      for (const method of expired) {
        // Unchanged since read, or skipped: a method updated meanwhile is redacted by the next round.
        if (await this.store.unitOfWork((repos) => changePaymentMethodIfUnchanged(repos, method, ['cached'], redactionPatch(method, now, false)))) progressed += 1;
      }
      redacted += progressed;
      if (expired.length < BATCH || progressed === 0) break;
    }
    const cvvsDropped = await this.repos.paymentMethods.dropExpiredCvvs(now);
    const idempotencyKeysExpired = (await this.tasks.idempotency?.removeExpired()) ?? 0;
    const exportsInterrupted = (await this.tasks.exports?.failInterrupted()) ?? 0;
    const abandonedCallsSettled = (await this.tasks.abandonedCalls?.settleAbandoned()) ?? 0;
    const eventsExpired = (await this.tasks.events?.removeExpired()) ?? 0;
    // After abandoned calls are settled, so a call cut off by a stopped node is looked up too.
    const reconciled = (await this.tasks.reconciler?.reconcileDue()) ?? 0;
    return { redacted, cvvsDropped, idempotencyKeysExpired, exportsInterrupted, abandonedCallsSettled, eventsExpired, reconciled };
  }

  /** Sweeps every `intervalMs` in the background; errors go to `onError` and the next round tries again. */
  start(intervalMs: number, onError: (error: unknown) => void, onSweep: (result: SweepResult) => void = () => undefined): void {
    this.rounds.start(intervalMs, onError, onSweep);
  }

  /** Stops the schedule and waits for a sweep under way. */
  stop(): Promise<void> {
    return this.rounds.stop();
  }
}
