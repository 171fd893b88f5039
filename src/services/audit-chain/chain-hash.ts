import { createHash } from 'node:crypto';
import type { ChainCheckpoint, ChainContent, ChainEntryKind } from '../../domain/audit-chain.js';

/** The "previous hash" of the chain's first entry (docs/audit.md, "Chain format"). */
export const GENESIS_HASH = '0'.repeat(64);

/** JSON of a flat record with its keys sorted: the same bytes whatever order the columns came in. */
export function canonicalJson(content: ChainContent): string {
  return JSON.stringify(Object.fromEntries(Object.keys(content).sort().map((key) => [key, content[key] ?? null])));
}

/**
 * An entry's hash: SHA-256 (hex) of `coffer-audit-chain-v1`, the previous entry's hash, the
 * entry's kind and its recorded fields as canonical JSON, each on a line. The position is not
 * hashed: the order is what the links prove.
 */
export function chainHash(prevHash: string, entry: { kind: ChainEntryKind; content: ChainContent }): string {
  return createHash('sha256').update(`coffer-audit-chain-v1\n${prevHash}\n${entry.kind}\n${canonicalJson(entry.content)}`, 'utf8').digest('hex');
}

/** What a checkpoint's signature covers. */
export function checkpointMessage(checkpoint: Pick<ChainCheckpoint, 'position' | 'hash' | 'signedAt' | 'anchor'>): string {
  return `coffer-audit-checkpoint-v1\n${checkpoint.position}\n${checkpoint.hash}\n${checkpoint.signedAt}\n${checkpoint.anchor ? 'anchor' : 'head'}`;
}
