import type { Organization } from '../../domain/organization.js';

/** Single-query primitives over `organizations`. */
export interface OrganizationsRepository {
  insert(organization: Organization): Promise<void>;
  find(token: string): Promise<Organization | undefined>;
  list(): Promise<Organization[]>;
  setActive(token: string, active: boolean, updatedAt: string): Promise<boolean>;
  isEmpty(): Promise<boolean>;
}
