import { createDecipheriv, createHmac, createPublicKey, diffieHellman, hkdfSync, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { GooglePaySignedMessage } from './google-pay-token.js';
import { WalletTokenMalformedError } from './wallet-errors.js';

/** HKDF-SHA256 info for ECv2 (Google's "Payment data cryptography" page). */
const HKDF_INFO = Buffer.from('Google', 'utf8');
/** Zero salt: HKDF pads an empty salt to the hash length with zeros (RFC 5869 §2.2). */
const HKDF_SALT = Buffer.alloc(32);
const KEY_BYTES = 32;
/** AES-256-CTR with a zero IV is sound here: each ECIES key is derived afresh for one message. */
const ZERO_IV = Buffer.alloc(16);

interface DerivedKeys {
  encryptionKey: Buffer;
  macKey: Buffer;
}

/** The ephemeral point as a KeyObject: a JWK built from the uncompressed point's coordinates. */
function ephemeralKey(point: Buffer): KeyObject {
  try {
    // As a JWK of the point's coordinates: Node then checks that the point lies on the curve.
    const jwk = { kty: 'EC', crv: 'P-256', x: point.subarray(1, 33).toString('base64url'), y: point.subarray(33, 65).toString('base64url') };
    return createPublicKey({ key: jwk, format: 'jwk' });
  } catch {
    throw new WalletTokenMalformedError('signedMessage.ephemeralPublicKey is not a point on P-256');
  }
}

/** ECIES-KEM: ECDH, then HKDF-SHA256 over ephemeralPublicKey || sharedSecret into 64 bytes. */
function deriveKeys(privateKey: KeyObject, message: GooglePaySignedMessage, ephemeral: KeyObject): DerivedKeys {
  const sharedSecret = diffieHellman({ privateKey, publicKey: ephemeral });
  const ikm = Buffer.concat([message.ephemeralPublicKey, sharedSecret]);
  const derived = Buffer.from(hkdfSync('sha256', ikm, HKDF_SALT, HKDF_INFO, 2 * KEY_BYTES));
  sharedSecret.fill(0);
  ikm.fill(0);
  return { encryptionKey: derived.subarray(0, KEY_BYTES), macKey: derived.subarray(KEY_BYTES) };
}

function tagMatches(keys: DerivedKeys, message: GooglePaySignedMessage): boolean {
  const tag = createHmac('sha256', keys.macKey).update(message.encryptedMessage).digest();
  return timingSafeEqual(tag, message.tag);
}

/**
 * The first merchant key whose MAC checks opens the message (a Google token names no key, so each
 * of the environment's keys is tried). Null when none does. The tag is checked in constant time
 * before anything is decrypted.
 */
export function decryptGooglePayMessage(privateKeys: readonly KeyObject[], message: GooglePaySignedMessage): Buffer | null {
  const ephemeral = ephemeralKey(message.ephemeralPublicKey);
  for (const privateKey of privateKeys) {
    const keys = deriveKeys(privateKey, message, ephemeral);
    try {
      if (!tagMatches(keys, message)) continue;
      const decipher = createDecipheriv('aes-256-ctr', keys.encryptionKey, ZERO_IV);
      return Buffer.concat([decipher.update(message.encryptedMessage), decipher.final()]);
    } finally {
      keys.encryptionKey.fill(0);
      keys.macKey.fill(0);
    }
  }
  return null;
}

/** Whether some merchant key's MAC checks, without decrypting anything. */
export function googlePayTagMatchesSomeKey(privateKeys: readonly KeyObject[], message: GooglePaySignedMessage): boolean {
  const ephemeral = ephemeralKey(message.ephemeralPublicKey);
  return privateKeys.some((privateKey) => {
    const keys = deriveKeys(privateKey, message, ephemeral);
    try {
      return tagMatches(keys, message);
    } finally {
      keys.encryptionKey.fill(0);
      keys.macKey.fill(0);
    }
  });
}
