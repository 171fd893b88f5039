import type { WireObject } from '../format/wire.js';
import { storedDate } from './time.js';
import type { AuditEvent } from '../../domain/audit-event.js';

/** One audit event on the wire; `details` holds names and roles only (never a secret). */
export function auditEventView(row: AuditEvent): WireObject {
  return {
    token: row.token,
    actor_type: row.actor_type,
    actor: row.actor,
    action: row.action,
    object_type: row.object_type,
    object_id: row.object_id,
    environment_key: row.environment_key,
    address: row.address,
    details: row.details === null ? null : (JSON.parse(row.details) as WireObject),
    created_at: storedDate(row.created_at),
    cursor: String(row.seq),
  };
}
