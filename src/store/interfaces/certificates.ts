import type { Certificate, NewCertificate } from '../../domain/certificate.js';
import type { PageRequest } from '../repositories/page.js';

/**
 * Single-query primitives over `certificates`; every read is scoped to one environment, so another
 * environment's token is simply not found. The writes record no event: the service that makes a
 * change records it in the same unit of work (docs/events.md).
 */
export interface CertificatesRepository {
  insert(certificate: NewCertificate): Promise<void>;
  find(environmentKey: string, token: string): Promise<Certificate | undefined>;
  /** Where a certificate sits in the environment's list (a page cursor); undefined when it is not there. */
  positionOf(environmentKey: string, token: string): Promise<{
    seq: number;
  } | undefined>;
  /** A page; read a part at a time (page.ts): a certificate's PEM alone may be 64 KiB. */
  list(environmentKey: string, page: PageRequest): Promise<Certificate[]>;
  /**
   * The environment's certificates that still hold a key (not redacted), oldest first, at most
   * `limit`: the wallet keys a payment token may be for (docs/wallets.md).
   */
  usable(environmentKey: string, limit: number): Promise<Certificate[]>;
  /** Attaches (or replaces) the signed certificate; false when there is no such certificate. */
  attachPem(environmentKey: string, token: string, pem: string, updatedAt: string): Promise<boolean>;
  /**
   * Erases the private key, the signed certificate and the CSR and marks the row redacted; false
   * when there is no such certificate or it is redacted already.
   */
  redact(environmentKey: string, token: string, redactedAt: string): Promise<boolean>;
}
