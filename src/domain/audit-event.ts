import type { AuditEventRow } from '../store/repositories/audit-events.repo.js';

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type AuditEvent = AuditEventRow;
