import { createHash, verify, X509Certificate, type KeyObject } from 'node:crypto';
import { ContentInfo, id_signedData, SignedData, type SignerInfo } from '@peculiar/asn1-cms';
import { id_pkcs9_at_messageDigest, id_pkcs9_at_signingTime, SigningTime } from '@peculiar/asn1-pkcs9';
import { AsnConvert, OctetString } from '@peculiar/asn1-schema';
import { Certificate } from '@peculiar/asn1-x509';
import { asn1 } from './asn1.js';
import { WalletSignatureError, WalletTokenExpiredError, WalletTokenMalformedError, WalletUntrustedChainError } from './wallet-errors.js';

/**
 * Apple's marker extensions (Apple's "Payment Token Format Reference", verifying the signature):
 * the leaf that signs payment tokens carries 1.2.840.113635.100.6.29, its issuing intermediate
 * 1.2.840.113635.100.6.2.14. A chain to Apple's root without them is some other Apple certificate.
 */
export const APPLE_PAY_LEAF_OID = '1.2.840.113635.100.6.29';
export const APPLE_PAY_INTERMEDIATE_OID = '1.2.840.113635.100.6.2.14';

const SHA256_OID = '2.16.840.1.101.3.4.2.1';
/** ecdsa-with-SHA256, or the bare id-ecPublicKey some CMS writers put in signatureAlgorithm. */
const ECDSA_SIGNATURE_OIDS = new Set(['1.2.840.10045.4.3.2', '1.2.840.10045.2.1']);
const SET_TAG = 0x31;

export interface AppleSignatureCheck {
  /** The detached CMS SignedData (`paymentData.signature`). */
  signature: Buffer;
  /** ephemeralPublicKey || data || transactionId (|| applicationData). */
  signedContent: Buffer;
  /** The roots a chain may end at (Apple Root CA - G3 in production). */
  roots: readonly X509Certificate[];
  now: Date;
  /** How far the CMS signing time may be from `now`, either way, in milliseconds. */
  signingTimeWindowMs: number;
}

interface ParsedCertificate {
  node: X509Certificate;
  asn: Certificate;
}

function decode<T>(der: ArrayBuffer | Buffer, type: new () => T, what: string): T {
  try {
    return AsnConvert.parse(der, type);
  } catch {
    throw new WalletTokenMalformedError(`payment_data.signature: ${what} is not valid DER`);
  }
}

function hasExtension(certificate: Certificate, oid: string): boolean {
  return (certificate.tbsCertificate.extensions ?? []).some((extension) => extension.extnID === oid);
}

function sameBytes(a: ArrayBuffer | Buffer, b: ArrayBuffer | Buffer): boolean {
  return Buffer.from(a as ArrayBuffer).equals(Buffer.from(b as ArrayBuffer));
}

function certificatesOf(signedData: SignedData): ParsedCertificate[] {
  return (signedData.certificates ?? []).flatMap((choice) => {
    if (choice.certificate === undefined) return [];
    const der = Buffer.from(AsnConvert.serialize(choice.certificate));
    try {
      return [{ node: new X509Certificate(der), asn: choice.certificate }];
    } catch {
      throw new WalletTokenMalformedError('payment_data.signature: a certificate does not parse');
    }
  });
}

function attributeValue(signer: SignerInfo, oid: string): ArrayBuffer {
  const attributes = (signer.signedAttrs ?? []).filter((attribute) => attribute.attrType === oid);
  const value = attributes.length === 1 ? attributes[0]?.attrValues : undefined;
  if (value?.length !== 1 || value[0] === undefined) throw new WalletSignatureError(`the CMS signature must sign exactly one ${oid} attribute`);
  return value[0];
}

function withinValidity(certificate: X509Certificate, now: Date): boolean {
  return new Date(certificate.validFrom) <= now && now <= new Date(certificate.validTo);
}

/**
 * Leaf (the signer) → intermediate → one of the roots, each link's signature and issuer name checked,
 * each certificate valid now, the leaf and the intermediate carrying Apple's marker extensions.
 */
function trustedLeaf(certificates: ParsedCertificate[], signer: SignerInfo, roots: readonly X509Certificate[], now: Date): KeyObject {
  const leaf = certificates.find((certificate) => hasExtension(certificate.asn, APPLE_PAY_LEAF_OID));
  const intermediate = certificates.find((certificate) => hasExtension(certificate.asn, APPLE_PAY_INTERMEDIATE_OID));
  if (leaf === undefined) throw new WalletUntrustedChainError('no certificate carries the Apple Pay leaf marker extension');
  if (intermediate === undefined) throw new WalletUntrustedChainError('no certificate carries the Apple Pay intermediate marker extension');
  const serial = signer.sid.issuerAndSerialNumber?.serialNumber;
  if (serial === undefined || !sameBytes(serial, leaf.asn.tbsCertificate.serialNumber)) {
    throw new WalletUntrustedChainError('the CMS signer is not the Apple Pay leaf certificate');
  }
  if (!leaf.node.checkIssued(intermediate.node) || !leaf.node.verify(intermediate.node.publicKey)) {
    throw new WalletUntrustedChainError('the leaf certificate is not signed by the intermediate');
  }
  const root = roots.find((candidate) => intermediate.node.checkIssued(candidate) && intermediate.node.verify(candidate.publicKey));
  if (root === undefined) throw new WalletUntrustedChainError('the intermediate certificate does not chain to the trusted root');
  if (![leaf.node, intermediate.node, root].every((certificate) => withinValidity(certificate, now))) {
    throw new WalletUntrustedChainError('a certificate of the chain is outside its validity period');
  }
  return leaf.node.publicKey;
}

/**
 * Verifies the detached CMS signature of an `EC_v1` token as Apple's reference asks: the chain to
 * the root, the signer's message digest over the signed content, the ECDSA signature over the DER
 * SET of signed attributes (RFC 5652 §5.4), and the signing time within the window (a token
 * replayed long after it was made is refused). Returns the signing time.
 */
export function verifyApplePaySignature(check: AppleSignatureCheck): Date {
  const contentInfo = decode(check.signature, ContentInfo, 'ContentInfo');
  if (contentInfo.contentType !== id_signedData) throw new WalletTokenMalformedError('payment_data.signature is not a CMS SignedData');
  const signedData = decode(contentInfo.content, SignedData, 'SignedData');
  if (signedData.encapContentInfo.eContent !== undefined) throw new WalletTokenMalformedError('payment_data.signature must be detached');
  if (signedData.signerInfos.length !== 1) throw new WalletTokenMalformedError('payment_data.signature must have exactly one signer');
  const signer = signedData.signerInfos[0] as SignerInfo;

  const leafKey = trustedLeaf(certificatesOf(signedData), signer, check.roots, check.now);

  if (signer.digestAlgorithm.algorithm !== SHA256_OID) throw new WalletSignatureError('the CMS signer must digest with SHA-256');
  if (!ECDSA_SIGNATURE_OIDS.has(signer.signatureAlgorithm.algorithm)) throw new WalletSignatureError('the CMS signature must be ECDSA');
  const signedAttributes = asn1.signedAttributesOf(check.signature);
  if (signedAttributes === null) throw new WalletSignatureError('the CMS signature has no signed attributes');

  const digest = decode(attributeValue(signer, id_pkcs9_at_messageDigest), OctetString, 'messageDigest');
  const expected = createHash('sha256').update(check.signedContent).digest();
  if (!sameBytes(digest.buffer, expected)) throw new WalletSignatureError('the CMS message digest does not match the token');

  // The signature covers the attributes' DER with the universal SET tag, not the [0] IMPLICIT tag
  // they are stored under (RFC 5652 §5.4); the length octets are the same.
  signedAttributes[0] = SET_TAG;
  let valid = false;
  try {
    valid = verify('sha256', signedAttributes, leafKey, Buffer.from(signer.signature.buffer));
  } catch {
    valid = false;
  }
  if (!valid) throw new WalletSignatureError('the CMS signature does not verify');

  const signingTime = decode(attributeValue(signer, id_pkcs9_at_signingTime), SigningTime, 'signingTime').getTime();
  if (Math.abs(check.now.getTime() - signingTime.getTime()) > check.signingTimeWindowMs) {
    throw new WalletTokenExpiredError('the CMS signing time is outside the accepted window');
  }
  return signingTime;
}
