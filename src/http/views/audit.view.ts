import type { AuditEventRow } from '../../store/repositories/audit-events.repo.js';
import type { WireObject } from '../format/wire.js';
import { storedDate } from './time.js';

/** One audit event on the wire; `details` holds names and roles only (never a secret). */
export function auditEventView(row: AuditEventRow): WireObject {
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
