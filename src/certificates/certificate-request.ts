import { webcrypto } from 'node:crypto';
import type { CertificateAlgorithm } from '../domain/certificate.js';
import { Secret } from '../domain/secret.js';
import { toPem } from './pem.js';
import { subjectName, type CertificateSubject } from './subject.js';
import { x509 } from './x509.js';

export { CERTIFICATE_ALGORITHMS, type CertificateAlgorithm } from '../domain/certificate.js';

/** Spreedly's example uses it; P-256 keys are also fast to make (milliseconds, RSA takes ~100 ms). */
export const DEFAULT_CERTIFICATE_ALGORITHM: CertificateAlgorithm = 'ec-prime256v1';

interface AlgorithmDefinition {
  key: webcrypto.RsaHashedKeyGenParams | webcrypto.EcKeyGenParams;
  signing: webcrypto.Algorithm | webcrypto.EcdsaParams;
}

const ALGORITHMS: Record<CertificateAlgorithm, AlgorithmDefinition> = {
  'ec-prime256v1': {
    key: { name: 'ECDSA', namedCurve: 'P-256' },
    signing: { name: 'ECDSA', hash: 'SHA-256' },
  },
  'rsa-2048': {
    key: { name: 'RSASSA-PKCS1-v1_5', modulusLength: 2048, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' },
    signing: { name: 'RSASSA-PKCS1-v1_5' },
  },
};

/** A fresh key pair and the PKCS#10 request it signed. */
export interface GeneratedRequest {
  algorithm: CertificateAlgorithm;
  /** `-----BEGIN CERTIFICATE REQUEST-----`, for the merchant to take to a CA. */
  csrPem: string;
  /** The public key (DER SubjectPublicKeyInfo). */
  spkiDer: Buffer;
  /** PKCS#8 PEM. Sealed before it is stored; never rendered. */
  privateKeyPem: Secret;
}

/**
 * Makes a key pair with `algorithm` and a certificate signing request for `subject`, signed by
 * the new key (SHA-256). The request carries no extensions: what the certificate may be used
 * for is the CA's decision, and Apple's and most private CAs ignore requested extensions.
 */
export async function generateCertificateRequest(algorithm: CertificateAlgorithm, subject: CertificateSubject): Promise<GeneratedRequest> {
  const definition = ALGORITHMS[algorithm];
  // Extractable: the private key must leave WebCrypto once, to be sealed.
  const keys = (await webcrypto.subtle.generateKey(definition.key, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({
    name: subjectName(subject),
    keys,
    signingAlgorithm: definition.signing,
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const privateKeyPem = new Secret(toPem('PRIVATE KEY', pkcs8));
  pkcs8.fill(0);
  return {
    algorithm,
    // Like every PEM Coffer writes: one final newline, as in a .pem file.
    csrPem: `${csr.toString('pem').trimEnd()}\n`,
    spkiDer: Buffer.from(await webcrypto.subtle.exportKey('spki', keys.publicKey)),
    privateKeyPem,
  };
}
