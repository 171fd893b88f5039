import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../store/schema.js';
import { open, seal } from './cipher.js';

const KEY_BYTES = 32;
const SECRET_HASH_KEY_ID = 'secret-hash-1';
const HEX_SHA256 = /^[0-9a-f]{64}$/i;

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

/**
 * The key hierarchy: the master key (never stored in the database) wraps every other key;
 * wrapped keys live in `wrapped_keys` and are unwrapped once per process and cached.
 * - `secret-hash-1`: HMAC key for access-secret hashes (global).
 * - `d-<environment key>-<n>`: per-environment data keys sealing credentials and card data.
 */
export class Keyring {
  private readonly unwrapped = new Map<string, Buffer>();
  private readonly masterId: string;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly masterKey: Buffer,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.masterId = masterKeyId(masterKey);
  }

  /** Fails fast when the database holds keys wrapped by a different master key. */
  async verifyMasterKey(): Promise<void> {
    const foreign = await this.db
      .selectFrom('wrapped_keys')
      .select('id')
      .where('master_key_id', '!=', this.masterId)
      .limit(1)
      .executeTakeFirst();
    if (foreign !== undefined) throw new MasterKeyMismatchError();
  }

  /** Keyed hash of an access secret (hex). Fast (HMAC), so it can run on every request. */
  async hashSecret(secret: string): Promise<string> {
    const key = await this.getOrCreate(SECRET_HASH_KEY_ID, 'secret_hash', null);
    return createHmac('sha256', key).update(secret, 'utf8').digest('hex');
  }

  /** Constant-time equality of two SHA-256 hex hashes; anything else is never equal. */
  static sameHash(a: string, b: string): boolean {
    if (!HEX_SHA256.test(a) || !HEX_SHA256.test(b)) return false;
    return timingSafeEqual(Buffer.from(a, 'hex'), Buffer.from(b, 'hex'));
  }

  /** Seals a value with the environment's current data key. */
  async sealFor(environmentKey: string, plaintext: Buffer, associatedData: string): Promise<string> {
    const id = dataKeyId(environmentKey, 1);
    const key = await this.getOrCreate(id, 'data', environmentKey);
    return seal(key, id, plaintext, associatedData);
  }

  /** Opens a blob sealed by `sealFor` for the same environment and associated data. */
  async openFor(environmentKey: string, blob: string, associatedData: string): Promise<Buffer> {
    const id = blob.split('.')[1] ?? '';
    if (!id.startsWith(`d-${environmentKey}-`)) throw new Error('cipher blob belongs to another environment');
    const key = await this.getOrCreate(id, 'data', environmentKey);
    return open(key, blob, associatedData);
  }

  private async getOrCreate(id: string, purpose: string, environmentKey: string | null): Promise<Buffer> {
    const cached = this.unwrapped.get(id);
    if (cached !== undefined) return cached;
    let row = await this.db.selectFrom('wrapped_keys').selectAll().where('id', '=', id).executeTakeFirst();
    if (row === undefined) {
      // Several nodes may race here: the insert is a no-op for all but the first, and
      // everyone then reads the winner's key.
      const fresh = randomBytes(KEY_BYTES);
      await this.db
        .insertInto('wrapped_keys')
        .values({
          id,
          purpose,
          environment_key: environmentKey,
          wrapped: seal(this.masterKey, this.masterId, fresh, wrapAad(id)),
          master_key_id: this.masterId,
          created_at: this.now().toISOString(),
        })
        .onConflict((oc) => oc.column('id').doNothing())
        .execute();
      row = await this.db.selectFrom('wrapped_keys').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    }
    if (row.master_key_id !== this.masterId) throw new MasterKeyMismatchError();
    const key = open(this.masterKey, row.wrapped, wrapAad(id));
    this.unwrapped.set(id, key);
    return key;
  }
}

function dataKeyId(environmentKey: string, version: number): string {
  return `d-${environmentKey}-${version}`;
}

function wrapAad(id: string): string {
  return `wrapped-key:${id}`;
}
