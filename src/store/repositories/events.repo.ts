import type { Insertable, InsertResult, Kysely, Selectable } from 'kysely';
import { currentRequestId } from '../../domain/request-context.js';
import { orderedToken } from '../../domain/tokens.js';
import type { Database, EventsTable } from '../schema.js';
import { applyPage, type PageRequest } from './page.js';
import { Precompiled, recordOf } from './precompiled.js';

export type EventRow = Selectable<EventsTable>;
/** An event as `record` wrote it: every column but the store-assigned `seq`. */
export type RecordedEvent = Omit<EventRow, 'seq'>;

/** A change of an API object, as the repositories describe it. */
export interface Change {
  environmentKey: string | null;
  eventType: string;
  objectType: string;
  objectKey: string;
  /** When the change happened (the row's own timestamp); now when absent. */
  at?: string | null | undefined;
  /**
   * Whether the object has a callback destination of its own (a transaction's callback_url), known
   * from the row written with the change; false skips the look for one, undefined looks.
   */
  ownCallback?: boolean;
  /** See ChangeEvent (domain/event.ts). */
  environmentSubscribed?: boolean;
  /** See ChangeEvent (domain/event.ts). */
  requestId?: string | null;
}

/** What a list of events may filter on besides its page. */
export interface EventFilter {
  eventType?: string;
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
export class EventsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  /**
   * Records one change; the caller runs it in the transaction of the change itself. The event is
   * returned as written, without its `seq`: nothing reads it back (a RETURNING cost a
   * tenth of the insert on every event).
   */
  async record(change: Change): Promise<RecordedEvent> {
    const event: RecordedEvent = {
      token: orderedToken(),
      // Never undefined: the compiled insert binds all seven columns.
      environment_key: change.environmentKey ?? null,
      request_id: change.requestId !== undefined ? change.requestId : (currentRequestId() ?? null),
      event_type: change.eventType,
      object_type: change.objectType,
      object_key: change.objectKey,
      created_at: change.at ?? new Date().toISOString(),
    };
    await INSERT.rows(this.db, '', EVENT_COLUMNS.map((column) => event[column]));
    return event;
  }

  find(environmentKey: string, token: string): Promise<EventRow | undefined> {
    return this.db.selectFrom('events').selectAll().where('environment_key', '=', environmentKey).where('token', '=', token).executeTakeFirst();
  }

  list(environmentKey: string, filter: EventFilter, page: PageRequest): Promise<EventRow[]> {
    let query = this.db.selectFrom('events').selectAll().where('environment_key', '=', environmentKey);
    if (filter.objectKey !== undefined) query = query.where('object_key', '=', filter.objectKey);
    if (filter.objectType !== undefined) query = query.where('object_type', '=', filter.objectType);
    if (filter.eventType !== undefined) query = query.where('event_type', '=', filter.eventType);
    return applyPage(query, 'seq', page).execute();
  }

  /** Deletes events recorded before `cutoff`, at most `limit` of them; how many. */
  async deleteBefore(cutoff: string, limit: number): Promise<number> {
    const doomed = this.db.selectFrom('events').select('seq').where('created_at', '<', cutoff).orderBy('seq').limit(limit);
    const result = await this.db.deleteFrom('events').where('seq', 'in', doomed).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
