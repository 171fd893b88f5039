import type { Insertable, Kysely, Selectable } from 'kysely';
import type { AuditEventsTable, Database } from '../schema.js';

export type AuditEventRow = Selectable<AuditEventsTable>;

/** Filters of the audit log; every one optional. Dates are ISO-8601 bounds on `created_at`. */
export interface AuditFilter {
  actor?: string;
  action?: string;
  from?: string;
  to?: string;
  /** Keyset paging: events older than this `seq` (newest first). */
  beforeSeq?: number;
  count: number;
}

/** Single-query primitives over `audit_events` (append only). */
export class AuditEventsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Insertable<AuditEventsTable>): Promise<void> {
    await this.db.insertInto('audit_events').values(row).execute();
  }

  /** The organization's events, newest first. */
  list(organizationToken: string, filter: AuditFilter): Promise<AuditEventRow[]> {
    let query = this.db.selectFrom('audit_events').selectAll().where('organization_token', '=', organizationToken);
    if (filter.actor !== undefined) query = query.where('actor', '=', filter.actor);
    if (filter.action !== undefined) query = query.where('action', '=', filter.action);
    if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
    if (filter.to !== undefined) query = query.where('created_at', '<', filter.to);
    if (filter.beforeSeq !== undefined) query = query.where('seq', '<', filter.beforeSeq);
    return query.orderBy('seq', 'desc').limit(filter.count).execute();
  }

  /** The distinct actions and actors recorded for an organization (for the filter menus). */
  async facets(organizationToken: string): Promise<{ actions: string[]; actors: string[] }> {
    const actions = await this.db.selectFrom('audit_events').select('action').distinct().where('organization_token', '=', organizationToken).orderBy('action').execute();
    const actors = await this.db.selectFrom('audit_events').select('actor').distinct().where('organization_token', '=', organizationToken).orderBy('actor').execute();
    return { actions: actions.map((r) => r.action), actors: actors.map((r) => r.actor) };
  }
}
