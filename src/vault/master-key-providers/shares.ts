import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { combine, split } from 'shamir-secret-sharing';
import type { MasterKeyCheck, MasterKeyChecksRepository } from '../../store/interfaces/master-key-checks.js';
import { InProcessMasterKey } from './in-process.js';
import { VaultSealedError, type MasterKeyProvider } from './provider.js';

/** Why a submitted share was refused; the message never repeats the share. */
export type UnsealRefusal = 'not_initialised' | 'malformed_share' | 'unknown_share' | 'duplicate_share' | 'check_failed';

export class UnsealError extends Error {
  constructor(
    readonly refusal: UnsealRefusal,
    message: string,
  ) {
    super(message);
    this.name = 'UnsealError';
  }
}

/** Where unsealing stands: public, printed by `coffer unseal` and /readyz. */
export interface SealStatus {
  sealed: boolean;
  /** False until `coffer init --key-shares` split a master key for this database. */
  initialised: boolean;
  /** Distinct valid shares submitted so far (0 once unsealed). */
  submitted: number;
  threshold: number;
  shares: number;
}

const CHECK_LABEL = 'coffer master key check value';
/** A 32-byte key's share: the key's length plus one byte (its x coordinate). */
const SHARE_BYTES = 33;
const SHARE_HEX = /^[0-9a-f]{66}$/;

function checkValueOf(key: Buffer): string {
  return createHmac('sha256', key).update(CHECK_LABEL).digest('hex');
}

function digestOf(share: Buffer): string {
  return createHash('sha256').update(share).digest('hex');
}

/**
 * Split knowledge and dual control (PCI DSS 3.7.6): the master key exists only as N custodian
 * shares (Shamir's scheme, `shamir-secret-sharing`), M of which rebuild it in this node's memory.
 * Until then the node is sealed: wrap and unwrap throw `VaultSealedError` (503 errors.vault_sealed).
 * Each node unseals on its own; shares are checked against the stored digests and key-check value,
 * never logged, and zeroed once used.
 */
export class SharesMasterKey implements MasterKeyProvider {
  readonly kind = 'shares' as const;
  private check: MasterKeyCheck | undefined;
  private key: InProcessMasterKey | null = null;
  private submitted: Buffer[] = [];
  private readonly unsealedListeners: Array<() => void> = [];

  private constructor(
    private readonly checks: MasterKeyChecksRepository,
    private readonly now: () => Date,
  ) {}

  /** The provider of the database's newest split key, sealed. */
  static async open(checks: MasterKeyChecksRepository, now: () => Date = () => new Date()): Promise<SharesMasterKey> {
    const provider = new SharesMasterKey(checks, now);
    provider.check = await checks.newest();
    return provider;
  }

  get id(): string {
    return this.check?.masterKeyId ?? 'shares-uninitialised';
  }

  sealed(): boolean {
    return this.key === null;
  }

  /** Calls `listener` once the node is unsealed (at once when it is already). */
  whenUnsealed(listener: () => void): void {
    if (this.key !== null) listener();
    else this.unsealedListeners.push(listener);
  }

  status(): SealStatus {
    return {
      sealed: this.key === null,
      initialised: this.check !== undefined,
      submitted: this.submitted.length,
      threshold: this.check?.threshold ?? 0,
      shares: this.check?.shares ?? 0,
    };
  }

  /**
   * Makes a new master key, splits it into `shares` shares of which `threshold` unseal, records
   * its check value, and holds it (this node is unsealed). The shares are returned once, in hex,
   * for the caller to hand to the custodians; nothing keeps them.
   */
  async initialise(shares: number, threshold: number): Promise<string[]> {
    if (!Number.isInteger(threshold) || threshold < 2 || !Number.isInteger(shares) || shares < threshold || shares > 255) {
      throw new Error('key shares: the threshold must be at least 2 and at most the number of shares (at most 255)');
    }
    const key = randomBytes(32);
    // The library takes plain Uint8Arrays (not Buffers): a copy, zeroed below with the rest.
    const secret = new Uint8Array(key);
    try {
      const raw = await split(secret, shares, threshold);
      const parts = raw.map((part) => Buffer.from(part));
      for (const part of raw) part.fill(0);
      const provider = new InProcessMasterKey('shares', key);
      const check: MasterKeyCheck = {
        masterKeyId: provider.id,
        provider: 'shares',
        checkValue: checkValueOf(key),
        shareDigests: parts.map(digestOf),
        threshold,
        shares,
        createdAt: this.now().toISOString(),
      };
      await this.checks.insert(check);
      this.check = check;
      this.key = provider;
      for (const listener of this.unsealedListeners.splice(0)) listener();
      const printed = parts.map((part) => part.toString('hex'));
      for (const part of parts) part.fill(0);
      return printed;
    } finally {
      key.fill(0);
      secret.fill(0);
    }
  }

  /** Takes one custodian's share (hex); unseals once `threshold` distinct valid shares are in. */
  async submit(shareHex: string): Promise<SealStatus> {
    if (this.key !== null) return this.status();
    // A node started before `coffer init --key-shares` finished learns of the key now.
    this.check ??= await this.checks.newest();
    const check = this.check;
    if (check === undefined) throw new UnsealError('not_initialised', 'no master key was split into shares for this database; run coffer init --key-shares N --threshold M');
    const text = shareHex.trim().toLowerCase();
    if (!SHARE_HEX.test(text)) throw new UnsealError('malformed_share', `a share is ${SHARE_BYTES * 2} hexadecimal characters`);
    const share = Buffer.from(text, 'hex');
    const digest = Buffer.from(digestOf(share), 'hex');
    if (!check.shareDigests.some((known) => timingSafeEqual(Buffer.from(known, 'hex'), digest))) {
      share.fill(0);
      throw new UnsealError('unknown_share', 'this share does not belong to the master key of this database');
    }
    if (this.submitted.some((other) => other.equals(share))) {
      share.fill(0);
      throw new UnsealError('duplicate_share', 'this share was submitted already; the next custodian must submit theirs');
    }
    this.submitted.push(share);
    if (this.submitted.length >= check.threshold) await this.combineSubmitted(check);
    return this.status();
  }

  /** Forgets the shares submitted so far (an operator starting over). */
  reset(): SealStatus {
    this.dropSubmitted();
    return this.status();
  }

  wrap(key: Buffer, associatedData: string): Promise<string> {
    if (this.key === null) return Promise.reject(new VaultSealedError());
    return this.key.wrap(key, associatedData);
  }

  unwrap(wrapped: string, associatedData: string): Promise<Buffer> {
    if (this.key === null) return Promise.reject(new VaultSealedError());
    return this.key.unwrap(wrapped, associatedData);
  }

  async close(): Promise<void> {
    this.dropSubmitted();
    await this.key?.close();
    this.key = null;
  }

  private async combineSubmitted(check: MasterKeyCheck): Promise<void> {
    const copies = this.submitted.map((share) => new Uint8Array(share));
    this.dropSubmitted();
    const rebuilt = await combine(copies);
    for (const copy of copies) copy.fill(0);
    const combined = Buffer.from(rebuilt);
    rebuilt.fill(0);
    try {
      const expected = Buffer.from(check.checkValue, 'hex');
      if (combined.length !== 32 || !timingSafeEqual(Buffer.from(checkValueOf(combined), 'hex'), expected)) {
        throw new UnsealError('check_failed', 'the shares do not rebuild the master key (key-check value differs); submit them again');
      }
      this.key = new InProcessMasterKey('shares', combined);
      for (const listener of this.unsealedListeners.splice(0)) listener();
    } finally {
      combined.fill(0);
    }
  }

  private dropSubmitted(): void {
    for (const share of this.submitted) share.fill(0);
    this.submitted = [];
  }
}
