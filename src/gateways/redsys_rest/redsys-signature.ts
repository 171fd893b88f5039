import { createCipheriv, createHmac, timingSafeEqual } from 'node:crypto';
import { GatewayInputError } from '../kit/index.js';

/**
 * Redsys's HMAC_SHA256_V1 signature (pagosonline.redsys.es, "Integración REST", "Ds_Signature"):
 * the merchant's secret key (Base64, 24 bytes) encrypts the order number with 3DES in CBC mode,
 * IV of zeros, the order zero-padded to a multiple of 8 bytes; that ciphertext is the per-order key
 * of an HMAC-SHA256 over the Base64 Ds_MerchantParameters exactly as sent; the MAC is Base64.
 */
export const SIGNATURE_VERSION = 'HMAC_SHA256_V1';

/** The merchant key as bytes; a key that is not 24 bytes of Base64 cannot sign anything. */
function merchantKey(secretKey: string): Buffer {
  const key = Buffer.from(secretKey, 'base64');
  if (key.length !== 24) throw new GatewayInputError('The Redsys secret_key must be the Base64 key of 24 bytes Redsys issues.', 'config_error');
  return key;
}

/** The per-order key: 3DES-CBC (zero IV, zero padding) of the order number under the merchant key. */
export function orderKey(secretKey: string, order: string): Buffer {
  const plain = Buffer.from(order, 'utf8');
  const padded = Buffer.concat([plain, Buffer.alloc((8 - (plain.length % 8)) % 8)]);
  const cipher = createCipheriv('des-ede3-cbc', merchantKey(secretKey), Buffer.alloc(8));
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(padded), cipher.final()]);
}

/** Ds_Signature of a request: standard Base64 of the HMAC. */
export function redsysSignature(secretKey: string, order: string, merchantParameters: string): string {
  return createHmac('sha256', orderKey(secretKey, order)).update(merchantParameters, 'utf8').digest('base64');
}

/** Base64 and Base64url spellings of one value compare equal (Redsys signs its answers in Base64url). */
function canonical(signature: string): string {
  return signature.trim().replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Whether an answer's Ds_Signature is the HMAC of its Ds_MerchantParameters under its Ds_Order's key. */
export function signatureMatches(secretKey: string, order: string, merchantParameters: string, signature: string): boolean {
  const expected = Buffer.from(canonical(redsysSignature(secretKey, order, merchantParameters)), 'utf8');
  const given = Buffer.from(canonical(signature), 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
