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

/**
 * A P-256 public key as Google Pay's console asks for it: base64 of the uncompressed point
 * (`04 || X || Y`, docs/wallets.md "Merchant setup"); null for any other key.
 */
export function uncompressedPointBase64(spkiPem: string): string | null {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: spkiPem, format: 'pem' });
  } catch {
    return null;
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') return null;
  const jwk = key.export({ format: 'jwk' });
  return Buffer.concat([Buffer.from([0x04]), Buffer.from(jwk.x as string, 'base64url'), Buffer.from(jwk.y as string, 'base64url')]).toString('base64');
}

/** The DER SubjectPublicKeyInfo of a key, in node's canonical encoding. */
export function spkiOf(key: KeyObject): Buffer {
  return asPublicKey(key).export({ type: 'spki', format: 'der' });
}
