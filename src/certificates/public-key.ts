import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { toPem } from './pem.js';

/** A SubjectPublicKeyInfo (DER) as `-----BEGIN PUBLIC KEY-----` PEM. */
export function publicKeyPem(spkiDer: Uint8Array): string {
  return toPem('PUBLIC KEY', spkiDer);
}

/**
 * base64 of SHA-256 over the DER SubjectPublicKeyInfo: the 44-character `public_key_hash`
 * (the form Apple Pay uses to name a merchant's key).
 */
export function publicKeyHash(spkiDer: Uint8Array): string {
  return createHash('sha256').update(spkiDer).digest('base64');
}

/**
 * Whether two public keys are the same key. Compared as keys, not as bytes: one key has more
 * than one valid DER spelling (an EC point compressed or not), and a CA may re-encode it.
 */
export function samePublicKey(a: KeyObject | Uint8Array | string, b: KeyObject | Uint8Array | string): boolean {
  try {
    return asPublicKey(a).equals(asPublicKey(b));
  } catch {
    return false; // A key node cannot read matches nothing.
  }
}

/** A public key from a KeyObject (private or public), SPKI DER, or SPKI PEM. */
function asPublicKey(key: KeyObject | Uint8Array | string): KeyObject {
  if (typeof key === 'string') return createPublicKey({ key, format: 'pem' });
  if (key instanceof Uint8Array) return createPublicKey({ key: Buffer.from(key), format: 'der', type: 'spki' });
  return key.type === 'public' ? key : createPublicKey(key);
}

/** The DER SubjectPublicKeyInfo of a key, in node's canonical encoding. */
export function spkiOf(key: KeyObject): Buffer {
  return asPublicKey(key).export({ type: 'spki', format: 'der' });
}
