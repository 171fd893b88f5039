import type { OrganizationRow } from '../store/repositories/organizations.repo.js';

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type Organization = OrganizationRow;
