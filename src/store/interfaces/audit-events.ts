import type { AuditEvent, AuditFilter, NewAuditEvent } from '../../domain/audit-event.js';

/** Single-query primitives over `audit_events` (append only). */
export interface AuditEventsRepository {
  insert(event: NewAuditEvent): Promise<void>;
  /** The organization's events, newest first (a cursor is the event's `seq`). */
  list(organizationToken: string, filter: AuditFilter): Promise<AuditEvent[]>;
  /** The distinct actions and actors recorded for an organization (for the filter menus). */
  facets(organizationToken: string): Promise<{
    actions: string[];
    actors: string[];
  }>;
}
