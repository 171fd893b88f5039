import { X509Certificate as NodeX509Certificate } from 'node:crypto';
import { CertificateInputError } from './input-error.js';
import { pemBlocks } from './pem.js';
import { subjectOf, type CertificateSubject } from './subject.js';
import { x509 } from './x509.js';

/** A signed certificate as uploaded: the leaf first, then the certificates that issued it. */
export interface CertificateChain {
  leaf: x509.X509Certificate;
  /** The leaf's public key (DER SubjectPublicKeyInfo, as the certificate spells it). */
  spkiDer: Buffer;
  subject: CertificateSubject;
  /** Leaf and chain re-encoded from their DER: nothing but the certificates themselves. */
  pem: string;
  /** Every certificate, leaf first. */
  certificates: x509.X509Certificate[];
}

/** More would be a mistake (a CA bundle pasted whole), not a chain. */
export const MAX_CHAIN_LENGTH = 10;

const NOT_A_CERTIFICATE = 'Pem must be an X.509 certificate in PEM format (-----BEGIN CERTIFICATE-----)';

function invalid(message: string): CertificateInputError {
  return new CertificateInputError('pem', message);
}

/**
 * Reads `pem`: one or more CERTIFICATE blocks, the leaf first, each later one the issuer of
 * the one before (checked by signature, so a chain in the wrong order is refused here rather
 * than failing a TLS handshake later). Any other block is refused, a private key above all:
 * it would otherwise be stored in clear and echoed. Validity dates are not checked (see
 * docs/certificates.md).
 */
export function parseCertificateChain(text: string): CertificateChain {
  const blocks = pemBlocks(text);
  if (blocks === null || blocks.length === 0) throw invalid(NOT_A_CERTIFICATE);
  if (blocks.some((block) => block.label.endsWith('PRIVATE KEY'))) {
    throw invalid('Pem must hold certificates only: send the private key as private_key');
  }
  if (blocks.some((block) => block.label !== 'CERTIFICATE')) throw invalid('Pem must hold CERTIFICATE blocks only');
  if (blocks.length > MAX_CHAIN_LENGTH) throw invalid(`Pem holds more than ${MAX_CHAIN_LENGTH} certificates`);
  const certificates = blocks.map((block) => {
    try {
      return new x509.X509Certificate(block.der);
    } catch {
      throw invalid(NOT_A_CERTIFICATE);
    }
  });
  for (let i = 1; i < certificates.length; i += 1) {
    const child = certificates[i - 1] as x509.X509Certificate;
    const issuer = certificates[i] as x509.X509Certificate;
    if (!signedBy(child, issuer)) {
      throw invalid('Pem has a chain out of order: each certificate must be signed by the one after it');
    }
  }
  const leaf = certificates[0] as x509.X509Certificate;
  return {
    leaf,
    spkiDer: Buffer.from(leaf.publicKey.rawData),
    subject: subjectOf(leaf.subjectName),
    pem: certificates.map((certificate) => `${certificate.toString('pem').trimEnd()}\n`).join(''),
    certificates,
  };
}

/** Names and signature, checked by OpenSSL (through node), which knows more algorithms than WebCrypto. */
function signedBy(child: x509.X509Certificate, issuer: x509.X509Certificate): boolean {
  try {
    const issuerCertificate = new NodeX509Certificate(Buffer.from(issuer.rawData));
    const childCertificate = new NodeX509Certificate(Buffer.from(child.rawData));
    return childCertificate.checkIssued(issuerCertificate) && childCertificate.verify(issuerCertificate.publicKey);
  } catch {
    return false;
  }
}
