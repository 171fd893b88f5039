import { AppError } from '../domain/errors.js';
import type { Clock } from '../domain/clock.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import type { IdempotencyRecord, StoredResponse } from '../domain/idempotency.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'idempotency';

/** Keyed hash of an Idempotency-Key within its environment (the keyring's HMAC): what is stored. */
export type IdempotencyKeyHasher = (environmentKey: string, key: string) => Promise<string>;

/** What to do with a request that carries an Idempotency-Key. */
export type Claim = { kind: 'proceed' } | { kind: 'replay'; status: number; contentType: string; body: string };

/** API.md §8: responses are kept 24 hours. */
const RETENTION_MS = 24 * 60 * 60 * 1000;
/**
 * A claim still "running" after this long belongs to a request whose node died: it may be
 * taken over. Longer than any gateway timeout (at most 600 s) with room to spare.
 */
const ABANDONED_MS = 15 * 60 * 1000;

const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Idempotency keys, stored in the database so they hold across nodes: the first request with
 * a key runs and its response is stored; the same key and request replays that response; the
 * same key with another request is 422; while the first is still running, 409. A response that
 * carries a secret (a new access secret) is never stored: its key answers 409
 * `errors.idempotency_key_not_replayable` from then on. Keys are stored as keyed hashes only.
 */
export class IdempotencyService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    store: StoreAccess<Uses>,
    private readonly clock: Clock,
    private readonly hashKey: IdempotencyKeyHasher,
  ) {
    this.repos = store.repos;
  }

  async claim(environmentKey: string, key: string, requestHash: string): Promise<Claim> {
    if (!KEY_PATTERN.test(key)) {
      throw new AppError({ key: 'errors.invalid', attribute: 'Idempotency-Key', message: 'Idempotency-Key must be 1 to 255 printable characters' });
    }
    return this.claimHashed(environmentKey, await this.hashKey(environmentKey, key), requestHash);
  }

  private async claimHashed(environmentKey: string, key: string, requestHash: string): Promise<Claim> {
    const now = this.clock.now();
    const claim: IdempotencyRecord = {
      environmentKey,
      key,
      requestHash,
      state: 'running',
      responseStatus: null,
      responseContentType: null,
      responseBody: null,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + RETENTION_MS).toISOString(),
    };
    if (await this.repos.idempotency.insertRunning(claim)) return { kind: 'proceed' };
    const existing = await this.repos.idempotency.find(environmentKey, key);
    if (existing === undefined) return this.claimHashed(environmentKey, key, requestHash);
    const expired = existing.expiresAt <= claim.createdAt;
    const abandoned = existing.state === 'running' && now.getTime() - Date.parse(existing.createdAt) > ABANDONED_MS;
    if (expired || abandoned) {
      if (await this.repos.idempotency.takeOver(existing, claim)) return { kind: 'proceed' };
      return this.claimHashed(environmentKey, key, requestHash);
    }
    if (existing.requestHash !== requestHash) {
      throw new AppError({ key: 'errors.idempotency_key_reused', message: 'This Idempotency-Key was used with a different request.' });
    }
    if (existing.state === 'running') {
      throw new AppError({ key: 'errors.idempotency_key_in_use', message: 'A request with this Idempotency-Key is still being processed.' });
    }
    // A completed request whose response carried a secret: remembered, never replayed.
    if (existing.state === 'not_replayable') {
      throw new AppError({ key: 'errors.idempotency_key_not_replayable', message: 'The response to this Idempotency-Key carried a secret and is not kept; it cannot be replayed.' });
    }
    return { kind: 'replay', status: existing.responseStatus ?? 200, contentType: existing.responseContentType ?? 'application/json', body: existing.responseBody ?? '' };
  }

  /**
   * Keeps the response for replays; responses that did not decide anything free the key instead.
   * A successful response that carries a secret (`carriesSecret`) is not kept: the key is only
   * marked as used.
   */
  async settle(environmentKey: string, key: string, response: StoredResponse, carriesSecret = false): Promise<void> {
    const hashed = await this.hashKey(environmentKey, key);
    if (response.status >= 500 || response.status === 429 || response.status === 409) {
      await this.repos.idempotency.remove(environmentKey, hashed);
    } else if (carriesSecret && response.status < 300) {
      await this.repos.idempotency.markNotReplayable(environmentKey, hashed);
    } else {
      await this.repos.idempotency.complete(environmentKey, hashed, response);
    }
  }

  removeExpired(): Promise<number> {
    return this.repos.idempotency.removeExpired(this.clock.now().toISOString());
  }
}
