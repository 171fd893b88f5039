import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../schema.js';
import { applyPage, readPage, type PageRequest } from './page.js';
import { journaled, changeIf } from '../change-journal.js';
import { redactablePatchEvent } from '../../domain/event-types.js';

/** Resources that belong to one environment, have a public `token` and list by `seq`. */
export type ScopedTable = 'gateways';

/** The object type each scoped table's events name (docs/events.md, "Event types"). */
const OBJECT_TYPES = { gateways: 'gateway' } as const;
const ADD_EVENTS = { gateways: 'AddGateway' } as const;

/** Scoped resources with a `state` that may be `redacted`. */
export type RedactableTable = 'gateways';

/**
 * The primitives every environment-scoped resource shares: insert, find by token, list a page.
 * Every read is scoped to one environment, so another environment's token is simply not found.
 */
export abstract class EnvironmentScopedRepo<T extends ScopedTable> {
  protected constructor(
    protected readonly db: Kysely<Database>,
    private readonly table: T,
  ) {}

  /** Inserts the resource and records its Add event, atomically. */
  async insert(row: Insertable<Database[T]>): Promise<void> {
    const { token, environment_key: environmentKey, created_at: at } = row as unknown as { token: string; environment_key: string; created_at: string };
    await journaled(this.db, async (db) => {
      await db.insertInto(this.table).values(row as never).execute();
      return { result: undefined, changes: [{ environmentKey, eventType: ADD_EVENTS[this.table], objectType: OBJECT_TYPES[this.table], objectKey: token, at }] };
    });
  }

  find(environmentKey: string, token: string): Promise<Selectable<Database[T]> | undefined> {
    return this.scoped(environmentKey).where('token', '=', token).executeTakeFirst() as Promise<Selectable<Database[T]> | undefined>;
  }

  /** A page; read a part at a time (page.ts): a certificate's PEM alone may be 64 KiB. */
  list(environmentKey: string, page: PageRequest): Promise<Array<Selectable<Database[T]>>> {
    return readPage(page, (part) => applyPage(this.scoped(environmentKey), 'seq', part).execute()) as Promise<Array<Selectable<Database[T]>>>;
  }

  private scoped(environmentKey: string) {
    // Kysely cannot narrow a generic table name; the scoped tables share the columns used here.
    return this.db.selectFrom(this.table as ScopedTable as 'gateways').selectAll().where('environment_key', '=', environmentKey);
  }
}

/** Updates a resource that is not redacted; false when there is none (a redact won a race). */
export async function updateUnlessRedacted<T extends RedactableTable>(
  db: Kysely<Database>,
  table: T,
  key: { environmentKey: string; token: string },
  patch: Updateable<Database[T]>,
): Promise<boolean> {
  const kind = 'Gateway';
  return journaled(db, async (trx) => {
    const result = await trx
      .updateTable(table as RedactableTable as 'gateways')
      .set(patch as Updateable<Database['gateways']>)
      .where('environment_key', '=', key.environmentKey)
      .where('token', '=', key.token)
      .where('state', '!=', 'redacted')
      .executeTakeFirst();
    const changed = Number(result.numUpdatedRows) > 0;
    const at = (patch as { updated_at?: string }).updated_at;
    const change = { environmentKey: key.environmentKey, eventType: redactablePatchEvent(kind, patch as { state?: unknown }), objectType: OBJECT_TYPES[table], objectKey: key.token, at };
    return { result: changed, changes: changeIf(changed, change) };
  });
}
