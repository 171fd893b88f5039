import type { Clock } from '../../domain/clock.js';
import type { ChainCheckpoint, ChainLink } from '../../domain/audit-chain.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { AuditSigner } from '../../vault/audit-signing-key.js';
import { chainHash, checkpointMessage } from './chain-hash.js';
import { verifyChain, type ChainVerification, type VerifyOptions } from './chain-verifier.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'auditChain';

/** How the chain is kept (COFFER_AUDIT_* settings, docs/audit.md). */
export interface AuditChainPolicy {
  /** Entries linked per unit of work. */
  batchSize: number;
  /** Entries recorded this many months ago or earlier may be pruned (PCI DSS 10.5.1: at least 12). */
  retentionMonths: number;
}

export const DEFAULT_AUDIT_CHAIN_POLICY: AuditChainPolicy = { batchSize: 500, retentionMonths: 12 };

/** One exported entry: a JSON line for a SIEM (docs/audit.md, "Export"). */
export type ExportedEntry = Record<string, string | number | null>;

export class ChainBrokenError extends Error {
  constructor(readonly verification: ChainVerification) {
    super(`the audit chain does not verify: ${verification.problem?.message ?? 'unknown problem'}`);
    this.name = 'ChainBrokenError';
  }
}

/**
 * The hash chain over audit events and card access records (docs/audit.md). Recording an entry is
 * one insert in the unit of work of what it records (a purchase pays nothing more); linking it
 * into the chain happens here, soon after, in units of work that each hold the chain head, so
 * appenders on every node take turns and the links form one sequence per database.
 */
export class AuditChainService {
  private readonly store: StoreAccess<Uses>;

  constructor(
    store: StoreAccess<Uses>,
    private readonly signer: AuditSigner,
    private readonly clock: Clock,
    readonly policy: AuditChainPolicy = DEFAULT_AUDIT_CHAIN_POLICY,
  ) {
    this.store = store;
  }

  /** Links every entry recorded so far; how many it linked. */
  async chainPending(): Promise<number> {
    let linked = 0;
    for (;;) {
      const count = await this.store.unitOfWork(async (repos) => {
        const head = await repos.auditChain.lockHead();
        const entries = await repos.auditChain.unchained(this.policy.batchSize);
        if (entries.length === 0) return 0;
        const links: ChainLink[] = [];
        let previous = head.hash;
        let position = head.position;
        for (const entry of entries) {
          position += 1;
          const hash = chainHash(previous, entry);
          links.push({ kind: entry.kind, seq: entry.seq, position, prevHash: previous, hash });
          previous = hash;
        }
        await repos.auditChain.link(links);
        await repos.auditChain.setHead({ position, hash: previous }, this.clock.now().toISOString());
        return links.length;
      });
      linked += count;
      if (count < this.policy.batchSize) return linked;
    }
  }

  /** Signs the head when it moved since the last checkpoint; the checkpoint, or null when nothing moved. */
  async checkpoint(): Promise<ChainCheckpoint | null> {
    await this.chainPending();
    const head = await this.store.repos.auditChain.head();
    const latest = await this.store.repos.auditChain.latestCheckpoint();
    if (head.position === 0 || (latest !== undefined && latest.position >= head.position)) return null;
    return this.sign(head.position, head.hash, false);
  }

  /** Links what is pending, then walks the chain: all of it, or since the latest checkpoint (docs/audit.md, "Verify"). */
  async verify(options: VerifyOptions = {}): Promise<ChainVerification> {
    await this.chainPending();
    return verifyChain(this.store.repos.auditChain, this.signer, options);
  }

  /** Every linked entry after `afterPosition`, in chain order, as JSON-ready objects; read page by page. */
  async *export(afterPosition = 0): AsyncGenerator<ExportedEntry> {
    await this.chainPending();
    let after = afterPosition;
    for (;;) {
      const page = await this.store.repos.auditChain.chainedAfter(after, 1000);
      for (const entry of page) {
        yield { position: entry.position, type: entry.kind, ...entry.content, prev_hash: entry.prevHash, hash: entry.hash };
        after = entry.position as number;
      }
      if (page.length < 1000) return;
    }
  }

  /**
   * Deletes the entries older than the retention, once the chain verifies: a signed anchor
   * checkpoint at the last pruned entry is where verification starts from then on. How many rows
   * went, and the anchor (null when nothing was old enough).
   */
  async prune(): Promise<{ pruned: number; anchor: ChainCheckpoint | null }> {
    const now = this.clock.now();
    const cutoff = new Date(now);
    cutoff.setUTCMonth(cutoff.getUTCMonth() - this.policy.retentionMonths);
    await this.chainPending();
    const through = await this.store.repos.auditChain.lastPositionBefore(cutoff.toISOString());
    const anchored = (await this.store.repos.auditChain.checkpoints()).filter((checkpoint) => checkpoint.anchor).at(-1)?.position ?? 0;
    if (through <= anchored) return { pruned: 0, anchor: null };
    // Only what is about to go is walked: it must verify, up to the last entry pruned.
    const verification = await verifyChain(this.store.repos.auditChain, this.signer, { throughPosition: through });
    if (!verification.ok) throw new ChainBrokenError(verification);
    const [last] = await this.store.repos.auditChain.chainedAfter(through - 1, 1);
    if (last === undefined || last.position !== through || last.hash === null) throw new Error(`audit chain entry ${through} is missing`);
    const anchor = await this.signed(through, last.hash, true);
    const pruned = await this.store.unitOfWork(async (repos) => {
      await repos.auditChain.lockHead();
      await repos.auditChain.insertCheckpoint(anchor);
      return repos.auditChain.pruneThrough(through);
    });
    return { pruned, anchor };
  }

  private async sign(position: number, hash: string, anchor: boolean): Promise<ChainCheckpoint> {
    const checkpoint = await this.signed(position, hash, anchor);
    await this.store.repos.auditChain.insertCheckpoint(checkpoint);
    return checkpoint;
  }

  private async signed(position: number, hash: string, anchor: boolean): Promise<ChainCheckpoint> {
    const signedAt = this.clock.now().toISOString();
    const { keyId, signature } = await this.signer.sign(this.store.repos.auditChain, checkpointMessage({ position, hash, signedAt, anchor }), this.clock.now());
    return { position, hash, signedAt, keyId, signature, anchor };
  }
}
