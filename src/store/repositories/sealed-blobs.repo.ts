import type { SealedBlobsRepository } from '../interfaces/sealed-blobs.js';
import type { Kysely } from 'kysely';
import type { SealedBlob, SealedField, SealedRecordKind } from '../../domain/sealed-fields.js';
import type { Database } from '../schema.js';

/** Every column that holds a blob sealed with an environment's data key, by table. */
export const SEALED_COLUMNS = {
  payment_methods: ['sealed_number', 'sealed_cvv', 'sealed_routing_number', 'sealed_account_number'],
  gateways: ['sealed_credentials'],
  receivers: ['sealed_credentials', 'sealed_protocol'],
  certificates: ['sealed_private_key'],
} as const;

export type SealedTable = keyof typeof SEALED_COLUMNS;
export type SealedColumn<T extends SealedTable> = (typeof SEALED_COLUMNS)[T][number];

/** The table of each kind of record with sealed fields; a field `f` is kept in column `sealed_f`. */
const TABLE_OF = { payment_method: 'payment_methods', gateway: 'gateways', receiver: 'receivers', certificate: 'certificates' } as const satisfies Record<SealedRecordKind, SealedTable>;

function columnOf<K extends SealedRecordKind>(kind: K, field: SealedField<K>): SealedColumn<(typeof TABLE_OF)[K]> {
  return `sealed_${field}` as SealedColumn<(typeof TABLE_OF)[K]>;
}

/**
 * The two primitives key rotation needs, for every sealed column of every table: find blobs
 * still on another key, and replace one only if it is still the blob that was read (so a redact
 * or update racing the rotation wins).
 */
export class SealedBlobsRepo implements SealedBlobsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Up to `limit` blobs of the environment in the sealed `field` of `kind` records not sealed by `keyId`. */
  notOnKey<K extends SealedRecordKind>(kind: K, field: SealedField<K>, environmentKey: string, keyId: string, limit: number): Promise<SealedBlob[]> {
    // Kysely cannot narrow a generic table and column; every sealed table has token and environment_key.
    const col = columnOf(kind, field) as 'sealed_credentials';
    return this.db
      .selectFrom(TABLE_OF[kind] as 'gateways')
      .select(['token', `${col} as blob`])
      .where('environment_key', '=', environmentKey)
      .where(col, 'is not', null)
      // '' is an erased blob (a redacted certificate's private key): nothing to re-seal.
      .where(col, '<>', '')
      .where(col, 'not like', `c1.${keyId}.%`)
      .limit(limit)
      .execute() as Promise<SealedBlob[]>;
  }

  /** Replaces one blob if it is still `from`; false when the row changed meanwhile. */
  async replace<K extends SealedRecordKind>(kind: K, field: SealedField<K>, environmentKey: string, token: string, from: string, to: string): Promise<boolean> {
    const col = columnOf(kind, field) as 'sealed_credentials';
    const result = await this.db
      .updateTable(TABLE_OF[kind] as 'gateways')
      .set({ [col]: to })
      .where('environment_key', '=', environmentKey)
      .where('token', '=', token)
      .where(col, '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
