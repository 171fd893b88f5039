import { AppError } from '../../domain/errors.js';
import type { Clock } from '../../domain/clock.js';
import type { Environment } from '../../domain/environment.js';
import { NO_REQUEST, type RequestMeta } from '../../domain/request.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { PullThroughService } from './pull-through.service.js';
import type { UpstreamClient } from './upstream-client.js';
import { UpstreamThrottledError, UpstreamUnavailableError } from './upstream-http.js';
import { UPSTREAM_NOT_FOUND, type UpstreamSettingsService } from './upstream-settings.service.js';

/** Longest wait honoured for one Retry-After; the walk then tries again (and waits again if told to). */
const MAX_WAIT_MS = 5 * 60_000;
/** A page that keeps failing ends the walk as interrupted after this many tries (resumable). */
const MAX_TRIES = 5;

/** How the walk sleeps (injected so tests need not wait out a Retry-After). */
export type Sleep = (ms: number) => Promise<void>;

export const realSleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Backfill (docs/portability.md, "Live migration"): walks the upstream's retained payment methods
 * (`GET payment_methods` with `since_token`, oldest first) and pulls every one this environment
 * does not hold yet. The cursor (the last token fully handled) is stored after each method, so a
 * walk interrupted (a restart, an unreachable upstream) resumes after it and duplicates nothing.
 * One walk per environment at a time (a conditional update claims it). The upstream's 429s are
 * honoured: the walk waits its Retry-After, shown as `throttled_until`.
 */
export class BackfillService {
  private readonly running = new Map<string, Promise<void>>();

  constructor(
    private readonly store: StoreAccess<'upstreams' | 'paymentMethods'>,
    private readonly settings: UpstreamSettingsService,
    private readonly client: UpstreamClient,
    private readonly pullThrough: PullThroughService,
    private readonly clock: Clock,
    private readonly sleep: Sleep = realSleep,
    /** Where a walk's unexpected failure is reported (it runs after the 202). */
    private readonly onError: (error: unknown) => void = () => undefined,
  ) {}

  /**
   * Starts (or resumes) the walk in the background; false when one is already running. `restart`
   * walks from the beginning again (what is here already is counted, not copied again).
   * `request` is the API request that started it: the events of the cards it copies carry its id.
   */
  async start(environment: Environment, options: { restart?: boolean; request?: RequestMeta } = {}): Promise<boolean> {
    const upstream = await this.store.repos.upstreams.find(environment.key);
    if (upstream === undefined) throw UPSTREAM_NOT_FOUND();
    if (this.running.has(environment.key)) return false;
    // A walk left "running" by a process that stopped is resumed by the next start on any node.
    if (upstream.backfill.state === 'running' && this.running.size === 0 && options.restart !== true) {
      await this.store.repos.upstreams.setBackfill(environment.key, { state: 'interrupted' });
    }
    if (!(await this.store.repos.upstreams.claimBackfill(environment.key, this.clock.now().toISOString()))) return false;
    const fresh = options.restart === true || upstream.backfill.state === 'done' || upstream.backfill.state === 'idle';
    if (fresh) await this.store.repos.upstreams.setBackfill(environment.key, { cursor: null, seen: 0, backfilled: 0, alreadyHere: 0, failed: 0, throttledUntil: null });
    const walk = this.walk(environment, options.request ?? NO_REQUEST)
      .catch(async (error: unknown) => {
        await this.store.repos.upstreams.setBackfill(environment.key, { state: 'interrupted' }).catch(() => undefined);
        this.onError(error);
      })
      .finally(() => this.running.delete(environment.key));
    this.running.set(environment.key, walk);
    return true;
  }

  /** Runs a walk to its end in the foreground (the CLI). */
  async run(environment: Environment, options: { restart?: boolean } = {}): Promise<void> {
    if (!(await this.start(environment, options))) throw new AppError({ key: 'errors.invalid', attribute: 'backfill', message: 'A backfill of this environment is already running.' });
    await this.running.get(environment.key);
  }

  /** Waits for the walks of this process (shutdown, tests). */
  async drain(): Promise<void> {
    await Promise.all([...this.running.values()]);
  }

  private async walk(environment: Environment, request: RequestMeta): Promise<void> {
    const repos = this.store.repos.upstreams;
    for (;;) {
      const upstream = await repos.find(environment.key);
      if (upstream === undefined) return;
      const endpoint = await this.settings.endpoint(upstream);
      const page = await this.withRetries(environment.key, () => this.client.listRetained(endpoint, upstream.backfill.cursor));
      if (page === null) return;
      for (const method of page.methods) {
        await repos.increment(environment.key, 'backfill_seen');
        if ((await this.store.repos.paymentMethods.find(environment.key, method.token)) !== undefined) {
          await repos.increment(environment.key, 'backfill_already_here');
        } else {
          const pulled = await this.withRetries(environment.key, () => this.pullThrough.pull(environment, upstream, method.token, 'backfill', method, request));
          if (pulled === null) return;
          if (pulled !== 'pulled') await repos.increment(environment.key, 'backfill_failed');
        }
        await repos.setBackfill(environment.key, { cursor: method.token });
      }
      if (page.last) {
        await repos.setBackfill(environment.key, { state: 'done', finishedAt: this.clock.now().toISOString(), throttledUntil: null });
        return;
      }
    }
  }

  /**
   * Runs one upstream step, waiting out 429s (Retry-After) and retrying other failures a few
   * times; null (and the walk marked interrupted, to be resumed) when it keeps failing.
   */
  private async withRetries<T>(environmentKey: string, step: () => Promise<T>): Promise<T | null> {
    for (let tries = 1; ; tries += 1) {
      try {
        return await step();
      } catch (error) {
        const throttled = error instanceof UpstreamThrottledError ? error.retryAfterMs : retryAfterOf(error);
        if (throttled !== null) {
          const wait = Math.min(MAX_WAIT_MS, throttled);
          await this.store.repos.upstreams.setBackfill(environmentKey, { throttledUntil: new Date(this.clock.now().getTime() + wait).toISOString() });
          await this.sleep(wait);
          await this.store.repos.upstreams.setBackfill(environmentKey, { throttledUntil: null });
          continue;
        }
        // An unreachable upstream (or a pull it failed) is worth a few tries; anything else is a bug.
        const retryable = error instanceof AppError || error instanceof UpstreamUnavailableError;
        if (tries >= MAX_TRIES || !retryable) {
          await this.store.repos.upstreams.setBackfill(environmentKey, { state: 'interrupted' });
          if (!retryable) throw error;
          return null;
        }
        await this.sleep(Math.min(30_000, 500 * 2 ** tries));
      }
    }
  }
}

/** A pull answers the upstream's 429 as an AppError with Retry-After: the wait it asked for, in ms. */
function retryAfterOf(error: unknown): number | null {
  if (!(error instanceof AppError) || error.status !== 503) return null;
  const header = error.headers['Retry-After'];
  return header === undefined ? null : Number(header) * 1000;
}
