import { AsyncLocalStorage } from 'node:async_hooks';

/** What the store needs to know about the API request a write belongs to. */
interface RequestContext {
  requestId: string;
  /** Per store (its WAL syncer), the last commit this request could have seen (group commit, docs/reliability.md). */
  seen?: Map<object, number>;
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
