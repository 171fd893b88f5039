import type { AuditSigningKey, ChainCheckpoint, ChainEntry, ChainHead, ChainLink } from '../../domain/audit-chain.js';

/** The hash chain over `audit_events` and `card_access_records` (docs/audit.md). */
export interface AuditChainRepository {
  /**
   * The chain head, locked until the surrounding transaction ends: appenders on every node take
   * it in turn (PostgreSQL: `FOR UPDATE` on its single row; SQLite: write transactions already run one at a time).
   */
  lockHead(): Promise<ChainHead>;
  /** The head as it stands, without a lock. */
  head(): Promise<ChainHead>;
  setHead(head: ChainHead, at: string): Promise<void>;
  /** Up to `limit` entries not linked yet, oldest first. */
  unchained(limit: number): Promise<ChainEntry[]>;
  /** Writes the links (in the unit of work that holds the head). */
  link(links: readonly ChainLink[]): Promise<void>;
  /** Up to `limit` linked entries after `position`, in chain order. */
  chainedAfter(position: number, limit: number): Promise<ChainEntry[]>;
  /** The linked entry whose hash this is, if any (to tell a reorder from a removal). */
  findByHash(hash: string): Promise<ChainEntry | undefined>;
  /** The highest position among entries recorded before `before` (ISO time); 0 when none. */
  lastPositionBefore(before: string): Promise<number>;
  /** Deletes the linked entries at or before `position`; how many. */
  pruneThrough(position: number): Promise<number>;
  insertCheckpoint(checkpoint: ChainCheckpoint): Promise<void>;
  /** Every checkpoint, by position. */
  checkpoints(): Promise<ChainCheckpoint[]>;
  latestCheckpoint(): Promise<ChainCheckpoint | undefined>;
  signingKeys(): Promise<AuditSigningKey[]>;
  insertSigningKeyIfAbsent(key: AuditSigningKey): Promise<void>;
}
