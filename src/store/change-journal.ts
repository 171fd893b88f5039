import type { Kysely } from 'kysely';
import type { Database } from './schema.js';
import type { ApiEvent } from '../domain/event.js';
import { EventsRepo, type Change } from './repositories/events.repo.js';
import { enqueueCallbacks } from './repositories/callbacks.repo.js';

export type { Change } from './repositories/events.repo.js';

/**
 * What `repos.journal.record` does (docs/events.md): the event row and the callbacks it calls for,
 * written with the executor of the unit of work the service opened, so a committed change always
 * has them and a rolled-back one never does. Repositories never call it on their own: the service
 * that decided the change does.
 */
export async function recordChange(db: Kysely<Database>, change: Change): Promise<ApiEvent> {
  const event = await new EventsRepo(db).record(change);
  await enqueueCallbacks(db, event, change.ownCallback !== false, change.environmentSubscribed);
  return event;
}

/** As `recordChange` for several changes, their events written in one statement (a bulk import). */
export async function recordChanges(db: Kysely<Database>, changes: readonly Change[]): Promise<void> {
  const events = await new EventsRepo(db).recordMany(changes);
  for (let index = 0; index < events.length; index += 1) {
    const event = events[index] as ApiEvent;
    const change = changes[index] as Change;
    // Nothing to queue for most of an import's events: skip the call, not only its statements.
    if (change.environmentSubscribed === false && (change.ownCallback === false || event.objectType !== 'transaction')) continue;
    await enqueueCallbacks(db, event, change.ownCallback !== false, change.environmentSubscribed);
  }
}
