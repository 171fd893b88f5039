import type { Insertable, Selectable } from 'kysely';
import type { AccessSecretsTable } from '../schema.js';
import type { AccessSecret, NewAccessSecret } from '../../domain/access-secret.js';
import type { Role } from '../../domain/tenancy.js';

export type AccessSecretRow = Selectable<AccessSecretsTable>;

export function accessSecretOf(row: AccessSecretRow): AccessSecret {
  return {
    key: row.key,
    organizationToken: row.organization_token,
    name: row.name,
    role: row.role as Role,
    environmentKeys: row.environment_keys === null ? null : (JSON.parse(row.environment_keys) as string[]),
    secretHash: row.secret_hash,
    revokedAt: row.revoked_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    lastUsedAt: row.last_used_at,
  };
}

export function newAccessSecretRow(secret: NewAccessSecret): Insertable<AccessSecretsTable> {
  return {
    key: secret.key,
    organization_token: secret.organizationToken,
    name: secret.name,
    role: secret.role,
    environment_keys: secret.environmentKeys === null ? null : JSON.stringify(secret.environmentKeys),
    secret_hash: secret.secretHash,
    revoked_at: null,
    created_at: secret.createdAt,
    updated_at: secret.updatedAt,
  };
}
