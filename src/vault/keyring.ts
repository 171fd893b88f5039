import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { WrappedKey, WrappedKeyPurpose, WrappedKeyStore } from '../store/repositories/wrapped-keys.repo.js';
import { blobKeyId, open, seal } from './cipher.js';
import { InProcessMasterKey, masterKeyId } from './master-key-providers/in-process.js';
import type { MasterKeyProvider } from './master-key-providers/provider.js';

export { masterKeyId };

const KEY_BYTES = 32;
const SECRET_HASH_KEY_ID = 'secret-hash-1';
const IDEMPOTENCY_HASH_KEY_ID = 'idempotency-hash-1';
const HEX_SHA256 = /^[0-9a-f]{64}$/i;
/** Spreedly's fingerprints are 36 hex characters (144 bits of the HMAC). */
const FINGERPRINT_HEX_CHARS = 36;

export class MasterKeyMismatchError extends Error {
  constructor() {
    super('the master key (COFFER_MASTER_KEY_PROVIDER, COFFER_MASTER_KEY) does not match the master key this database was sealed with');
    this.name = 'MasterKeyMismatchError';
  }
}

export interface KeyringOptions {
  /** Older master keys, accepted for unwrapping only (during a master-key rotation). */
  previousMasterKeys?: Buffer[];
  /** Other master key providers accepted for unwrapping only (during a move between providers). */
  previousProviders?: MasterKeyProvider[];
  /** How long the id of an environment's current data key is trusted before it is re-read. */
  currentKeyTtlMs?: number;
  now?: () => Date;
}

/**
 * The key hierarchy (see src/vault/README.md): master key → wrapped keys in `wrapped_keys`.
 * - `secret-hash-1`: HMAC key for access-secret hashes (global);
 * - `idempotency-hash-1`: HMAC key for Idempotency-Key values (global; keys are stored hashed);
 * - `d-<environment>-<n>`: data keys, version n, sealing credentials and card data;
 * - `f-<environment>-1`: fingerprint keys (HMAC of the PAN).
 * Unwrapped keys are cached for the life of the process; only this module touches them.
 */
export class Keyring {
  private readonly unwrapped = new Map<string, Buffer>();
  /** The primary provider first, then those accepted for unwrapping only (matched by id at each use: a shares key learns its id when initialised). */
  private readonly providers: MasterKeyProvider[];
  private readonly primary: MasterKeyProvider;
  private readonly current = new Map<string, { id: string; readAt: number }>();
  private readonly ttlMs: number;
  private readonly now: () => Date;

  constructor(
    private readonly keys: WrappedKeyStore,
    masterKey: Buffer | MasterKeyProvider,
    options: KeyringOptions | (() => Date) = {},
  ) {
    const settings = typeof options === 'function' ? { now: options } : options;
    this.now = settings.now ?? (() => new Date());
    this.ttlMs = settings.currentKeyTtlMs ?? 30_000;
    this.primary = Buffer.isBuffer(masterKey) ? new InProcessMasterKey('env', masterKey) : masterKey;
    this.providers = [this.primary, ...(settings.previousMasterKeys ?? []).map((previous) => new InProcessMasterKey('env', previous)), ...(settings.previousProviders ?? [])];
  }

  /** Fails fast when the database holds keys wrapped by a master key this process does not have. */
  async verifyMasterKey(): Promise<void> {
    if (await this.keys.anyWrappedByOther(this.providers.map((provider) => provider.id))) throw new MasterKeyMismatchError();
  }

  /** Keyed hash of an access secret (hex). Fast (HMAC), so it can run on every request. */
  async hashSecret(secret: string): Promise<string> {
    const key = await this.getOrCreate(SECRET_HASH_KEY_ID, 'secret_hash', null);
    return createHmac('sha256', key).update(secret, 'utf8').digest('hex');
  }

  /**
   * Keyed hash of an Idempotency-Key within its environment (hex): clients put anything in that
   * header (a card number was seen), so only this is stored.
   */
  async hashIdempotencyKey(environmentKey: string, key: string): Promise<string> {
    const hashKey = await this.getOrCreate(IDEMPOTENCY_HASH_KEY_ID, 'idempotency_hash', null);
    return createHmac('sha256', hashKey).update(environmentKey, 'utf8').update('\0').update(key, 'utf8').digest('hex');
  }

  /** Constant-time equality of two SHA-256 hex hashes; anything else is never equal. */
  static sameHash(a: string, b: string): boolean {
    if (!HEX_SHA256.test(a) || !HEX_SHA256.test(b)) return false;
    return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
  }

  /** The card fingerprint: same PAN, same value within an environment; unrelated across environments. */
  async fingerprint(environmentKey: string, pan: string): Promise<string> {
    const key = await this.getOrCreate(`f-${environmentKey}-1`, 'fingerprint', environmentKey);
    return createHmac('sha256', key).update(pan, 'utf8').digest('hex').slice(0, FINGERPRINT_HEX_CHARS);
  }

  /** Seals a value with the environment's current data key. */
  async sealFor(environmentKey: string, plaintext: Buffer, associatedData: string): Promise<string> {
    const id = await this.currentDataKeyId(environmentKey);
    return seal(await this.getOrCreate(id, 'data', environmentKey), id, plaintext, associatedData);
  }

  /** Opens a blob sealed by `sealFor` (with any data-key version) for the same environment and associated data. */
  async openFor(environmentKey: string, blob: string, associatedData: string): Promise<Buffer> {
    const id = blobKeyId(blob);
    if (dataKeyVersion(id, environmentKey) === null) throw new Error('cipher blob belongs to another environment');
    return open(await this.getOrCreate(id, 'data', environmentKey), blob, associatedData);
  }

  /**
   * Opens a sealed JSON object (credentials, SFTP secrets) and parses it: the plaintext exists only
   * here and in the object handed back, never as text in a service.
   */
  async openJsonFor<T extends object>(environmentKey: string, blob: string, associatedData: string): Promise<T> {
    return JSON.parse((await this.openFor(environmentKey, blob, associatedData)).toString('utf8')) as T;
  }

  /** The id of the data key new blobs of this environment are sealed with. */
  async currentDataKeyId(environmentKey: string): Promise<string> {
    const cached = this.current.get(environmentKey);
    if (cached !== undefined && Date.now() - cached.readAt < this.ttlMs) return cached.id;
    const ids = await this.keys.dataKeyIds(environmentKey);
    const newest = Math.max(1, ...ids.map((keyId) => dataKeyVersion(keyId, environmentKey) ?? 0));
    const id = dataKeyId(environmentKey, newest);
    this.current.set(environmentKey, { id, readAt: Date.now() });
    return id;
  }

  /** Creates the environment's next data key version and makes it current; returns its id. */
  async rotateDataKey(environmentKey: string): Promise<string> {
    this.current.delete(environmentKey);
    const present = dataKeyVersion(await this.currentDataKeyId(environmentKey), environmentKey) ?? 1;
    const id = dataKeyId(environmentKey, present + 1);
    await this.getOrCreate(dataKeyId(environmentKey, present), 'data', environmentKey);
    await this.getOrCreate(id, 'data', environmentKey);
    this.current.set(environmentKey, { id, readAt: Date.now() });
    return id;
  }

  /**
   * Re-wraps every key not wrapped by the primary master key (after `COFFER_MASTER_KEY` changed
   * and the old one moved to `COFFER_MASTER_KEY_PREVIOUS`). Row by row, each update conditional
   * on the wrapping it read, so it is safe while servers run and when run twice.
   */
  rewrapWithPrimary(): Promise<number> {
    return this.rewrapTo(this.primary);
  }

  /**
   * Re-wraps every key not wrapped by `target` (another provider: `coffer master-key rotate --to`),
   * unwrapping each with the provider that wrapped it. Only wrapped keys move: no card is
   * re-encrypted. Each update is conditional on the wrapping it read, so this runs beside serving
   * nodes and an interrupted run resumes where it stopped. Returns how many moved.
   */
  async rewrapTo(target: MasterKeyProvider): Promise<number> {
    const stale = await this.keys.notWrappedBy(target.id);
    let rewrapped = 0;
    for (const wrappedKey of stale) {
      const key = await this.unwrap(wrappedKey);
      try {
        const to = { wrapped: await target.wrap(key, wrapAad(wrappedKey.id)), masterKeyId: target.id };
        if (await this.keys.rewrap(wrappedKey.id, wrappedKey.masterKeyId, to)) rewrapped += 1;
      } finally {
        // Not cached by this path: a cached key stays in `unwrapped`, this copy is dropped.
        if (this.unwrapped.get(wrappedKey.id) !== key) key.fill(0);
      }
    }
    return rewrapped;
  }

  /** How many keys `provider` wrapped (more than none: a move onto it was started). */
  countWrappedBy(provider: MasterKeyProvider): Promise<number> {
    return this.keys.countWrappedBy(provider.id);
  }

  /** The master keys (by id) that wrap keys `target` did not wrap: what a move onto `target` moves off. */
  async mastersOtherThan(target: MasterKeyProvider): Promise<string[]> {
    return [...new Set((await this.keys.notWrappedBy(target.id)).map((key) => key.masterKeyId))].sort();
  }

  /** The provider new keys are wrapped by (`rewrapWithPrimary` moves onto it). */
  get primaryProvider(): MasterKeyProvider {
    return this.primary;
  }

  /** How many keys `target` did not wrap. */
  async countNotWrappedBy(target: MasterKeyProvider): Promise<number> {
    return (await this.keys.notWrappedBy(target.id)).length;
  }

  private unwrap(wrappedKey: WrappedKey): Promise<Buffer> {
    const master = this.providers.find((provider) => provider.id === wrappedKey.masterKeyId);
    if (master === undefined) return Promise.reject(new MasterKeyMismatchError());
    return master.unwrap(wrappedKey.wrapped, wrapAad(wrappedKey.id));
  }

  private async getOrCreate(id: string, purpose: WrappedKeyPurpose, environmentKey: string | null): Promise<Buffer> {
    const cached = this.unwrapped.get(id);
    if (cached !== undefined) return cached;
    let wrappedKey = await this.keys.find(id);
    if (wrappedKey === undefined) {
      // Several nodes may race here: the insert is a no-op for all but the first, and
      // everyone then reads the winner's key.
      const fresh = randomBytes(KEY_BYTES);
      const wrapped = await this.primary.wrap(fresh, wrapAad(id));
      fresh.fill(0);
      await this.keys.insertIfAbsent({ id, purpose, environmentKey, wrapped, masterKeyId: this.primary.id, createdAt: this.now().toISOString() });
      wrappedKey = await this.keys.find(id);
      if (wrappedKey === undefined) throw new Error(`wrapped key ${id} is missing right after its insert`);
    }
    const key = await this.unwrap(wrappedKey);
    // Two requests may have unwrapped it at once: keep the first, so every caller holds the same buffer.
    const raced = this.unwrapped.get(id);
    if (raced !== undefined) {
      key.fill(0);
      return raced;
    }
    this.unwrapped.set(id, key);
    return key;
  }
}

function dataKeyId(environmentKey: string, version: number): string {
  return `d-${environmentKey}-${version}`;
}

/** The version of a data key id of this environment, or null when it is not one. */
function dataKeyVersion(id: string, environmentKey: string): number | null {
  const prefix = `d-${environmentKey}-`;
  if (!id.startsWith(prefix)) return null;
  const version = id.slice(prefix.length);
  return /^[1-9]\d*$/.test(version) ? Number(version) : null;
}

function wrapAad(id: string): string {
  return `wrapped-key:${id}`;
}
