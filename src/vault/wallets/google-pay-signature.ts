import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { GooglePayRootKey } from './google-pay-root-keys.js';
import { parseSignedKey, type GooglePayToken } from './google-pay-token.js';
import { WalletSignatureError, WalletTokenExpiredError, WalletTokenMalformedError } from './wallet-errors.js';

/** Google signs every ECv2 token as this sender (Google's "Payment data cryptography" page). */
export const GOOGLE_SENDER_ID = 'Google';

/**
 * Google's signed strings: each part preceded by its byte length as 4 bytes little-endian, so no
 * part can be shifted into its neighbour.
 */
export function lengthPrefixed(parts: readonly string[]): Buffer {
  return Buffer.concat(
    parts.flatMap((part) => {
      const bytes = Buffer.from(part, 'utf8');
      const length = Buffer.alloc(4);
      length.writeUInt32LE(bytes.length);
      return [length, bytes];
    }),
  );
}

/** ECDSA P-256 SHA-256 with a DER signature; a signature that does not even parse is false. */
export function ecdsaVerifies(key: KeyObject, data: Buffer, signature: Buffer): boolean {
  try {
    return verify('sha256', data, key, signature);
  } catch {
    return false;
  }
}

/**
 * Step one of Google's verification: some signature of the intermediate signing key verifies under
 * some root key that has not expired, then the intermediate key itself has not expired. Returns it.
 */
export function verifyIntermediateSigningKey(token: GooglePayToken, roots: readonly GooglePayRootKey[], now: Date): KeyObject {
  const live = roots.filter((root) => root.expiration === null || root.expiration > now.getTime());
  const signed = lengthPrefixed([GOOGLE_SENDER_ID, token.protocolVersion, token.signedKey]);
  const verified = live.some((root) => token.intermediateSignatures.some((signature) => ecdsaVerifies(root.key, signed, signature)));
  if (!verified) throw new WalletSignatureError('no signature of the intermediate signing key verifies under a Google root key');
  const signedKey = parseSignedKey(token.signedKey);
  if (signedKey.keyExpiration <= now.getTime()) throw new WalletTokenExpiredError('the intermediate signing key has expired');
  try {
    return createPublicKey({ key: signedKey.keyValue, format: 'der', type: 'spki' });
  } catch {
    throw new WalletTokenMalformedError('signedKey.keyValue is not a public key');
  }
}

/** Step two: the message signature over sender || recipient || protocolVersion || signedMessage. */
export function messageSignatureVerifies(token: GooglePayToken, intermediateKey: KeyObject, recipientId: string): boolean {
  const signed = lengthPrefixed([GOOGLE_SENDER_ID, recipientId, token.protocolVersion, token.signedMessage]);
  return ecdsaVerifies(intermediateKey, signed, token.signature);
}
