import type { AccessSecret, NewAccessSecret } from '../../domain/access-secret.js';
import type { PageRequest } from '../repositories/page.js';

/**
 * Single-query primitives over `access_secrets`. The events of their changes are recorded by the
 * services that decide them (docs/events.md).
 */
export interface AccessSecretsRepository {
  /** Inserts the secret's record (only its hash is stored). */
  insert(secret: NewAccessSecret): Promise<void>;
  /** The live (not revoked) secret with this hash, if any. */
  findLiveByHash(secretHash: string): Promise<AccessSecret | undefined>;
  find(key: string): Promise<AccessSecret | undefined>;
  listByOrganization(organizationToken: string | null, page: PageRequest): Promise<AccessSecret[]>;
  /** Revokes a live secret: the secret as revoked, or undefined when none was live. */
  revoke(key: string, revokedAt: string): Promise<AccessSecret | undefined>;
  /** Records a use (callers throttle this to once a minute per secret). */
  touch(key: string, usedAt: string): Promise<void>;
}
