import type { WireObject } from '../format/wire.js';
import { storedDate } from './time.js';
import type { ApiEvent } from '../../domain/event.js';

/** An event, with Spreedly's fields (wire-reference §2.8); `id` is the event's token. */
export function eventView(row: ApiEvent): WireObject {
  return {
    id: row.token,
    request_id: row.request_id,
    event_type: row.event_type,
    object_type: row.object_type,
    object_key: row.object_key,
    created_at: storedDate(row.created_at),
  };
}
