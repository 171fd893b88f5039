import type { SealedBlob, SealedField, SealedRecordKind } from '../../domain/sealed-fields.js';

/**
 * The two primitives key rotation needs, for every sealed column of every table: find blobs
 * still on another key, and replace one only if it is still the blob that was read (so a redact
 * or update racing the rotation wins).
 */
export interface SealedBlobsRepository {
  /** Up to `limit` blobs of the environment in the sealed `field` of `kind` records not sealed by `keyId`. */
  notOnKey<K extends SealedRecordKind>(kind: K, field: SealedField<K>, environmentKey: string, keyId: string, limit: number): Promise<SealedBlob[]>;
  /** Replaces one blob if it is still `from`; false when the row changed meanwhile. */
  replace<K extends SealedRecordKind>(kind: K, field: SealedField<K>, environmentKey: string, token: string, from: string, to: string): Promise<boolean>;
}
