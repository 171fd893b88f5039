import type { CertificateRow } from '../store/repositories/certificates.repo.js';

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type Certificate = CertificateRow;
