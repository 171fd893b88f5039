import type { WireObject } from '../format/wire.js';
import { storedDate } from './time.js';
import type { AuditEvent } from '../../domain/audit-event.js';

/** One audit event on the wire; `details` holds names and roles only (never a secret). */
export function auditEventView(row: AuditEvent): WireObject {
  return {
    token: row.token,
    actor_type: row.actorType,
    actor: row.actor,
    action: row.action,
    object_type: row.objectType,
    object_id: row.objectId,
    environment_key: row.environmentKey,
    address: row.address,
    details: row.details,
    created_at: storedDate(row.createdAt),
    cursor: String(row.cursor),
  };
}
