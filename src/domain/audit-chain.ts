/**
 * The hash chain over the audit trail (docs/audit.md, "Chain format"): audit events and card access
 * records, one sequence per database. Each entry carries the hash of the one before it.
 */
export type ChainEntryKind = 'audit_event' | 'card_access';

/** The values hashed: an entry's recorded fields by their stored names (text, numbers, null). */
export type ChainContent = Record<string, string | number | null>;

/** One audited row as the chain sees it. */
export interface ChainEntry {
  kind: ChainEntryKind;
  /** The row's own sequence in its table (not hashed: a restore may renumber it). */
  seq: number;
  content: ChainContent;
  /** Null until the chainer links the entry. */
  position: number | null;
  prevHash: string | null;
  hash: string | null;
}

/** A link written by the chainer. */
export interface ChainLink {
  kind: ChainEntryKind;
  seq: number;
  position: number;
  prevHash: string;
  hash: string;
}

/** The last linked entry: where the next append continues. */
export interface ChainHead {
  position: number;
  hash: string;
}

/** A signed head (an anchor: the chain restarts after it once retention pruned what came before). */
export interface ChainCheckpoint {
  position: number;
  hash: string;
  signedAt: string;
  keyId: string;
  /** Ed25519 signature, base64. */
  signature: string;
  anchor: boolean;
}

/** A signing key pair: the public key in SPKI DER (base64), the private key sealed under the master key. */
export interface AuditSigningKey {
  id: string;
  publicKey: string;
  sealedPrivateKey: string;
  createdAt: string;
}
