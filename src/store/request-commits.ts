import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Group commit's one piece of per-request state (docs/reliability.md, docs/architecture.md
 * "Request context"): per store (its WAL syncer), the last commit an API request could have seen.
 * The answer waits until those commits are durable, and for no one else's. It lives here, inside the
 * store's speed machinery, because the connection that notes a commit is deep below the services;
 * it decides when an answer may leave, never what is persisted. Everything a service persists about
 * its request (the request id on events) is passed to it explicitly.
 */
type SeenCommits = Map<object, number>;

const storage = new AsyncLocalStorage<{ seen?: SeenCommits }>();

/** Runs `work` (and everything it starts) as one API request whose commits are tracked. */
export function trackRequestCommits<T>(work: () => T): T {
  return storage.run({}, work);
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
