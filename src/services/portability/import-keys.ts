import type * as openpgp from 'openpgp';
import { openpgpModule } from './openpgp-module.js';
import type { Clock } from '../../domain/clock.js';
import type { ImportKey } from '../../domain/payment-method-import.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { Keyring } from '../../vault/keyring.js';

/** The associated data binding a sealed import key to its environment. */
function importKeyAad(environmentKey: string): string {
  return `import_key:${environmentKey}`;
}

/**
 * Each environment's OpenPGP import key pair (docs/portability.md, "Encrypted and signed files"):
 * made on first use (Curve25519, OpenPGP.js's default), the public half kept armored and served,
 * the private half sealed with the environment's data key (wrapped by the master key) and opened
 * only to decrypt an import.
 */
export class ImportKeyService {
  constructor(
    private readonly store: StoreAccess<'paymentMethodImports'>,
    private readonly keyring: Keyring,
    private readonly clock: Clock,
  ) {}

  /** The armored public key (made now if the environment has none yet). */
  async publicKey(environmentKey: string): Promise<{ armored: string; fingerprint: string }> {
    const key = await this.keyOf(environmentKey);
    return { armored: key.publicKey, fingerprint: key.fingerprint };
  }

  /** The private key, opened for one decryption. */
  async privateKey(environmentKey: string): Promise<openpgp.PrivateKey> {
    const key = await this.keyOf(environmentKey);
    const armored = await this.keyring.openFor(environmentKey, key.sealedPrivateKey, importKeyAad(environmentKey));
    return (await openpgpModule()).readPrivateKey({ armoredKey: armored.toString('utf8') });
  }

  private async keyOf(environmentKey: string): Promise<ImportKey> {
    const existing = await this.store.repos.paymentMethodImports.findKey(environmentKey);
    if (existing !== undefined) return existing;
    const generated = await (await openpgpModule()).generateKey({ type: 'ecc', curve: 'curve25519Legacy', userIDs: [{ name: `Coffer import key ${environmentKey}` }], format: 'object' });
    const sealed = await this.keyring.sealFor(environmentKey, Buffer.from(generated.privateKey.armor(), 'utf8'), importKeyAad(environmentKey));
    return this.store.repos.paymentMethodImports.insertKey({
      environmentKey,
      publicKey: generated.publicKey.armor(),
      sealedPrivateKey: sealed,
      fingerprint: generated.publicKey.getFingerprint(),
      createdAt: this.clock.now().toISOString(),
    });
  }
}
