import { randomUUID } from 'node:crypto';
import type { Clock } from '../domain/clock.js';
import type { MasterKeyRotation, MasterKeyRotationKind } from '../store/interfaces/master-key-rotations.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import { SEALED_FIELDS, type SealedField, type SealedRecordKind } from '../domain/sealed-fields.js';
import type { Keyring } from '../vault/keyring.js';
import type { MasterKeyProvider } from '../vault/master-key-providers/provider.js';
import { credentialsAad } from './gateway.service.js';
import { receiverAad } from './receiver.service.js';
import { certificatePrivateKeyAad } from './certificate.service.js';
import { paymentMethodAad } from './payment-method-sealer.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'sealedBlobs' | 'masterKeyRotations';

export interface DataRotationResult {
  environmentKey: string;
  keyId: string;
  reencrypted: number;
}

/**
 * Key rotation without downtime (invariants in src/vault/README.md). Every blob keeps naming the
 * key that sealed it, so old blobs stay readable while rotation is under way, and each rewrite
 * is conditional on the blob it read, so a redact or update racing the rotation always wins.
 */
export class KeyRotationService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    store: StoreAccess<Uses>,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
  ) {
    this.repos = store.repos;
  }

  /** Re-wraps every wrapped key under the primary master key; returns how many moved. */
  async rotateMaster(): Promise<number> {
    return (await this.recorded('rotate', this.keyring.primaryProvider)).rewrapped;
  }

  /**
   * Moves every wrapped key onto `target` (`coffer master-key rotate --to`, docs/key-custody.md):
   * data keys are re-wrapped, no card is re-encrypted. Online and resumable (see
   * `Keyring.rewrapTo`); `remaining` counts keys still on another master key afterwards (made
   * meanwhile by nodes on the old provider: run it again once they moved).
   */
  moveMasterKey(target: MasterKeyProvider): Promise<{ rewrapped: number; remaining: number }> {
    return this.recorded('move', target);
  }

  /** The latest runs of either, newest first (the compliance report, `coffer master-key history`). */
  history(limit = 20): Promise<MasterKeyRotation[]> {
    return this.repos.masterKeyRotations.latest(limit);
  }

  /**
   * Runs one re-wrap onto `target` and records it, completed or interrupted (docs/key-custody.md,
   * "Rotation record"): an interrupted run is recorded with what it moved before it stopped, and
   * its error is thrown on.
   */
  private async recorded(kind: MasterKeyRotationKind, target: MasterKeyProvider): Promise<{ rewrapped: number; remaining: number }> {
    const startedAt = this.clock.now().toISOString();
    const fromMasterKeyIds = await this.keyring.mastersOtherThan(target);
    const before = await this.keyring.countWrappedBy(target);
    const record = async (outcome: MasterKeyRotation['outcome'], rewrapped: number, problem: string | null) => {
      const remaining = await this.keyring.countNotWrappedBy(target);
      await this.repos.masterKeyRotations.insert({ id: randomUUID(), kind, toProvider: target.kind, toMasterKeyId: target.id, fromMasterKeyIds, rewrapped, remaining, outcome, problem, startedAt, finishedAt: this.clock.now().toISOString() });
      return remaining;
    };
    let rewrapped: number;
    try {
      rewrapped = await this.keyring.rewrapTo(target);
    } catch (error) {
      const moved = Math.max(0, (await this.keyring.countWrappedBy(target)) - before);
      await record('interrupted', moved, (error instanceof Error ? error.message : String(error)).slice(0, 200));
      throw error;
    }
    return { rewrapped, remaining: await record('completed', rewrapped, null) };
  }

  /** Makes a new data key current for the environment and re-encrypts its blobs onto it. */
  async rotateData(environmentKey: string, batchSize: number): Promise<DataRotationResult> {
    const keyId = await this.keyring.rotateDataKey(environmentKey);
    return { environmentKey, keyId, reencrypted: await this.reencrypt(environmentKey, batchSize) };
  }

  /** Re-encrypts every blob of the environment not sealed by its current data key; safe to repeat. */
  async reencrypt(environmentKey: string, batchSize: number): Promise<number> {
    const keyId = await this.keyring.currentDataKeyId(environmentKey);
    let moved = 0;
    for (const kind of Object.keys(SEALED_FIELDS) as SealedRecordKind[]) {
      for (const field of SEALED_FIELDS[kind]) moved += await this.rewrap(environmentKey, keyId, batchSize, kind, field);
    }
    return moved;
  }

  /**
   * Re-seals one field's blobs in batches until none is left on an old key. Each rewrite is
   * conditional on the blob read, so a concurrent redact or update wins; returns how many moved.
   */
  private async rewrap<K extends SealedRecordKind>(environmentKey: string, keyId: string, batchSize: number, kind: K, field: SealedField<K>): Promise<number> {
    const aadOf = AAD_OF[kind] as (token: string, field: SealedField<K>) => string;
    let moved = 0;
    for (;;) {
      const blobs = await this.repos.sealedBlobs.notOnKey(kind, field, environmentKey, keyId, batchSize);
      for (const { token, blob } of blobs) {
        const aad = aadOf(token, field);
        const fresh = await this.keyring.sealFor(environmentKey, await this.keyring.openFor(environmentKey, blob, aad), aad);
        if (await this.repos.sealedBlobs.replace(kind, field, environmentKey, token, blob, fresh)) moved += 1;
      }
      if (blobs.length < batchSize) return moved;
    }
  }
}

/** The associated data each sealed field was sealed with (it binds a blob to its record and field). */
const AAD_OF: { [K in SealedRecordKind]: (token: string, field: SealedField<K>) => string } = {
  payment_method: (token, field) => paymentMethodAad(token, field),
  gateway: (token) => credentialsAad(token),
  receiver: (token, field) => receiverAad(token, field),
  certificate: (token) => certificatePrivateKeyAad(token),
};
