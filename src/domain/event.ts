import type { EventType } from './event-types.js';

/**
 * One change of an API object, as the events feed shows it (docs/events.md; wire-reference §2.8).
 * `createdAt` is an ISO-8601 UTC string, the wire format; it sorts as text.
 */
export interface ApiEvent {
  token: string;
  /** Null for a change outside any environment (an organization's access secret for all of them). */
  environmentKey: string | null;
  /** The X-Request-Id of the API request that made the change; null outside a request. */
  requestId: string | null;
  eventType: EventType;
  objectType: string;
  objectKey: string;
  createdAt: string;
}

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
