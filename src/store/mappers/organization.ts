import type { Insertable, Selectable } from 'kysely';
import type { OrganizationsTable } from '../schema.js';
import type { Organization } from '../../domain/organization.js';

export type OrganizationRow = Selectable<OrganizationsTable>;

export function organizationOf(row: OrganizationRow): Organization {
  return { token: row.token, name: row.name, active: row.active === 1, createdAt: row.created_at, updatedAt: row.updated_at };
}

export function organizationRow(organization: Organization): Insertable<OrganizationsTable> {
  return { token: organization.token, name: organization.name, active: organization.active ? 1 : 0, created_at: organization.createdAt, updated_at: organization.updatedAt };
}
