import { AsyncLocalStorage } from 'node:async_hooks';

/** What the store needs to know about the API request a write belongs to. */
interface RequestContext {
  requestId: string;
}

const storage = new AsyncLocalStorage<RequestContext>();

/**
 * Runs `work` (and everything it starts) as part of the request `requestId`: events recorded
 * meanwhile carry it as `request_id`, without passing it through every service.
 */
export function runInRequest<T>(requestId: string, work: () => T): T {
  return storage.run({ requestId }, work);
}

/** The X-Request-Id of the request being served, or null (the sweep, the CLI). */
export function currentRequestId(): string | null {
  return storage.getStore()?.requestId ?? null;
}
