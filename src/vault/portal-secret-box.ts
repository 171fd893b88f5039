import type { Keyring } from './keyring.js';
import { open, seal } from './cipher.js';

/** Names the derived key inside its blobs; a new derivation gets a new id. */
const KEY_ID = 'portal-totp-1';

/**
 * Seals portal users' TOTP secrets. They belong to no environment, so they cannot use an
 * environment's data key; the key is derived (HMAC) from the global secret-hash key, which is
 * itself wrapped by the master key, so a copy of the database alone cannot open them.
 */
export class PortalSecretBox {
  constructor(private readonly keyring: Keyring) {}

  async seal(plaintext: string, associatedData: string): Promise<string> {
    return seal(await this.key(), KEY_ID, Buffer.from(plaintext, 'utf8'), associatedData);
  }

  async open(blob: string, associatedData: string): Promise<string> {
    return open(await this.key(), blob, associatedData).toString('utf8');
  }

  private async key(): Promise<Buffer> {
    return Buffer.from(await this.keyring.hashSecret(`coffer:${KEY_ID}`), 'hex');
  }
}
