/**
 * Whether an error means "the database cannot be reached right now" rather than a bug: the
 * request could succeed later unchanged, so it is answered 503 errors.service_unavailable with
 * Retry-After (docs/reliability.md), not 500. PostgreSQL only: SQLite is a file in
 * the process, except that its group commit may have lost the ability to fsync (wal-sync.ts).
 */
import { StoreDurabilityError } from './wal-sync.js';

/** Socket and resolver failures while connecting to, or talking with, the server. */
const NETWORK_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);

/** SQLSTATEs of an unreachable or refusing server: class 08 (connection exception), shutdowns, no slots. */
function unavailableSqlState(code: string): boolean {
  return code.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(code);
}

/** node-postgres's own messages for a connection that never came or went away (they carry no code). */
const POOL_MESSAGES = [/^Connection terminated/, /^timeout exceeded when trying to connect/, /^Client has encountered a connection error/, /^Cannot use a pool after calling end/];

export function isStoreUnavailable(error: unknown, depth = 0): boolean {
  if (!(error instanceof Error) || depth > 3) return false;
  if (error instanceof StoreDurabilityError) return true;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || (/^[0-9A-Z]{5}$/.test(code) && unavailableSqlState(code)))) return true;
  if (POOL_MESSAGES.some((pattern) => pattern.test(error.message))) return true;
  // Node reports a refused dual-stack connect as an AggregateError of one error per address.
  if (error instanceof AggregateError) return error.errors.some((inner) => isStoreUnavailable(inner, depth + 1));
  return error.cause !== undefined && isStoreUnavailable(error.cause, depth + 1);
}

/** Seconds a client should wait before trying again. */
export const STORE_RETRY_AFTER_SECONDS = 5;
