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
    let moved = 0;
    for (const column of SEALED_PAYMENT_METHOD_COLUMNS) {
      for (;;) {
        const rows = await this.repos.paymentMethods.sealedWithOtherKey(environmentKey, column, keyId, batchSize);
        for (const row of rows) {
          const blob = row[column] as string;
          const aad = paymentMethodAad(row.token, FIELD_OF[column]);
          const fresh = await this.keyring.sealFor(environmentKey, await this.keyring.openFor(environmentKey, blob, aad), aad);
          if (await this.repos.paymentMethods.replaceSealed(environmentKey, row.token, column, blob, fresh)) moved += 1;
        }
        if (rows.length < batchSize) break;
      }
    }
    for (;;) {
      const rows = await this.repos.gateways.sealedWithOtherKey(environmentKey, keyId, batchSize);
      for (const row of rows) {
        const blob = row.sealed_credentials as string;
        const aad = credentialsAad(row.token);
        const fresh = await this.keyring.sealFor(environmentKey, await this.keyring.openFor(environmentKey, blob, aad), aad);
        if (await this.repos.gateways.replaceSealed(environmentKey, row.token, blob, fresh)) moved += 1;
      }
      if (rows.length < batchSize) break;
    }
    for (;;) {
      const rows = await this.repos.certificates.sealedWithOtherKey(environmentKey, keyId, batchSize);
      for (const row of rows) {
        const aad = certificatePrivateKeyAad(row.token);
        const fresh = await this.keyring.sealFor(environmentKey, await this.keyring.openFor(environmentKey, row.sealed_private_key, aad), aad);
        if (await this.repos.certificates.replaceSealed(environmentKey, row.token, row.sealed_private_key, fresh)) moved += 1;
      }
      if (rows.length < batchSize) break;
    }
    for (const column of SEALED_RECEIVER_COLUMNS) {
      const field = column === 'sealed_credentials' ? 'credentials' : 'protocol';
      for (;;) {
        const rows = await this.repos.receivers.sealedWithOtherKey(environmentKey, column, keyId, batchSize);
        for (const row of rows) {
          const blob = row.blob as string;
          const aad = receiverAad(row.token, field);
          const fresh = await this.keyring.sealFor(environmentKey, await this.keyring.openFor(environmentKey, blob, aad), aad);
          if (await this.repos.receivers.replaceSealed(environmentKey, row.token, column, blob, fresh)) moved += 1;
        }
        if (rows.length < batchSize) break;
      }
    }
    return moved;
  }
}
