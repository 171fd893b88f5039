import type { AuditSigningKey, ChainCheckpoint, ChainEntry, ChainHead } from '../../domain/audit-chain.js';
import type { AuditChainRepository } from '../../store/interfaces/audit-chain.js';
import { AuditSigner } from '../../vault/audit-signing-key.js';
import { chainHash, checkpointMessage, GENESIS_HASH } from './chain-hash.js';

/** What went wrong first (docs/audit.md, "Verify"). */
export type ChainProblemKind = 'altered' | 'removed' | 'reordered' | 'checkpoint_invalid' | 'signing_key_invalid';

export interface ChainProblem {
  kind: ChainProblemKind;
  /** The chain position of the entry at fault (for a removal: the position that is missing). */
  position: number;
  /** The entry found there, when there is one: its table and row. */
  entry: { kind: ChainEntry['kind']; seq: number } | null;
  message: string;
}

/** What `coffer audit verify` prints. */
export interface ChainVerification {
  ok: boolean;
  /** Where the walk started: the genesis (0) or the anchor retention left. */
  anchorPosition: number;
  /** Entries whose hash and link were checked. */
  entriesChecked: number;
  /** The last entry verified before any problem (0: none). */
  verifiedThrough: number;
  verifiedThroughHash: string;
  head: ChainHead;
  checkpoints: number;
  lastCheckpoint: { position: number; signedAt: string } | null;
  problem: ChainProblem | null;
}

const PAGE = 1000;

export interface VerifyOptions {
  /**
   * Start at the latest signed checkpoint rather than the latest anchor: a quick check of what was
   * recorded since (the portal's compliance page). `coffer audit verify` walks everything.
   */
  sinceLatestCheckpoint?: boolean;
  /** Stop after this position (what retention is about to prune): the entries after it are not walked. */
  throughPosition?: number;
}

type Reader = Pick<AuditChainRepository, 'head' | 'chainedAfter' | 'findByHash' | 'checkpoints' | 'signingKeys'>;

/**
 * Walks the chain in order and names the first entry altered, removed or reordered: each entry's
 * hash must be that of its content and the previous hash it carries; that previous hash must be
 * the hash of the entry before it; positions run without gaps up to the head; and every signed
 * checkpoint must hold (a valid signature by a key whose sealed private half opens under this
 * master key, and the hash of the entry at its position).
 */
export async function verifyChain(repo: Reader, signer: Pick<AuditSigner, 'matches'>, options: VerifyOptions = {}): Promise<ChainVerification> {
  const head = await repo.head();
  const checkpoints = await repo.checkpoints();
  const keys = new Map((await repo.signingKeys()).map((key) => [key.id, key]));
  const last = checkpoints.at(-1);
  const result: ChainVerification = {
    ok: true,
    anchorPosition: 0,
    entriesChecked: 0,
    verifiedThrough: 0,
    verifiedThroughHash: GENESIS_HASH,
    head,
    checkpoints: checkpoints.length,
    lastCheckpoint: last === undefined ? null : { position: last.position, signedAt: last.signedAt },
    problem: null,
  };
  const fail = (problem: ChainProblem): ChainVerification => ({ ...result, ok: false, problem });

  const keyProblem = await checkKeys(keys, signer);
  if (keyProblem !== null) return fail(keyProblem);
  for (const checkpoint of checkpoints) {
    const key = keys.get(checkpoint.keyId);
    if (key === undefined || !AuditSigner.verify(key, checkpointMessage(checkpoint), checkpoint.signature)) {
      return fail({ kind: 'checkpoint_invalid', position: checkpoint.position, entry: null, message: `the checkpoint at position ${checkpoint.position} is not validly signed` });
    }
  }
  // From the latest signed checkpoint (its signature checked above) when asked: what came before it was verified when it was signed.
  const anchor = options.sinceLatestCheckpoint === true ? checkpoints.at(-1) : checkpoints.filter((checkpoint) => checkpoint.anchor).at(-1);
  const byPosition = new Map<number, ChainCheckpoint>(checkpoints.map((checkpoint) => [checkpoint.position, checkpoint]));
  let expected = (anchor?.position ?? 0) + 1;
  let previous = anchor?.hash ?? GENESIS_HASH;
  result.anchorPosition = anchor?.position ?? 0;
  result.verifiedThrough = result.anchorPosition;
  result.verifiedThroughHash = previous;

  walk: for (;;) {
    const page = await repo.chainedAfter(expected - 1, PAGE);
    for (const entry of page) {
      const position = entry.position as number;
      if (position > head.position) break walk;
      if (options.throughPosition !== undefined && position > options.throughPosition) return result;
      if (position !== expected) return fail(missing(expected, position));
      const own = { kind: entry.kind, seq: entry.seq };
      if (entry.prevHash === null || entry.hash === null || chainHash(entry.prevHash, entry) !== entry.hash) {
        return fail({ kind: 'altered', position, entry: own, message: `entry ${position} (${entry.kind} ${entry.seq}) was altered: its hash does not match its content` });
      }
      if (entry.prevHash !== previous) return fail(await brokenLink(repo, entry, previous));
      const checkpoint = byPosition.get(position);
      if (checkpoint !== undefined && checkpoint.hash !== entry.hash) {
        return fail({ kind: 'altered', position, entry: own, message: `entry ${position} (${entry.kind} ${entry.seq}) does not match the checkpoint signed at ${checkpoint.signedAt}: it or an entry before it was altered and the chain rewritten` });
      }
      previous = entry.hash;
      expected += 1;
      result.entriesChecked += 1;
      result.verifiedThrough = position;
      result.verifiedThroughHash = entry.hash;
    }
    if (page.length < PAGE) break;
  }
  if (expected <= head.position) return fail(missing(expected, null));
  if (head.position === result.verifiedThrough && head.hash !== previous && head.position > result.anchorPosition) {
    return fail({ kind: 'altered', position: head.position, entry: null, message: `the chain head does not match entry ${head.position}` });
  }
  const beyond = checkpoints.find((checkpoint) => checkpoint.position > result.verifiedThrough);
  if (beyond !== undefined) return fail(missing(result.verifiedThrough + 1, null, beyond));
  return result;
}

async function checkKeys(keys: Map<string, AuditSigningKey>, signer: Pick<AuditSigner, 'matches'>): Promise<ChainProblem | null> {
  for (const key of keys.values()) {
    if (!(await signer.matches(key))) {
      return { kind: 'signing_key_invalid', position: 0, entry: null, message: `the signing key ${key.id} does not open under this master key or its public key was replaced` };
    }
  }
  return null;
}

function missing(position: number, found: number | null, checkpoint?: ChainCheckpoint): ChainProblem {
  const after = found === null ? (checkpoint === undefined ? 'the chain ends before its head' : `the checkpoint signed at ${checkpoint.signedAt} covers position ${checkpoint.position}`) : `the next entry is ${found}`;
  return { kind: 'removed', position, entry: null, message: `entry ${position} was removed: ${after}` };
}

/** The entry links to something other than its predecessor: moved (its predecessor is elsewhere) or what came before it is gone. */
async function brokenLink(repo: Reader, entry: ChainEntry, expected: string): Promise<ChainProblem> {
  const position = entry.position as number;
  const own = { kind: entry.kind, seq: entry.seq };
  const predecessor = entry.prevHash === null ? undefined : await repo.findByHash(entry.prevHash);
  if (predecessor !== undefined) {
    return { kind: 'reordered', position, entry: own, message: `entry ${position} (${entry.kind} ${entry.seq}) was reordered: it belongs after entry ${predecessor.position}` };
  }
  return {
    kind: 'removed',
    position,
    entry: own,
    message: `the entry before entry ${position} (${entry.kind} ${entry.seq}) was removed: it links to a hash no entry has (expected ${expected.slice(0, 12)}…)`,
  };
}
