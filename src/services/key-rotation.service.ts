import type { StoreHandle } from '../store/database.js';
import { repositories, type Repositories } from '../store/repositories.js';
import { SEALED_COLUMNS, type SealedColumn, type SealedTable } from '../store/repositories/sealed-blobs.repo.js';
import type { Keyring } from '../vault/keyring.js';
import { credentialsAad } from './gateway.service.js';
import { receiverAad } from './receiver.service.js';
import { certificatePrivateKeyAad } from './certificate.service.js';
import { paymentMethodAad } from './payment-method-sealer.js';

export interface DataRotationResult {
  environmentKey: string;
  keyId: string;
  reencrypted: number;
}

const FIELD_OF: Record<SealedColumn<'payment_methods'>, Parameters<typeof paymentMethodAad>[1]> = {
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
    for (const table of Object.keys(SEALED_COLUMNS) as SealedTable[]) {
      for (const column of SEALED_COLUMNS[table]) moved += await this.rewrap(environmentKey, keyId, batchSize, table, column);
    }
    return moved;
  }

  /**
   * Re-seals one column's blobs in batches until none is left on an old key. Each rewrite is
   * conditional on the blob read, so a concurrent redact or update wins; returns how many moved.
   */
  private async rewrap<T extends SealedTable>(environmentKey: string, keyId: string, batchSize: number, table: T, column: SealedColumn<T>): Promise<number> {
    const aadOf = AAD_OF[table] as (token: string, column: SealedColumn<T>) => string;
    let moved = 0;
    for (;;) {
      const rows = await this.repos.sealedBlobs.notOnKey(table, column, environmentKey, keyId, batchSize);
      for (const { token, blob } of rows) {
        const aad = aadOf(token, column);
        const fresh = await this.keyring.sealFor(environmentKey, await this.keyring.openFor(environmentKey, blob, aad), aad);
        if (await this.repos.sealedBlobs.replace(table, column, environmentKey, token, blob, fresh)) moved += 1;
      }
      if (rows.length < batchSize) return moved;
    }
  }
}

/** The associated data each sealed column was sealed with (it binds a blob to its row and field). */
const AAD_OF: { [T in SealedTable]: (token: string, column: SealedColumn<T>) => string } = {
  payment_methods: (token, column) => paymentMethodAad(token, FIELD_OF[column]),
  gateways: (token) => credentialsAad(token),
  receivers: (token, column) => receiverAad(token, column === 'sealed_credentials' ? 'credentials' : 'protocol'),
  certificates: (token) => certificatePrivateKeyAad(token),
};
