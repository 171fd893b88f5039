import { createDecipheriv, createHash, createPublicKey, diffieHellman, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { ApplePayMerchantKey } from './apple-pay-merchant-key.js';
import { WalletDecryptionError, WalletTokenMalformedError, WalletUnknownKeyError } from './wallet-errors.js';

/** Apple's fixed KDF algorithm id: a length octet (13) followed by "id-aes256-GCM". */
const ALGORITHM_ID = Buffer.concat([Buffer.from([0x0d]), Buffer.from('id-aes256-GCM', 'ascii')]);
const PARTY_U_INFO = Buffer.from('Apple', 'ascii');
const COUNTER_ONE = Buffer.from([0, 0, 0, 1]);
const GCM_TAG_BYTES = 16;
/** Apple uses a 16-byte all-zero IV: each symmetric key is derived afresh for one token. */
const ZERO_IV = Buffer.alloc(16);

/** The merchant key `publicKeyHash` names; keys are compared in constant time, all of them. */
export function selectApplePayKey(keys: readonly ApplePayMerchantKey[], publicKeyHash: Buffer): ApplePayMerchantKey {
  let found: ApplePayMerchantKey | undefined;
  for (const key of keys) {
    if (key.publicKeyHash.length === publicKeyHash.length && timingSafeEqual(key.publicKeyHash, publicKeyHash)) found ??= key;
  }
  if (found === undefined) throw new WalletUnknownKeyError('no merchant certificate matches the token publicKeyHash');
  return found;
}

function ephemeralKey(spkiDer: Buffer): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey({ key: spkiDer, format: 'der', type: 'spki' });
  } catch {
    throw new WalletTokenMalformedError('payment_data.header.ephemeralPublicKey is not a public key');
  }
  if (key.asymmetricKeyType !== 'ec' || key.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new WalletTokenMalformedError('payment_data.header.ephemeralPublicKey must be a P-256 key');
  }
  return key;
}

/**
 * NIST SP 800-56A single-step KDF with SHA-256, as Apple's reference specifies it for EC_v1: one
 * round (counter 1) gives the 32-byte AES-256 key; OtherInfo = algorithm id || "Apple" || SHA-256
 * of the merchant identifier.
 */
export function applePaySymmetricKey(sharedSecret: Buffer, merchantIdHash: Buffer): Buffer {
  return createHash('sha256').update(COUNTER_ONE).update(sharedSecret).update(ALGORITHM_ID).update(PARTY_U_INFO).update(merchantIdHash).digest();
}

/** ECDH with the ephemeral key, the KDF, then AES-256-GCM over `data` (ciphertext || 16-byte tag). */
export function decryptApplePayData(key: ApplePayMerchantKey, ephemeralPublicKey: Buffer, data: Buffer): Buffer {
  const sharedSecret = diffieHellman({ privateKey: key.privateKey, publicKey: ephemeralKey(ephemeralPublicKey) });
  const symmetricKey = applePaySymmetricKey(sharedSecret, key.merchantIdHash);
  try {
    const decipher = createDecipheriv('aes-256-gcm', symmetricKey, ZERO_IV);
    decipher.setAuthTag(data.subarray(data.length - GCM_TAG_BYTES));
    return Buffer.concat([decipher.update(data.subarray(0, data.length - GCM_TAG_BYTES)), decipher.final()]);
  } catch {
    throw new WalletDecryptionError('the payment data does not decrypt with the merchant key');
  } finally {
    sharedSecret.fill(0);
    symmetricKey.fill(0);
  }
}
