import type { Insertable, Selectable } from 'kysely';
import type { AuditEventsTable } from '../schema.js';
import type { AuditActorType, AuditDetails, AuditEvent, NewAuditEvent } from '../../domain/audit-event.js';

export type AuditEventRow = Selectable<AuditEventsTable>;

export function auditEventOf(row: AuditEventRow): AuditEvent {
  return {
    token: row.token,
    organizationToken: row.organization_token,
    actorType: row.actor_type as AuditActorType,
    actor: row.actor,
    action: row.action,
    objectType: row.object_type,
    objectId: row.object_id,
    environmentKey: row.environment_key,
    address: row.address,
    details: row.details === null ? null : (JSON.parse(row.details) as AuditDetails),
    createdAt: row.created_at,
    // The log's order is the insertion order (`seq`), newest first.
    cursor: Number(row.seq),
  };
}

export function newAuditEventRow(event: NewAuditEvent): Insertable<AuditEventsTable> {
  return {
    token: event.token,
    organization_token: event.organizationToken,
    actor_type: event.actorType,
    actor: event.actor,
    action: event.action,
    object_type: event.objectType,
    object_id: event.objectId,
    environment_key: event.environmentKey,
    address: event.address,
    details: event.details === null ? null : JSON.stringify(event.details),
    created_at: event.createdAt,
  };
}
