import type { ApiEvent } from '../../domain/event.js';
import type { Change, EventFilter } from '../repositories/events.repo.js';
import type { PageRequest } from '../repositories/page.js';

/** Single-query primitives over `events`; reads are scoped to one environment. */
export interface EventsRepository {
  /**
   * Records one change; the caller runs it in the transaction of the change itself. The event is
   * returned as written: nothing reads it back (a RETURNING cost a tenth of the insert on every
   * event).
   */
  record(change: Change): Promise<ApiEvent>;
  /**
   * Several events in one statement (a bulk import's), in the given order; as `record` for each.
   * A few hundred rows a statement keeps within SQLite's bound on parameters.
   */
  recordMany(changes: readonly Change[]): Promise<ApiEvent[]>;
  find(environmentKey: string, token: string): Promise<ApiEvent | undefined>;
  /** Where an event sits in the environment's feed (a page cursor); undefined when it is not there. */
  positionOf(environmentKey: string, token: string): Promise<{
    seq: number;
  } | undefined>;
  list(environmentKey: string, filter: EventFilter, page: PageRequest): Promise<ApiEvent[]>;
  /** Deletes events recorded before `cutoff`, at most `limit` of them; how many. */
  deleteBefore(cutoff: string, limit: number): Promise<number>;
}
