import { randomUUID } from 'node:crypto';
import type { Clock } from '../../domain/clock.js';
import { headerSignature } from '../../domain/callback-signature.js';
import type { DeliveryRequest, DeliveryResult } from '../../receivers/http-delivery.js';
import type { StoreHandle } from '../../store/database.js';
import type { AttemptResult, DeliveryRow } from '../../store/repositories/callbacks.repo.js';
import type { EventRow } from '../../store/repositories/events.repo.js';
import { repositories, type Repositories } from '../../store/repositories.js';

/** What a callback carries: the rendered, signed payload. */
export interface RenderedCallback {
  body: string;
  contentType: string;
}

/** Renders a delivery's payload (with its `signed` element) under the environment's secret. */
export type CallbackRenderer = (delivery: DeliveryRow, event: EventRow, secret: string) => Promise<RenderedCallback | null>;

export interface DispatcherSettings {
  /** Timeout of one attempt. */
  timeoutMs: number;
  /** First retry delay; each further one doubles, up to `maxDelayMs`, with jitter. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Deliveries claimed per round. */
  batch: number;
}

export const DEFAULT_DISPATCH = { baseDelayMs: 10_000, maxDelayMs: 3_600_000, batch: 20 } as const;

/**
 * Sends queued callbacks (issue 17): claims due rows (so two nodes never send the same attempt),
 * POSTs each through the egress guard with both signatures, and records the attempt. A failed
 * attempt is retried with exponential backoff and full jitter until 24 hours after the event.
 * The queue is in the database: a restart resumes where it stopped.
 */
export class CallbackDispatcher {
  private readonly repos: Repositories;
  private readonly nodeId = randomUUID();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<number> | null = null;

  constructor(
    store: StoreHandle,
    private readonly send: (request: DeliveryRequest) => Promise<DeliveryResult>,
    private readonly secretFor: (environmentKey: string) => Promise<string>,
    private readonly render: CallbackRenderer,
    private readonly clock: Clock,
    private readonly settings: DispatcherSettings,
    private readonly random: () => number = Math.random,
  ) {
    this.repos = repositories(store.db, store.dialect);
  }

  /** One round: every due delivery gets one attempt; how many were attempted. */
  async deliverDue(): Promise<number> {
    const now = this.clock.now();
    const claimId = `${this.nodeId}:${now.getTime()}`;
    const leaseUntil = new Date(now.getTime() + this.settings.timeoutMs + 30_000).toISOString();
    const claimed = await this.repos.callbacks.claimDue(now.toISOString(), leaseUntil, claimId, this.settings.batch);
    for (const delivery of claimed) await this.attempt(delivery, claimId);
    return claimed.length;
  }

  /** Polls every `intervalMs`; errors go to `onError` and the next round tries again. */
  start(intervalMs: number, onError: (error: unknown) => void): void {
    if (this.timer !== null) return;
    this.timer = setInterval(() => {
      if (this.running !== null) return;
      this.running = this.deliverDue();
      this.running.catch(onError).finally(() => {
        this.running = null;
      });
    }, intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    await this.running?.catch(() => undefined);
  }

  /** The delay before attempt `attempts + 1`: base × 2^(attempts−1), capped, with full jitter (half to all of it). */
  retryDelayMs(attempts: number): number {
    const ceiling = Math.min(this.settings.maxDelayMs, this.settings.baseDelayMs * 2 ** Math.max(0, attempts - 1));
    return Math.round(ceiling / 2 + (ceiling / 2) * this.random());
  }

  private async attempt(delivery: DeliveryRow, claimId: string): Promise<void> {
    const event = await this.repos.events.find(delivery.environment_key, delivery.event_token);
    const rendered = event === undefined ? null : await this.render(delivery, event, await this.secretFor(delivery.environment_key));
    if (event === undefined || rendered === null) {
      await this.finish(delivery, claimId, { status: null, latencyMs: 0, error: 'the event or its object is gone' }, false);
      return;
    }
    const started = this.clock.now();
    const t = Math.floor(started.getTime() / 1000);
    const signature = headerSignature(await this.secretFor(delivery.environment_key), rendered.body, t);
    try {
      const result = await this.send({
        url: delivery.url,
        method: 'POST',
        headers: `Content-Type: ${rendered.contentType}\nX-Coffer-Signature: ${signature}\nX-Coffer-Event-Id: ${event.token}\nX-Coffer-Delivery-Id: ${delivery.token}`,
        body: rendered.body,
        timeoutMs: this.settings.timeoutMs,
        sensitive: [],
      });
      const ok = result.status >= 200 && result.status < 300;
      await this.finish(delivery, claimId, { status: result.status, latencyMs: result.latencyMs, error: ok ? null : `HTTP ${result.status}` }, ok);
    } catch (error) {
      // The errors of the delivery client name the host and the category, never the path or the body.
      const latencyMs = this.clock.now().getTime() - started.getTime();
      await this.finish(delivery, claimId, { status: null, latencyMs, error: error instanceof Error ? error.message : 'delivery failed' }, false);
    }
  }

  private async finish(delivery: DeliveryRow, claimId: string, outcome: { status: number | null; latencyMs: number; error: string | null }, delivered: boolean): Promise<void> {
    const now = this.clock.now();
    const next = new Date(now.getTime() + this.retryDelayMs(delivery.attempts + 1));
    const state: AttemptResult['state'] = delivered ? 'delivered' : next.toISOString() > delivery.give_up_at ? 'abandoned' : 'queued';
    await this.repos.callbacks.finishAttempt(delivery, claimId, { ...outcome, state, nextAttemptAt: state === 'queued' ? next.toISOString() : now.toISOString(), at: now.toISOString() });
  }
}
