import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { ApiEvent } from '../domain/event.js';
import { EventsRepo, type Change } from './repositories/events.repo.js';
import { enqueueCallbacks } from './repositories/callbacks.repo.js';

export type { Change } from './repositories/events.repo.js';

/**
 * The one place where a change of an API object becomes an event (docs/events.md). Every repository
 * write that changes such an object goes through `journaled`: the write and its event land in
 * one database transaction (the caller's, when it has opened one), or neither does.
 */

/** Runs `work` in the caller's transaction, or in a new one when the executor is the pool. */
export function atomically<T>(db: Kysely<Database>, work: (db: Kysely<Database>) => Promise<T>): Promise<T> {
  return db.isTransaction ? work(db) : db.transaction().execute(work);
}

/** Records `change` (and runs the listeners) with the executor of the change. */
export async function recordChange(db: Kysely<Database>, change: Change): Promise<ApiEvent> {
  const event = await new EventsRepo(db).record(change);
  // The callbacks the event calls for are queued in the same transaction: a committed change
  // always has its callbacks queued, a rolled-back one never does.
  await enqueueCallbacks(db, event, change.ownCallback !== false, change.environmentSubscribed);
  return event;
}

/**
 * Runs `write` and records the changes it reports, atomically. `write` returns its result and
 * the changes it made (none when a conditional write matched no row).
 */
export function journaled<T>(db: Kysely<Database>, write: (db: Kysely<Database>) => Promise<{ result: T; changes: Change[] }>): Promise<T> {
  return atomically(db, async (trx) => {
    const { result, changes } = await write(trx);
    for (const change of changes) await recordChange(trx, change);
    return result;
  });
}

/** One change, or none when `changed` is false. */
export function changeIf(changed: boolean, change: Change): Change[] {
  return changed ? [change] : [];
}
