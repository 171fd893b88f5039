import type { EventsRepository } from '../interfaces/events.js';
import type { Insertable, InsertResult, Kysely } from 'kysely';
import type { ApiEvent, ChangeEvent } from '../../domain/event.js';
import type { EventType } from '../../domain/event-types.js';
import { orderedToken } from '../../domain/tokens.js';
import type { Database, EventsTable } from '../schema.js';
import { eventOf } from '../mappers/event.js';
import { applyPage, type PageRequest } from './page.js';
import { Precompiled, recordOf } from './precompiled.js';
import { insertRows } from './bulk-insert.js';

/**
 * A change of an API object: a ChangeEvent (domain/event.ts), or one a repository still describes
 * with its event type as text (those move to the services that decide them).
 */
export type Change = Omit<ChangeEvent, 'eventType'> & { eventType: string };

/** What a list of events may filter on besides its page. */
export interface EventFilter {
  eventType?: EventType;
  objectType?: string;
  objectKey?: string;
}

/** The columns of every event `record` writes, in the order of the insert's values. */
const EVENT_COLUMNS = ['token', 'environment_key', 'request_id', 'event_type', 'object_type', 'object_key', 'created_at'] as const;

/**
 * The event insert, compiled by Kysely once per database instead of on every event (building
 * and compiling it was half an event's cost). Deferrable: inside a PostgreSQL
 * transaction it goes out with the transaction's next statement, its failure failing the commit.
 */
const INSERT = new Precompiled<InsertResult>((db, values) => db.insertInto('events').values(recordOf(EVENT_COLUMNS, values) as Insertable<EventsTable>), { deferrable: true });

/** Single-query primitives over `events`; reads are scoped to one environment. */
export class EventsRepo implements EventsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Records one change; the caller runs it in the transaction of the change itself. The event is
   * returned as written: nothing reads it back (a RETURNING cost a tenth of the insert on every
   * event).
   */
  async record(change: Change): Promise<ApiEvent> {
    const event: ApiEvent = {
      token: orderedToken(),
      // Never undefined: the compiled insert binds all seven columns.
      environmentKey: change.environmentKey ?? null,
      requestId: change.requestId ?? null,
      eventType: change.eventType as EventType,
      objectType: change.objectType,
      objectKey: change.objectKey,
      createdAt: change.at ?? new Date().toISOString(),
    };
    // In the order of EVENT_COLUMNS.
    await INSERT.rows(this.db, '', [event.token, event.environmentKey, event.requestId, event.eventType, event.objectType, event.objectKey, event.createdAt]);
    return event;
  }

  /**
   * Several events in one statement (a bulk import's), in the given order; as `record` for each.
   * A few hundred rows a statement keeps within SQLite's bound on parameters.
   */
  async recordMany(changes: readonly Change[]): Promise<ApiEvent[]> {
    const events = changes.map((change): ApiEvent => ({
      token: orderedToken(),
      environmentKey: change.environmentKey ?? null,
      requestId: change.requestId ?? null,
      eventType: change.eventType as EventType,
      objectType: change.objectType,
      objectKey: change.objectKey,
      createdAt: change.at ?? new Date().toISOString(),
    }));
    for (let start = 0; start < events.length; start += 500) {
      const rows = events.slice(start, start + 500).map((event) => ({
        token: event.token,
        environment_key: event.environmentKey,
        request_id: event.requestId,
        event_type: event.eventType,
        object_type: event.objectType,
        object_key: event.objectKey,
        created_at: event.createdAt,
      }));
      await insertRows(this.db, 'events', rows as Insertable<EventsTable>[]);
    }
    return events;
  }

  async find(environmentKey: string, token: string): Promise<ApiEvent | undefined> {
    const row = await this.db.selectFrom('events').selectAll().where('environment_key', '=', environmentKey).where('token', '=', token).executeTakeFirst();
    return row === undefined ? undefined : eventOf(row);
  }

  /** Where an event sits in the environment's feed (a page cursor); undefined when it is not there. */
  positionOf(environmentKey: string, token: string): Promise<{ seq: number } | undefined> {
    return this.db.selectFrom('events').select('seq').where('environment_key', '=', environmentKey).where('token', '=', token).executeTakeFirst();
  }

  async list(environmentKey: string, filter: EventFilter, page: PageRequest): Promise<ApiEvent[]> {
    let query = this.db.selectFrom('events').selectAll().where('environment_key', '=', environmentKey);
    if (filter.objectKey !== undefined) query = query.where('object_key', '=', filter.objectKey);
    if (filter.objectType !== undefined) query = query.where('object_type', '=', filter.objectType);
    if (filter.eventType !== undefined) query = query.where('event_type', '=', filter.eventType);
    return (await applyPage(query, 'seq', page).execute()).map(eventOf);
  }

  /** Deletes events recorded before `cutoff`, at most `limit` of them; how many. */
  async deleteBefore(cutoff: string, limit: number): Promise<number> {
    const doomed = this.db.selectFrom('events').select('seq').where('created_at', '<', cutoff).orderBy('seq').limit(limit);
    const result = await this.db.deleteFrom('events').where('seq', 'in', doomed).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
