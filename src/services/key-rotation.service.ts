import type { StoreHandle } from '../store/database.js';
import { repositories, type Repositories } from '../store/repositories.js';
import { SEALED_PAYMENT_METHOD_COLUMNS, type SealedPaymentMethodColumn } from '../store/repositories/payment-methods.repo.js';
import type { Keyring } from '../vault/keyring.js';
import { credentialsAad } from './gateway.service.js';
import { receiverAad } from './receiver.service.js';
import { certificatePrivateKeyAad } from './certificate.service.js';
import { SEALED_RECEIVER_COLUMNS } from '../store/repositories/receivers.repo.js';
import { paymentMethodAad } from './payment-method-sealer.js';

export interface DataRotationResult {
  environmentKey: string;
  keyId: string;
  reencrypted: number;
}

const FIELD_OF: Record<SealedPaymentMethodColumn, Parameters<typeof paymentMethodAad>[1]> = {
  sealed_number: 'number',
  sealed_cvv: 'cvv',
  sealed_routing_number: 'routing_number',
  sealed_account_number: 'account_number',
};

/**
 * Key rotation without downtime (invariants in src/vault/README.md). Every blob keeps naming the
 * key that sealed it, so old blobs stay readable while rotation is under way, and each rewrite
 * is conditional on the blob it read, so a redact or update racing the rotation always wins.
 */
export class KeyRotationService {
  private readonly repos: Repositories;

  constructor(
    store: StoreHandle,
    private readonly keyring: Keyring,
  ) {
    this.repos = repositories(store.db, store.dialect);
  }

  /** Re-wraps every wrapped key under the primary master key; returns how many moved. */
  rotateMaster(): Promise<number> {
    return this.keyring.rewrapWithPrimary();
  }

  /** Makes a new data key current for the environment and re-encrypts its blobs onto it. */
  async rotateData(environmentKey: string, batchSize: number): Promise<DataRotationResult> {
    const keyId = await this.keyring.rotateDataKey(environmentKey);
    return { environmentKey, keyId, reencrypted: await this.reencrypt(environmentKey, batchSize) };
  }

  /** Re-encrypts every blob of the environment not sealed by its current data key; safe to repeat. */
  async reencrypt(environmentKey: string, batchSize: number): Promise<number> {
    const keyId = await this.keyring.currentDataKeyId(environmentKey);
    const { paymentMethods, gateways, certificates, receivers } = this.repos;
    let moved = 0;
    for (const column of SEALED_PAYMENT_METHOD_COLUMNS) {
      moved += await this.rewrap(environmentKey, batchSize, {
        fetch: async () => (await paymentMethods.sealedWithOtherKey(environmentKey, column, keyId, batchSize)).map((row) => ({ token: row.token, blob: row[column] as string })),
        aad: (token) => paymentMethodAad(token, FIELD_OF[column]),
        replace: (token, from, to) => paymentMethods.replaceSealed(environmentKey, token, column, from, to),
      });
    }
    moved += await this.rewrap(environmentKey, batchSize, {
      fetch: async () => (await gateways.sealedWithOtherKey(environmentKey, keyId, batchSize)).map((row) => ({ token: row.token, blob: row.sealed_credentials as string })),
      aad: credentialsAad,
      replace: (token, from, to) => gateways.replaceSealed(environmentKey, token, from, to),
    });
    moved += await this.rewrap(environmentKey, batchSize, {
      fetch: async () => (await certificates.sealedWithOtherKey(environmentKey, keyId, batchSize)).map((row) => ({ token: row.token, blob: row.sealed_private_key })),
      aad: certificatePrivateKeyAad,
      replace: (token, from, to) => certificates.replaceSealed(environmentKey, token, from, to),
    });
    for (const column of SEALED_RECEIVER_COLUMNS) {
      const field = column === 'sealed_credentials' ? 'credentials' : 'protocol';
      moved += await this.rewrap(environmentKey, batchSize, {
        fetch: async () => (await receivers.sealedWithOtherKey(environmentKey, column, keyId, batchSize)).map((row) => ({ token: row.token, blob: row.blob as string })),
        aad: (token) => receiverAad(token, field),
        replace: (token, from, to) => receivers.replaceSealed(environmentKey, token, column, from, to),
      });
    }
    return moved;
  }

  /**
   * Re-seals one kind of blob in batches until none is left on an old key. Each rewrite is
   * conditional on the blob read, so a concurrent redact or update wins; returns how many moved.
   */
  private async rewrap(environmentKey: string, batchSize: number, blobs: SealedBlobs): Promise<number> {
    let moved = 0;
    for (;;) {
      const rows = await blobs.fetch();
      for (const { token, blob } of rows) {
        const aad = blobs.aad(token);
        const fresh = await this.keyring.sealFor(environmentKey, await this.keyring.openFor(environmentKey, blob, aad), aad);
        if (await blobs.replace(token, blob, fresh)) moved += 1;
      }
      if (rows.length < batchSize) return moved;
    }
  }
}

/** One kind of sealed blob: a batch still on an old key, its associated data, a conditional rewrite. */
interface SealedBlobs {
  fetch(): Promise<Array<{ token: string; blob: string }>>;
  aad(token: string): string;
  replace(token: string, from: string, to: string): Promise<boolean>;
}
