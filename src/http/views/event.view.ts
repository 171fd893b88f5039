import type { WireObject } from '../format/wire.js';
import { storedDate } from './time.js';
import type { ApiEvent } from '../../domain/event.js';

/** An event, with Spreedly's fields (wire-reference §2.8); `id` is the event's token. */
export function eventView(row: ApiEvent): WireObject {
  return {
    id: row.token,
    request_id: row.requestId,
    event_type: row.eventType,
    object_type: row.objectType,
    object_key: row.objectKey,
    created_at: storedDate(row.createdAt),
  };
}
