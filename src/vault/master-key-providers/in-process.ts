import { createHash } from 'node:crypto';
import { open, seal } from '../cipher.js';
import type { MasterKeyProvider, MasterKeyProviderKind } from './provider.js';

/** A short public identifier of a master key held in this process (16 hex of a labelled SHA-256). */
export function masterKeyId(masterKey: Buffer): string {
  return createHash('sha256').update('coffer master key id\0').update(masterKey).digest('hex').slice(0, 16);
}

/**
 * A master key whose bytes this process holds (`file`, `env`, and an unsealed `shares` key):
 * AES-256-GCM in-process, as Coffer always did.
 */
export class InProcessMasterKey implements MasterKeyProvider {
  readonly id: string;
  private readonly key: Buffer;

  constructor(
    readonly kind: MasterKeyProviderKind,
    key: Buffer,
  ) {
    if (key.length !== 32) throw new Error('a master key is 32 bytes');
    // A copy: the caller may zero its buffer, and close() zeroes this one.
    this.key = Buffer.from(key);
    this.id = masterKeyId(this.key);
  }

  async wrap(key: Buffer, associatedData: string): Promise<string> {
    return seal(this.key, this.id, key, associatedData);
  }

  async unwrap(wrapped: string, associatedData: string): Promise<Buffer> {
    return open(this.key, wrapped, associatedData);
  }

  close(): Promise<void> {
    this.key.fill(0);
    return Promise.resolve();
  }
}
