import { AsyncLocalStorage } from 'node:async_hooks';

/** What the store needs to know about the API request a write belongs to. */
interface RequestContext {
  requestId: string;
  /** Per store (its WAL syncer), the last commit this request could have seen (group commit, docs/reliability.md). */
  seen?: Map<object, number>;
  /**
   * Environments this request read, with its authentication, as having no callback subscription
   * (docs/caching.md, "Callback subscriptions read with authentication"): their events need no look for one. Forgotten when the request changes the environment.
   */
  unsubscribed?: Set<string>;
}

const storage = new AsyncLocalStorage<RequestContext>();

/**
 * Runs `work` (and everything it starts) as part of the request `requestId`: events recorded
 * meanwhile carry it as `request_id`, without passing it through every service.
 */
export function runInRequest<T>(requestId: string, work: () => T): T {
  return storage.run({ requestId }, work);
}

/** The X-Request-Id of the request being served, or null (the sweep, the CLI). */
export function currentRequestId(): string | null {
  return storage.getStore()?.requestId ?? null;
}

/**
 * Records that the request being served has used `store` when its last commit was `sequence`:
 * whatever it read could reflect commits up to there, so its answer waits for them to be durable.
 */
export function noteSeenCommit(store: object, sequence: number): void {
  const context = storage.getStore();
  if (context === undefined) return;
  const seen = (context.seen ??= new Map());
  if ((seen.get(store) ?? 0) < sequence) seen.set(store, sequence);
}

/** The last commit of `store` the request being served could have seen (0: none); null outside a request. */
export function seenCommit(store: object): number | null {
  const context = storage.getStore();
  return context === undefined ? null : (context.seen?.get(store) ?? 0);
}

/**
 * Records what the request's authentication read of an environment's callback subscription. The
 * row comes from the definition cache, valid as of the request's start (docs/caching.md), so an
 * event of this request is queued for the subscriptions that existed when the request began.
 */
export function noteCallbackSubscription(environmentKey: string, subscribed: boolean): void {
  const context = storage.getStore();
  if (context === undefined) return;
  if (subscribed) context.unsubscribed?.delete(environmentKey);
  else (context.unsubscribed ??= new Set()).add(environmentKey);
}

/** True when the request being served knows `environmentKey` has no callback subscription; false when unknown. */
export function knownUnsubscribed(environmentKey: string): boolean {
  return storage.getStore()?.unsubscribed?.has(environmentKey) === true;
}
