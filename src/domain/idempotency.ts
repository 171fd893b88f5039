/**
 * Where a request with an Idempotency-Key stands (API.md §8): still running, done (its response
 * kept for replays), or done with a response that carried a secret (never replayed).
 */
export type IdempotencyState = 'running' | 'done' | 'not_replayable';

/** The response of a finished request, kept for replays. */
export interface StoredResponse {
  status: number;
  contentType: string;
  body: string;
}

/**
 * A claimed Idempotency-Key of an environment. `key` is the keyed hash of the header's value,
 * never the value. Timestamps are ISO-8601 UTC strings (they sort as text).
 */
export interface IdempotencyRecord {
  environmentKey: string;
  key: string;
  /** SHA-256 of method, path and body: the same key with another request is refused. */
  requestHash: string;
  state: IdempotencyState;
  /** The response of a `done` request (each part null otherwise). */
  responseStatus: number | null;
  responseContentType: string | null;
  responseBody: string | null;
  createdAt: string;
  expiresAt: string;
}
