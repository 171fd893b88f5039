import type { Kysely } from 'kysely';
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

/** One sealed blob of a row. */
export interface SealedBlob {
  token: string;
  blob: string;
}

/**
 * The two primitives key rotation needs, for every sealed column of every table: find blobs
 * still on another key, and replace one only if it is still the blob that was read (so a redact
 * or update racing the rotation wins).
 */
export class SealedBlobsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /** Up to `limit` blobs of the environment in `column` not sealed by `keyId`. */
  notOnKey<T extends SealedTable>(table: T, column: SealedColumn<T>, environmentKey: string, keyId: string, limit: number): Promise<SealedBlob[]> {
    // Kysely cannot narrow a generic table and column; every sealed table has token and environment_key.
    const col = column as 'sealed_credentials';
    return this.db
      .selectFrom(table as 'gateways')
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
  async replace<T extends SealedTable>(table: T, column: SealedColumn<T>, environmentKey: string, token: string, from: string, to: string): Promise<boolean> {
    const col = column as 'sealed_credentials';
    const result = await this.db
      .updateTable(table as 'gateways')
      .set({ [col]: to })
      .where('environment_key', '=', environmentKey)
      .where('token', '=', token)
      .where(col, '=', from)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
