import { NO_REQUEST, type RequestMeta } from '../domain/request.js';
import type { EnvironmentPatch } from '../domain/environment.js';
import type { StoreAccess } from '../store/store-access.js';

/**
 * Changes an environment's settings and records UpdateEnvironment (docs/events.md) in the same
 * unit of work; nothing is recorded when there is no such environment (false). The event passes
 * no `environmentSubscribed`: the change may be the one that set the subscription, so it is
 * looked for (docs/caching.md).
 */
export function changeEnvironment(store: StoreAccess<'environments' | 'journal'>, key: string, patch: EnvironmentPatch, request: RequestMeta = NO_REQUEST): Promise<boolean> {
  return store.unitOfWork(async (repos) => {
    const changed = await repos.environments.update(key, patch);
    if (changed) await repos.journal.record({ environmentKey: key, eventType: 'UpdateEnvironment', objectType: 'environment', objectKey: key, at: patch.updatedAt });
    return changed;
  }, { request });
}
