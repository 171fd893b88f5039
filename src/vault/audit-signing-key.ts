import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import type { AuditSigningKey } from '../domain/audit-chain.js';
import type { Keyring } from './keyring.js';
import { open, seal } from './cipher.js';

/** The one signing key pair checkpoints are signed with; a new pair would get a new id. */
export const AUDIT_SIGNING_KEY_ID = 'audit-signing-1';
/** Names the derived sealing key inside the sealed private key's blob. */
const SEALING_KEY_ID = 'audit-signing-seal-1';

/** Where the key pairs are kept (the audit chain repository). */
export interface SigningKeyStore {
  signingKeys(): Promise<AuditSigningKey[]>;
  insertSigningKeyIfAbsent(key: AuditSigningKey): Promise<void>;
}

/**
 * The Ed25519 key that signs the audit chain's checkpoints (docs/audit.md, "Checkpoints"). Its
 * private key is sealed (AES-256-GCM) under a key derived from the secret-hash key, which the
 * master key wraps: a copy of the database alone can neither sign a checkpoint nor swap the key
 * (`matches` opens the sealed private key and compares its public half with the stored one).
 */
export class AuditSigner {
  private current: { id: string; privateKey: KeyObject } | null = null;

  constructor(private readonly keyring: Keyring) {}

  /** Signs `message` with the current key (created on first use; several nodes may race, one wins). */
  async sign(store: SigningKeyStore, message: string, now: Date): Promise<{ keyId: string; signature: string }> {
    const key = await this.currentKey(store, now);
    return { keyId: key.id, signature: sign(null, Buffer.from(message, 'utf8'), key.privateKey).toString('base64') };
  }

  /** Whether `signature` is `key`'s over `message`. */
  static verify(key: AuditSigningKey, message: string, signature: string): boolean {
    try {
      const publicKey = createPublicKey({ key: Buffer.from(key.publicKey, 'base64'), format: 'der', type: 'spki' });
      return verify(null, Buffer.from(message, 'utf8'), publicKey, Buffer.from(signature, 'base64'));
    } catch {
      return false;
    }
  }

  /** Whether the stored public key is the half of the sealed private key (false when it does not open). */
  async matches(key: AuditSigningKey): Promise<boolean> {
    try {
      const privateKey = await this.openPrivateKey(key);
      return createPublicKey(privateKey).export({ format: 'der', type: 'spki' }).toString('base64') === key.publicKey;
    } catch {
      return false;
    }
  }

  private async currentKey(store: SigningKeyStore, now: Date): Promise<{ id: string; privateKey: KeyObject }> {
    if (this.current !== null) return this.current;
    let stored = (await store.signingKeys()).find((key) => key.id === AUDIT_SIGNING_KEY_ID);
    if (stored === undefined) {
      const pair = generateKeyPairSync('ed25519');
      const privateDer = pair.privateKey.export({ format: 'der', type: 'pkcs8' });
      await store.insertSigningKeyIfAbsent({
        id: AUDIT_SIGNING_KEY_ID,
        publicKey: pair.publicKey.export({ format: 'der', type: 'spki' }).toString('base64'),
        sealedPrivateKey: seal(await this.sealingKey(), SEALING_KEY_ID, privateDer, associatedData(AUDIT_SIGNING_KEY_ID)),
        createdAt: now.toISOString(),
      });
      stored = (await store.signingKeys()).find((key) => key.id === AUDIT_SIGNING_KEY_ID);
      if (stored === undefined) throw new Error('the audit signing key is missing right after its insert');
    }
    this.current = { id: stored.id, privateKey: await this.openPrivateKey(stored) };
    return this.current;
  }

  private async openPrivateKey(key: AuditSigningKey): Promise<KeyObject> {
    const der = open(await this.sealingKey(), key.sealedPrivateKey, associatedData(key.id));
    return createPrivateKey({ key: der, format: 'der', type: 'pkcs8' });
  }

  private async sealingKey(): Promise<Buffer> {
    return Buffer.from(await this.keyring.hashSecret(`coffer:${SEALING_KEY_ID}`), 'hex');
  }
}

function associatedData(id: string): string {
  return `audit-signing-key:${id}`;
}
