import type { WireObject } from '../format/wire.js';
import { storedDate } from './time.js';
import { uncompressedPointBase64 } from '../../certificates/public-key.js';
import type { Certificate } from '../../domain/certificate.js';

/**
 * A certificate, fields in the order of wire-reference §3.5. A whitelist: the sealed private
 * key (and the environment) are not fields of the view, so no change elsewhere can render them.
 */
export function certificateView(row: Certificate): WireObject {
  return {
    token: row.token,
    level: row.level,
    algorithm: row.algorithm,
    cn: row.cn,
    o: row.o,
    ou: row.ou,
    c: row.c,
    st: row.st,
    l: row.l,
    email_address: row.emailAddress,
    public_key: row.publicKey,
    public_key_hash: row.publicKeyHash,
    // Coffer's own: the key as Google Pay's console takes it (P-256 keys only; docs/wallets.md).
    google_pay_public_key: uncompressedPointBase64(row.publicKey),
    csr: row.csr,
    pem: row.pem,
    created_at: storedDate(row.createdAt),
    updated_at: storedDate(row.updatedAt),
  };
}
