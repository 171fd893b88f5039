import type { EventRow } from '../store/repositories/events.repo.js';
import type { EventType } from './event-types.js';

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type ApiEvent = EventRow;

/**
 * A change of an API object, as the service that decided it describes it (docs/events.md). The
 * service records it in the unit of work of the change itself (`work.journal.record`), so the
 * change and its event (and the callbacks it calls for) land together or not at all.
 */
export interface ChangeEvent {
  environmentKey: string | null;
  eventType: EventType;
  objectType: string;
  objectKey: string;
  /** When the change happened (the record's own timestamp); now when absent. */
  at?: string | null | undefined;
  /**
   * Whether the object has a callback destination of its own (a transaction's callback_url),
   * known from the record written with the change; false skips the look for one, undefined looks.
   */
  ownCallback?: boolean;
  /**
   * Whether the environment had a callback subscription when the request began, as the service
   * read it with the environment (docs/caching.md); false skips the look for one, undefined looks.
   */
  environmentSubscribed?: boolean;
  /** The X-Request-Id of the API request that made the change; absent outside a request (the sweep, the CLI). */
  requestId?: string | null;
}
