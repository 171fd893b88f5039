import type { AuditEventsRepository } from '../interfaces/audit-events.js';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { auditEventOf, newAuditEventRow } from '../mappers/audit-event.js';
import type { AuditEvent, AuditFilter, NewAuditEvent } from '../../domain/audit-event.js';

/** Single-query primitives over `audit_events` (append only). */
export class AuditEventsRepo implements AuditEventsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(event: NewAuditEvent): Promise<void> {
    await this.db.insertInto('audit_events').values(newAuditEventRow(event)).execute();
  }

  /** The organization's events, newest first (a cursor is the event's `seq`). */
  async list(organizationToken: string, filter: AuditFilter): Promise<AuditEvent[]> {
    let query = this.db.selectFrom('audit_events').selectAll().where('organization_token', '=', organizationToken);
    if (filter.actor !== undefined) query = query.where('actor', '=', filter.actor);
    if (filter.action !== undefined) query = query.where('action', '=', filter.action);
    if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
    if (filter.to !== undefined) query = query.where('created_at', '<', filter.to);
    if (filter.before !== undefined) query = query.where('seq', '<', filter.before);
    return (await query.orderBy('seq', 'desc').limit(filter.count).execute()).map(auditEventOf);
  }

  /** The distinct actions and actors recorded for an organization (for the filter menus). */
  async facets(organizationToken: string): Promise<{ actions: string[]; actors: string[] }> {
    const actions = await this.db.selectFrom('audit_events').select('action').distinct().where('organization_token', '=', organizationToken).orderBy('action').execute();
    const actors = await this.db.selectFrom('audit_events').select('actor').distinct().where('organization_token', '=', organizationToken).orderBy('actor').execute();
    return { actions: actions.map((r) => r.action), actors: actors.map((r) => r.actor) };
  }
}
