import type { Role } from './tenancy.js';

/**
 * An API access secret's record (API.md §2). The secret itself is never stored:
 * only its keyed hash, which authentication looks it up by. Timestamps are ISO-8601 UTC strings
 * (they sort as text).
 */
export interface AccessSecret {
  /** The public key naming the secret (never the secret). */
  key: string;
  organizationToken: string;
  name: string;
  role: Role;
  /** The environments the secret is limited to, or null for every environment of the organization. */
  environmentKeys: string[] | null;
  /** HMAC-SHA-256 (hex) of the secret under the secret-hash key. */
  secretHash: string;
  revokedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** The last authenticated use, to the minute; null when never used. */
  lastUsedAt: string | null;
}

/** What creating a secret stores. */
export type NewAccessSecret = Omit<AccessSecret, 'revokedAt' | 'lastUsedAt'>;
