import type { Selectable } from 'kysely';
import type { ApiEvent } from '../../domain/event.js';
import type { EventType } from '../../domain/event-types.js';
import type { EventsTable } from '../schema.js';

/** An `events` row as the domain names it; `event_type` holds only the types recorded. */
export function eventOf(row: Selectable<EventsTable>): ApiEvent {
  return {
    token: row.token,
    environmentKey: row.environment_key,
    requestId: row.request_id,
    eventType: row.event_type as EventType,
    objectType: row.object_type,
    objectKey: row.object_key,
    createdAt: row.created_at,
  };
}
