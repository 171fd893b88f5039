import type { Selectable } from 'kysely';
import type { IdempotencyKeysTable } from '../schema.js';
import type { IdempotencyRecord, IdempotencyState } from '../../domain/idempotency.js';

export type IdempotencyRow = Selectable<IdempotencyKeysTable>;

export function idempotencyRecordOf(row: IdempotencyRow): IdempotencyRecord {
  return {
    environmentKey: row.environment_key,
    key: row.idempotency_key,
    requestHash: row.request_hash,
    state: row.state as IdempotencyState,
    responseStatus: row.response_status,
    responseContentType: row.response_content_type,
    responseBody: row.response_body,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

export function idempotencyRow(record: IdempotencyRecord): IdempotencyRow {
  return {
    environment_key: record.environmentKey,
    idempotency_key: record.key,
    request_hash: record.requestHash,
    state: record.state,
    response_status: record.responseStatus,
    response_content_type: record.responseContentType,
    response_body: record.responseBody,
    created_at: record.createdAt,
    expires_at: record.expiresAt,
  };
}
