import type { KeyObject } from 'node:crypto';
import { decryptGooglePayMessage, googlePayTagMatchesSomeKey } from './google-pay-cipher.js';
import { parseGooglePayPaymentData, type GooglePayPaymentData } from './google-pay-payload.js';
import type { GooglePayRootKey } from './google-pay-root-keys.js';
import { messageSignatureVerifies, verifyIntermediateSigningKey } from './google-pay-signature.js';
import { parseGooglePayToken, parseSignedMessage } from './google-pay-token.js';
import { WalletDecryptionError, WalletSignatureError, WalletWrongRecipientError } from './wallet-errors.js';

export interface GooglePayDecryptOptions {
  /** The environment's EC private keys (a Google token names none, so each is tried). */
  merchantKeys: readonly KeyObject[];
  /** Google's root signing keys (production or test set, or an operator's override). */
  rootKeys: readonly GooglePayRootKey[];
  /** The merchant id from Google's console; the recipient is `merchant:<id>`. */
  merchantId: string;
  now: Date;
}

/**
 * Verifies and decrypts a Google Pay `ECv2` token, in the order Google's "Payment data
 * cryptography" page gives: intermediate key signed by a live root key, intermediate key not
 * expired, message signature for this recipient, then ECIES-KEM (HKDF-SHA256, HMAC-SHA256 checked
 * before AES-256-CTR), then the message's own expiry. Throws a `WalletTokenError` subclass.
 */
export function decryptGooglePayToken(paymentData: unknown, options: GooglePayDecryptOptions): GooglePayPaymentData {
  const token = parseGooglePayToken(paymentData);
  const intermediateKey = verifyIntermediateSigningKey(token, options.rootKeys, options.now);
  const message = parseSignedMessage(token.signedMessage);
  if (!messageSignatureVerifies(token, intermediateKey, `merchant:${options.merchantId}`)) {
    // ECDSA cannot say which recipient a signature was made for. When the message is intact and
    // for one of our keys (its MAC checks: no plaintext is produced for this), the signature binds
    // another recipient (or was itself altered); otherwise the signed message was altered.
    if (googlePayTagMatchesSomeKey(options.merchantKeys, message)) {
      throw new WalletWrongRecipientError('the message signature does not verify for this merchant id');
    }
    throw new WalletSignatureError('the message signature does not verify');
  }
  const plaintext = decryptGooglePayMessage(options.merchantKeys, message);
  if (plaintext === null) throw new WalletDecryptionError('no merchant key opens the message (its tag does not check)');
  try {
    return parseGooglePayPaymentData(plaintext, options.now);
  } finally {
    plaintext.fill(0);
  }
}
