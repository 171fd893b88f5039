import type { X509Certificate } from 'node:crypto';
import { decryptApplePayData, selectApplePayKey } from './apple-pay-cipher.js';
import type { ApplePayMerchantKey } from './apple-pay-merchant-key.js';
import { parseApplePayPaymentData, type ApplePayPaymentData } from './apple-pay-payload.js';
import { verifyApplePaySignature } from './apple-pay-signature.js';
import { applePaySignedContent, parseApplePayToken } from './apple-pay-token.js';
import { DEFAULT_SIGNING_TIME_WINDOW_MS } from './apple-pay-window.js';

export { DEFAULT_SIGNING_TIME_WINDOW_MS };


export interface ApplePayDecryptOptions {
  /** The merchant's live payment processing keys (several during a rotation). */
  merchantKeys: readonly ApplePayMerchantKey[];
  /** Trusted roots: Apple Root CA - G3 (`loadAppleRootCaG3`) unless an operator pins another. */
  roots: readonly X509Certificate[];
  now: Date;
  signingTimeWindowMs?: number;
}

export interface DecryptedApplePayToken {
  /** The token's transaction id (hex), for replay detection by the caller. */
  transactionId: string;
  signingTime: Date;
  payment: ApplePayPaymentData;
}

/**
 * Verifies and decrypts an Apple Pay `EC_v1` payment token (`PKPaymentToken.paymentData`, object or
 * JSON text). Order: shape, signature and chain (nothing is decrypted for an unauthenticated token),
 * merchant key by `publicKeyHash`, ECDH + KDF + AES-256-GCM, then the payment data's shape.
 * Throws a `WalletTokenError` subclass for each refusal.
 */
export function decryptApplePayToken(paymentData: unknown, options: ApplePayDecryptOptions): DecryptedApplePayToken {
  const token = parseApplePayToken(paymentData);
  const signingTime = verifyApplePaySignature({
    signature: token.signature,
    signedContent: applePaySignedContent(token),
    roots: options.roots,
    now: options.now,
    signingTimeWindowMs: options.signingTimeWindowMs ?? DEFAULT_SIGNING_TIME_WINDOW_MS,
  });
  const key = selectApplePayKey(options.merchantKeys, token.publicKeyHash);
  const plaintext = decryptApplePayData(key, token.ephemeralPublicKey, token.data);
  try {
    return { transactionId: token.transactionId.toString('hex'), signingTime, payment: parseApplePayPaymentData(plaintext) };
  } finally {
    plaintext.fill(0);
  }
}
