import { createRequire } from 'node:module';
import type pg from 'pg';

const requireModule = createRequire(import.meta.url);
let loaded: typeof pg | null = null;

/**
 * The PostgreSQL client library, loaded when a PostgreSQL store is first opened: a process on
 * SQLite (the default) never holds it, and every library a process loads stays in its heap for
 * good (docs/benchmarks.md, "Import"). Synchronous, so opening a store stays synchronous.
 */
export function pgModule(): typeof pg {
  loaded ??= requireModule('pg') as typeof pg;
  return loaded;
}
