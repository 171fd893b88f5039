/** Who a certificate is meant for. Recorded and shown; it does not widen who can read it (docs/certificates.md). */
export const CERTIFICATE_LEVELS = ['environment', 'organization'] as const;
export type CertificateLevel = (typeof CERTIFICATE_LEVELS)[number];

/** The key algorithms `POST certificates/generate` offers, by their API names. */
export const CERTIFICATE_ALGORITHMS = ['ec-prime256v1', 'rsa-2048'] as const;
export type CertificateAlgorithm = (typeof CERTIFICATE_ALGORITHMS)[number];

/**
 * A certificate of an environment (wire-reference §3.5): a key pair, its CSR and, once known, the
 * signed certificate. Timestamps are ISO-8601 UTC strings, the wire format; they sort as text.
 */
export interface Certificate {
  token: string;
  environmentKey: string;
  level: CertificateLevel;
  /** The algorithm of a generated key; null for an uploaded one. */
  algorithm: CertificateAlgorithm | null;
  cn: string | null;
  o: string | null;
  ou: string | null;
  c: string | null;
  st: string | null;
  l: string | null;
  emailAddress: string | null;
  /** SPKI PEM. */
  publicKey: string;
  /** base64 SHA-256 of the DER SubjectPublicKeyInfo. */
  publicKeyHash: string;
  csr: string | null;
  /** The signed certificate (PEM, possibly with its chain), once known. */
  pem: string | null;
  /** When the certificate was redacted (its key, pem and CSR erased for good); null while usable. */
  redactedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** PKCS#8 PEM sealed with the environment's data key (opaque; never returned). '' once redacted. */
  sealedPrivateKey: string;
}

/** A certificate as the service creates it. */
export type NewCertificate = Omit<Certificate, 'redactedAt'>;
