import { randomUUID } from 'node:crypto';
import type { Clock } from '../../domain/clock.js';
import type { DeliveryRequest, DeliveryResult } from '../../receivers/http-delivery.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { AttemptResult } from '../../store/repositories/callbacks.repo.js';
import type { Repositories } from '../../store/repositories.js';
import { CallbackSender, type AttemptOutcome, type CallbackRenderer } from './callback-sender.js';
import type { CallbackDelivery } from '../../domain/callback.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'callbacks' | 'events';

export type { CallbackRenderer, RenderedCallback } from './callback-sender.js';

export interface DispatcherSettings {
  /** Timeout of one attempt. */
  timeoutMs: number;
  /** First retry delay; each further one doubles, up to `maxDelayMs`, with jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Attempts this node runs at once, every environment together (the global cap). */
  concurrency: number;
  /** Attempts of one environment at once, every node together. */
  perEnvironment: number;
  /**
   * Consecutive failed attempts after which a destination is backed off as a whole: sent nothing
   * for the retry delay of its failures beyond this number, its waiting deliveries deferred.
   */
  backOffAfter: number;
}

export const DEFAULT_DISPATCH = { baseDelayMs: 10_000, maxDelayMs: 3_600_000, concurrency: 32, perEnvironment: 4, backOffAfter: 3 } as const;

/**
 * Sends queued callbacks (docs/events.md, "Delivery"). Attempts run concurrently, up to
 * `concurrency` on this node and `perEnvironment` for one environment across nodes, claimed
 * fairly across environments (callbacks.repo.ts `claimDue`), so one tenant's slow or dead URL
 * holds only its own slots. Each claim leases its rows, so two nodes never send the same attempt;
 * only the claimer records the result. A failed attempt is retried with exponential backoff and
 * full jitter until 24 hours after the event; a destination that keeps failing is backed off as a
 * whole, in the database, so every node sees it. The queue is in the database: a restart resumes
 * where it stopped.
 */
export class CallbackDispatcher {
  private readonly repos: Pick<Repositories, Uses>;
  private readonly sender: CallbackSender;
  private readonly nodeId = randomUUID();
  private claims = 0;
  /** Attempts under way on this node. */
  private readonly active = new Set<Promise<void>>();
  /** This node's claims, one after another: two at once would both count the same free slots. */
  private claimChain: Promise<unknown> = Promise.resolve();
  /** A claim is queued and has not started: another request for one is already covered. */
  private claimQueued = false;
  private timer: NodeJS.Timeout | null = null;
  /** Where the errors of attempts go: the poller's `onError`, or the next `deliverDue()` call. */
  private onError: (error: unknown) => void;
  private unreported: unknown[] = [];

  constructor(
    store: StoreAccess<Uses>,
    send: (request: DeliveryRequest) => Promise<DeliveryResult>,
    secretFor: (environmentKey: string) => Promise<string>,
    render: CallbackRenderer,
    private readonly clock: Clock,
    private readonly settings: DispatcherSettings,
    private readonly random: () => number = Math.random,
  ) {
    this.repos = store.repos;
    this.sender = new CallbackSender(this.repos, send, secretFor, render, clock, settings.timeoutMs);
    this.onError = (error) => this.unreported.push(error);
  }

  /**
   * Attempts what is due until nothing more is: claims what the caps allow, and claims again as
   * attempts end; resolves with how many were attempted once none is under way. (The poller of
   * `start()` does the same continuously; tests and the CLI call this.)
   */
  async deliverDue(): Promise<number> {
    let attempted = 0;
    for (;;) {
      const { started, setAside } = await this.claim();
      attempted += started;
      // Rows set aside (abandoned, deferred) make room at the heads of their queues: claim again at once.
      if (setAside > 0) continue;
      if (this.active.size === 0) break;
      await Promise.race(this.active);
    }
    const [error] = this.unreported.splice(0);
    if (error !== undefined) throw error;
    return attempted;
  }

  /** Claims every `intervalMs` and whenever an attempt ends; errors go to `onError`. */
  start(intervalMs: number, onError: (error: unknown) => void): void {
    if (this.timer !== null) return;
    this.onError = onError;
    this.timer = setInterval(() => this.claimSoon(), intervalMs);
    this.timer.unref();
    this.claimSoon();
  }

  /** Stops claiming and waits for the attempts under way (each ends within its timeout). */
  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.claimChain;
    await Promise.allSettled([...this.active]);
  }

  /** The delay before attempt `attempts + 1`: base × 2^(attempts−1), capped, with full jitter (half to all of it). */
  retryDelayMs(attempts: number): number {
    const ceiling = Math.min(this.settings.maxDelayMs, this.settings.baseDelayMs * 2 ** Math.max(0, attempts - 1));
    return Math.round(ceiling / 2 + (ceiling / 2) * this.random());
  }

  /** Queues a claim unless one is already waiting to start (it will see the same free slots). */
  private claimSoon(): void {
    if (this.claimQueued) return;
    this.claimQueued = true;
    this.claim().catch((error: unknown) => this.onError(error));
  }

  /** One claim after this node's previous one; starts the claimed attempts. */
  private claim(): Promise<{ started: number; setAside: number }> {
    const next = this.claimChain.then(() => {
      this.claimQueued = false;
      return this.claimAndStart();
    });
    this.claimChain = next.catch(() => undefined);
    return next;
  }

  private async claimAndStart(): Promise<{ started: number; setAside: number }> {
    const slots = this.settings.concurrency - this.active.size;
    if (slots <= 0) return { started: 0, setAside: 0 };
    const now = this.clock.now();
    this.claims += 1;
    const claimId = `${this.nodeId}:${this.claims}`;
    const { claimed, setAside } = await this.repos.callbacks.claimDue({
      now: now.toISOString(),
      leaseUntil: new Date(now.getTime() + this.settings.timeoutMs + 30_000).toISOString(),
      claimId,
      slots,
      perEnvironment: this.settings.perEnvironment,
    });
    for (const delivery of claimed) this.track(this.attempt(delivery, claimId));
    if (setAside > 0 && this.timer !== null) this.claimSoon();
    return { started: claimed.length, setAside };
  }

  /** Keeps `work` among the attempts under way until it ends; then, when polling, claims again. */
  private track(work: Promise<void>): void {
    const running: Promise<void> = work
      .catch((error: unknown) => this.onError(error))
      .finally(() => {
        this.active.delete(running);
        if (this.timer !== null) this.claimSoon();
      });
    this.active.add(running);
  }

  private async attempt(delivery: CallbackDelivery, claimId: string): Promise<void> {
    const outcome = await this.sender.attempt(delivery);
    const now = this.clock.now();
    const next = new Date(now.getTime() + this.retryDelayMs(delivery.attempts + 1));
    const delivered = outcome.result === 'delivered';
    const state: AttemptResult['state'] = delivered ? 'delivered' : next.toISOString() > delivery.giveUpAt ? 'abandoned' : 'queued';
    await this.repos.callbacks.finishAttempt(delivery, claimId, {
      status: outcome.status,
      latencyMs: outcome.latencyMs,
      error: outcome.error,
      state,
      nextAttemptAt: state === 'queued' ? next.toISOString() : now.toISOString(),
      at: now.toISOString(),
      destination: this.destinationOutcome(outcome, now),
    });
  }

  /** A failed destination is blocked, past `backOffAfter` consecutive failures, for the retry delay of the failures beyond it. */
  private destinationOutcome(outcome: AttemptOutcome, now: Date): AttemptResult['destination'] {
    if (outcome.result === 'not sent') return { outcome: 'not contacted' };
    if (outcome.result === 'delivered') return { outcome: 'delivered' };
    const { backOffAfter } = this.settings;
    return {
      outcome: 'failed',
      blockedUntil: (failures) => (failures < backOffAfter ? null : new Date(now.getTime() + this.retryDelayMs(failures - backOffAfter + 1)).toISOString()),
    };
  }
}
