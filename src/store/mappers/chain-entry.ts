import type { Selectable } from 'kysely';
import type { AuditEventsTable, CardAccessRecordsTable } from '../schema.js';
import type { ChainEntry } from '../../domain/audit-chain.js';

/** The recorded columns of an audit event: what its chain hash covers (docs/audit.md). */
export function auditEventEntry(row: Selectable<AuditEventsTable>): ChainEntry {
  return {
    kind: 'audit_event',
    seq: Number(row.seq),
    content: {
      token: row.token,
      organization_token: row.organization_token,
      actor_type: row.actor_type,
      actor: row.actor,
      action: row.action,
      object_type: row.object_type,
      object_id: row.object_id,
      environment_key: row.environment_key,
      address: row.address,
      details: row.details,
      created_at: row.created_at,
    },
    position: row.chain_position === null ? null : Number(row.chain_position),
    prevHash: row.chain_prev_hash,
    hash: row.chain_hash,
  };
}

/** The recorded columns of a card access record: what its chain hash covers. */
export function cardAccessEntry(row: Selectable<CardAccessRecordsTable>): ChainEntry {
  return {
    kind: 'card_access',
    seq: Number(row.seq),
    content: {
      environment_key: row.environment_key,
      payment_method_token: row.payment_method_token,
      operation: row.operation,
      object_type: row.object_type,
      object_id: row.object_id,
      actor_type: row.actor_type,
      actor: row.actor,
      request_id: row.request_id,
      created_at: row.created_at,
    },
    position: row.chain_position === null ? null : Number(row.chain_position),
    prevHash: row.chain_prev_hash,
    hash: row.chain_hash,
  };
}
