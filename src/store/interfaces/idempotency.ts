import type { IdempotencyRecord, StoredResponse } from '../../domain/idempotency.js';

/** Single-query primitives over `idempotency_keys`. */
export interface IdempotencyRepository {
  /** Claims a key; false when a row for it already exists. */
  insertRunning(record: IdempotencyRecord): Promise<boolean>;
  find(environmentKey: string, key: string): Promise<IdempotencyRecord | undefined>;
  /** Replaces an expired or abandoned claim, only if it is still the one that was read. */
  takeOver(previous: IdempotencyRecord, next: IdempotencyRecord): Promise<boolean>;
  complete(environmentKey: string, key: string, response: StoredResponse): Promise<void>;
  /** The request finished but its response is not kept (it carried a secret). */
  markNotReplayable(environmentKey: string, key: string): Promise<void>;
  remove(environmentKey: string, key: string): Promise<void>;
  removeExpired(now: string): Promise<number>;
}
