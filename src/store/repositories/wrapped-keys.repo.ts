import type { Kysely, Selectable } from 'kysely';
import type { Database, WrappedKeysTable } from '../schema.js';

/** What a wrapped key is for: the global hash keys, and each environment's data and fingerprint keys. */
export type WrappedKeyPurpose = 'secret_hash' | 'idempotency_hash' | 'data' | 'fingerprint';

/** A key sealed under a master key (a cipher blob, see vault/cipher.ts), as the keyring keeps it. */
export interface WrappedKey {
  id: string;
  purpose: WrappedKeyPurpose;
  /** Null for the global keys. */
  environmentKey: string | null;
  wrapped: string;
  /** Which master key wrapped it (vault/keyring.ts `masterKeyId`). */
  masterKeyId: string;
  createdAt: string;
}

/** What the keyring needs of the store (src/vault/README.md): its wrapped keys, read and written one at a time. */
export interface WrappedKeyStore {
  find(id: string): Promise<WrappedKey | undefined>;
  /** Inserts the key unless one with its id exists: of several nodes racing, the first wins. */
  insertIfAbsent(key: WrappedKey): Promise<void>;
  /** The ids of the environment's data keys (every version). */
  dataKeyIds(environmentKey: string): Promise<string[]>;
  /** Whether some key is wrapped by a master key not among `masterKeyIds`. */
  anyWrappedByOther(masterKeyIds: string[]): Promise<boolean>;
  /** Every key not wrapped by `masterKeyId`. */
  notWrappedBy(masterKeyId: string): Promise<WrappedKey[]>;
  /** How many keys `masterKeyId` wrapped. */
  countWrappedBy(masterKeyId: string): Promise<number>;
  /** Re-wraps a key if it is still wrapped by `fromMasterKeyId` (the wrapping read); false otherwise. */
  rewrap(id: string, fromMasterKeyId: string, to: { wrapped: string; masterKeyId: string }): Promise<boolean>;
}

function wrappedKeyOf(row: Selectable<WrappedKeysTable>): WrappedKey {
  return {
    id: row.id,
    purpose: row.purpose as WrappedKeyPurpose,
    environmentKey: row.environment_key,
    wrapped: row.wrapped,
    masterKeyId: row.master_key_id,
    createdAt: row.created_at,
  };
}

/** `wrapped_keys`, for the keyring. */
export class WrappedKeysRepo implements WrappedKeyStore {
  constructor(private readonly db: Kysely<Database>) {}

  async find(id: string): Promise<WrappedKey | undefined> {
    const row = await this.db.selectFrom('wrapped_keys').selectAll().where('id', '=', id).executeTakeFirst();
    return row === undefined ? undefined : wrappedKeyOf(row);
  }

  async insertIfAbsent(key: WrappedKey): Promise<void> {
    await this.db
      .insertInto('wrapped_keys')
      .values({ id: key.id, purpose: key.purpose, environment_key: key.environmentKey, wrapped: key.wrapped, master_key_id: key.masterKeyId, created_at: key.createdAt })
      .onConflict((oc) => oc.column('id').doNothing())
      .execute();
  }

  async dataKeyIds(environmentKey: string): Promise<string[]> {
    const rows = await this.db.selectFrom('wrapped_keys').select('id').where('purpose', '=', 'data').where('environment_key', '=', environmentKey).execute();
    return rows.map((row) => row.id);
  }

  async anyWrappedByOther(masterKeyIds: string[]): Promise<boolean> {
    const foreign = await this.db.selectFrom('wrapped_keys').select('id').where('master_key_id', 'not in', masterKeyIds).limit(1).executeTakeFirst();
    return foreign !== undefined;
  }

  async notWrappedBy(masterKeyId: string): Promise<WrappedKey[]> {
    const rows = await this.db.selectFrom('wrapped_keys').selectAll().where('master_key_id', '!=', masterKeyId).execute();
    return rows.map(wrappedKeyOf);
  }

  async countWrappedBy(masterKeyId: string): Promise<number> {
    const row = await this.db.selectFrom('wrapped_keys').select((eb) => eb.fn.countAll<number>().as('count')).where('master_key_id', '=', masterKeyId).executeTakeFirstOrThrow();
    return Number(row.count);
  }

  async rewrap(id: string, fromMasterKeyId: string, to: { wrapped: string; masterKeyId: string }): Promise<boolean> {
    const result = await this.db
      .updateTable('wrapped_keys')
      .set({ wrapped: to.wrapped, master_key_id: to.masterKeyId })
      .where('id', '=', id)
      .where('master_key_id', '=', fromMasterKeyId)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
