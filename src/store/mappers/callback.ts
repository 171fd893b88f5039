import type { Selectable } from 'kysely';
import type { CallbackAttempt, CallbackDelivery, CallbackDestination, CallbackFormat, CallbackKind, DeliveryState } from '../../domain/callback.js';
import type { CallbackAttemptsTable, CallbackDeliveriesTable, CallbackDestinationsTable } from '../schema.js';

/** A `callback_deliveries` row as the domain names it; kind, format and state hold only the values written. */
export function deliveryOf(row: Selectable<CallbackDeliveriesTable>): CallbackDelivery {
  return {
    token: row.token,
    environmentKey: row.environment_key,
    eventToken: row.event_token,
    kind: row.kind as CallbackKind,
    url: row.url,
    format: row.format as CallbackFormat,
    state: row.state as DeliveryState,
    attempts: row.attempts,
    nextAttemptAt: row.next_attempt_at,
    claimedUntil: row.claimed_until,
    claimId: row.claim_id,
    giveUpAt: row.give_up_at,
    lastStatus: row.last_status,
    lastError: row.last_error,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    destination: row.destination,
  };
}

export function attemptOf(row: Selectable<CallbackAttemptsTable>): CallbackAttempt {
  return { deliveryToken: row.delivery_token, attempt: row.attempt, status: row.status, latencyMs: row.latency_ms, error: row.error, createdAt: row.created_at };
}

export function destinationOf(row: Selectable<CallbackDestinationsTable>): CallbackDestination {
  return { environmentKey: row.environment_key, destination: row.destination, failures: row.failures, blockedUntil: row.blocked_until, updatedAt: row.updated_at };
}
