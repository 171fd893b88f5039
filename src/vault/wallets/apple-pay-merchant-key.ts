import { createHash, createPublicKey, X509Certificate, type KeyObject } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import { asn1 } from './asn1.js';

/**
 * Apple's merchant identifier extension on the payment processing certificate. Its value is a
 * string of 64 hex digits: the SHA-256 of the merchant identifier, which is the KDF's party V info.
 */
export const APPLE_MERCHANT_ID_OID = '1.2.840.113635.100.6.32';

/** One of the merchant's payment processing keys, ready to be matched against `publicKeyHash`. */
export interface ApplePayMerchantKey {
  privateKey: KeyObject;
  /** SHA-256 of the public key's SPKI DER: what Apple's `header.publicKeyHash` names. */
  publicKeyHash: Buffer;
  /** SHA-256 of the merchant identifier (32 bytes). */
  merchantIdHash: Buffer;
}

/** Thrown when a merchant key cannot be built from what the caller holds (a configuration fault). */
export class ApplePayMerchantKeyError extends Error {
  override readonly name = 'ApplePayMerchantKeyError';
}

/** The merchant-identifier hash read from the certificate Apple issued. */
export function merchantIdHashOfCertificate(certificateDer: Buffer): Buffer {
  let certificate: Certificate;
  try {
    certificate = AsnConvert.parse(certificateDer, Certificate);
  } catch {
    throw new ApplePayMerchantKeyError('the merchant certificate is not DER X.509');
  }
  const extension = (certificate.tbsCertificate.extensions ?? []).find((candidate) => candidate.extnID === APPLE_MERCHANT_ID_OID);
  if (extension === undefined) throw new ApplePayMerchantKeyError('the certificate has no Apple merchant identifier extension');
  const text = asn1.stringOf(Buffer.from(extension.extnValue.buffer));
  if (text === null || !/^[0-9a-fA-F]{64}$/.test(text)) throw new ApplePayMerchantKeyError('the Apple merchant identifier extension is not a hex SHA-256');
  return Buffer.from(text, 'hex');
}

/**
 * Builds a merchant key from its private key and either the certificate Apple signed (PEM or DER)
 * or the merchant identifier itself (for example `merchant.com.example`).
 */
export function applePayMerchantKey(input: { privateKey: KeyObject; certificate?: string | Buffer; merchantIdentifier?: string }): ApplePayMerchantKey {
  const spki = createPublicKey(input.privateKey).export({ type: 'spki', format: 'der' });
  let merchantIdHash: Buffer;
  if (input.certificate !== undefined) {
    let certificate: X509Certificate;
    try {
      certificate = new X509Certificate(input.certificate);
    } catch {
      throw new ApplePayMerchantKeyError('the merchant certificate is not a PEM or DER X.509 certificate');
    }
    if (!certificate.publicKey.export({ type: 'spki', format: 'der' }).equals(spki)) {
      throw new ApplePayMerchantKeyError('the certificate does not belong to the private key');
    }
    merchantIdHash = merchantIdHashOfCertificate(certificate.raw);
  } else if (input.merchantIdentifier !== undefined && input.merchantIdentifier.length > 0) {
    merchantIdHash = createHash('sha256').update(input.merchantIdentifier, 'utf8').digest();
  } else {
    throw new ApplePayMerchantKeyError('a merchant key needs its certificate or its merchant identifier');
  }
  return { privateKey: input.privateKey, publicKeyHash: createHash('sha256').update(spki).digest(), merchantIdHash };
}
