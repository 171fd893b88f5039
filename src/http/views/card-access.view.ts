import type { WireObject } from '../format/wire.js';
import { storedDate } from './time.js';
import type { StoredCardAccessRecord } from '../../domain/card-access.js';

/** One access record on the wire: who opened the card data, for what (never the data). */
export function cardAccessView(row: StoredCardAccessRecord): WireObject {
  return {
    operation: row.operation,
    object_type: row.objectType,
    object_id: row.objectId,
    actor_type: row.actorType,
    actor: row.actor,
    request_id: row.requestId,
    created_at: storedDate(row.createdAt),
    cursor: String(row.cursor),
  };
}
