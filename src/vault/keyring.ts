import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { WrappedKey, WrappedKeyPurpose, WrappedKeyStore } from '../store/repositories/wrapped-keys.repo.js';
import { blobKeyId, open, seal } from './cipher.js';

const KEY_BYTES = 32;
const SECRET_HASH_KEY_ID = 'secret-hash-1';
const IDEMPOTENCY_HASH_KEY_ID = 'idempotency-hash-1';
const HEX_SHA256 = /^[0-9a-f]{64}$/i;
/** Spreedly's fingerprints are 36 hex characters (144 bits of the HMAC). */
const FINGERPRINT_HEX_CHARS = 36;

/** A short public identifier of a master key: lets start-up detect a wrong COFFER_MASTER_KEY. */
export function masterKeyId(masterKey: Buffer): string {
  return createHash('sha256').update('coffer master key id\0').update(masterKey).digest('hex').slice(0, 16);
}

export class MasterKeyMismatchError extends Error {
  constructor() {
    super('COFFER_MASTER_KEY does not match the master key this database was sealed with');
    this.name = 'MasterKeyMismatchError';
  }
}

export interface KeyringOptions {
  /** Older master keys, accepted for unwrapping only (during a master-key rotation). */
  previousMasterKeys?: Buffer[];
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
  private readonly masters = new Map<string, Buffer>();
  private readonly primaryId: string;
  private readonly current = new Map<string, { id: string; readAt: number }>();
  private readonly ttlMs: number;
  private readonly now: () => Date;

  constructor(
    private readonly keys: WrappedKeyStore,
    private readonly masterKey: Buffer,
    options: KeyringOptions | (() => Date) = {},
  ) {
    const settings = typeof options === 'function' ? { now: options } : options;
    this.now = settings.now ?? (() => new Date());
    this.ttlMs = settings.currentKeyTtlMs ?? 30_000;
    this.primaryId = masterKeyId(masterKey);
    this.masters.set(this.primaryId, masterKey);
    for (const previous of settings.previousMasterKeys ?? []) this.masters.set(masterKeyId(previous), previous);
  }

  /** Fails fast when the database holds keys wrapped by a master key this process does not have. */
  async verifyMasterKey(): Promise<void> {
    if (await this.keys.anyWrappedByOther([...this.masters.keys()])) throw new MasterKeyMismatchError();
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
  async rewrapWithPrimary(): Promise<number> {
    const stale = await this.keys.notWrappedBy(this.primaryId);
    let rewrapped = 0;
    for (const wrappedKey of stale) {
      const key = this.unwrap(wrappedKey);
      const to = { wrapped: seal(this.masterKey, this.primaryId, key, wrapAad(wrappedKey.id)), masterKeyId: this.primaryId };
      if (await this.keys.rewrap(wrappedKey.id, wrappedKey.masterKeyId, to)) rewrapped += 1;
    }
    return rewrapped;
  }

  private unwrap(wrappedKey: WrappedKey): Buffer {
    const master = this.masters.get(wrappedKey.masterKeyId);
    if (master === undefined) throw new MasterKeyMismatchError();
    return open(master, wrappedKey.wrapped, wrapAad(wrappedKey.id));
  }

  private async getOrCreate(id: string, purpose: WrappedKeyPurpose, environmentKey: string | null): Promise<Buffer> {
    const cached = this.unwrapped.get(id);
    if (cached !== undefined) return cached;
    let wrappedKey = await this.keys.find(id);
    if (wrappedKey === undefined) {
      // Several nodes may race here: the insert is a no-op for all but the first, and
      // everyone then reads the winner's key.
      await this.keys.insertIfAbsent({
        id,
        purpose,
        environmentKey,
        wrapped: seal(this.masterKey, this.primaryId, randomBytes(KEY_BYTES), wrapAad(id)),
        masterKeyId: this.primaryId,
        createdAt: this.now().toISOString(),
      });
      wrappedKey = await this.keys.find(id);
      if (wrappedKey === undefined) throw new Error(`wrapped key ${id} is missing right after its insert`);
    }
    const key = this.unwrap(wrappedKey);
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
