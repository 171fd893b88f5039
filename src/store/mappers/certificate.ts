import type { Insertable, Selectable } from 'kysely';
import type { Certificate, CertificateAlgorithm, CertificateLevel, NewCertificate } from '../../domain/certificate.js';
import type { CertificatesTable } from '../schema.js';

/** A `certificates` row as the domain names it; `level` and `algorithm` hold only the values written. */
export function certificateOf(row: Selectable<CertificatesTable>): Certificate {
  return {
    token: row.token,
    environmentKey: row.environment_key,
    level: row.level as CertificateLevel,
    algorithm: row.algorithm as CertificateAlgorithm | null,
    cn: row.cn,
    o: row.o,
    ou: row.ou,
    c: row.c,
    st: row.st,
    l: row.l,
    emailAddress: row.email_address,
    publicKey: row.public_key,
    publicKeyHash: row.public_key_hash,
    csr: row.csr,
    pem: row.pem,
    redactedAt: row.redacted_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    sealedPrivateKey: row.sealed_private_key,
  };
}

export function certificateRow(certificate: NewCertificate): Insertable<CertificatesTable> {
  return {
    token: certificate.token,
    environment_key: certificate.environmentKey,
    level: certificate.level,
    algorithm: certificate.algorithm,
    cn: certificate.cn,
    o: certificate.o,
    ou: certificate.ou,
    c: certificate.c,
    st: certificate.st,
    l: certificate.l,
    email_address: certificate.emailAddress,
    public_key: certificate.publicKey,
    public_key_hash: certificate.publicKeyHash,
    csr: certificate.csr,
    pem: certificate.pem,
    sealed_private_key: certificate.sealedPrivateKey,
    created_at: certificate.createdAt,
    updated_at: certificate.updatedAt,
  };
}
