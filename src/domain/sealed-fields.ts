/**
 * Every field sealed with an environment's data key, by the kind of record that has it and the
 * field's own name: the name its associated data binds the blob to (src/vault/README.md).
 */
export const SEALED_FIELDS = {
  payment_method: ['number', 'cvv', 'routing_number', 'account_number'],
  gateway: ['credentials'],
  receiver: ['credentials', 'protocol'],
  certificate: ['private_key'],
} as const;

export type SealedRecordKind = keyof typeof SEALED_FIELDS;
export type SealedField<K extends SealedRecordKind> = (typeof SEALED_FIELDS)[K][number];

/** One sealed blob of a record. */
export interface SealedBlob {
  token: string;
  blob: string;
}
