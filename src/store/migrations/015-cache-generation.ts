import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';

/**
 * The tables whose rows nodes keep in memory (docs/caching.md). Any write to them bumps
 * `cache_generation.generation` in the same transaction, by trigger: a cached copy is only
 * trusted while the generation it was read under is still the store's.
 */
export const CACHED_TABLES = ['organizations', 'environments', 'access_secrets', 'gateways', 'wrapped_keys'] as const;

/**
 * Columns of `access_secrets` whose update bumps the generation: all but `last_used_at`, which
 * authentication itself writes (once a minute per secret and node) and no cache relies on. A new
 * column must be added here by a later migration (test/store/store-contract.test.ts checks).
 */
export const ACCESS_SECRET_CACHED_COLUMNS = ['seq', 'key', 'organization_token', 'name', 'role', 'environment_keys', 'secret_hash', 'revoked_at', 'created_at', 'updated_at'] as const;

const BUMP = 'UPDATE cache_generation SET generation = generation + 1 WHERE id = 1';

/**
 * One row whose generation grows with every change of what nodes cache (docs/caching.md). Triggers,
 * rather than a bump in each service, so no writer can forget it: the API, the portal, the CLI,
 * key rotation, and a write added later all bump it by construction, atomically with the write.
 */
export function cacheGeneration(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('cache_generation')
        .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
        .addColumn('generation', dialect === 'postgres' ? 'bigint' : 'integer', (c) => c.notNull())
        .execute();
      await sql`INSERT INTO cache_generation (id, generation) VALUES (1, 0)`.execute(db);
      if (dialect === 'postgres') await postgresTriggers(db);
      else await sqliteTriggers(db);
    },
  };
}

/** Only the columns a cache relies on: an update of `last_used_at` alone does not bump. */
function updatedColumns(table: (typeof CACHED_TABLES)[number]): string {
  return table === 'access_secrets' ? ` OF ${ACCESS_SECRET_CACHED_COLUMNS.map((c) => `"${c}"`).join(', ')}` : '';
}

async function postgresTriggers(db: Kysely<unknown>): Promise<void> {
  await sql
    .raw(`CREATE FUNCTION coffer_bump_cache_generation() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ${BUMP}; RETURN NULL; END $$`)
    .execute(db);
  for (const table of CACHED_TABLES) {
    await sql
      .raw(`CREATE TRIGGER ${table}_bump_cache AFTER INSERT OR UPDATE${updatedColumns(table)} OR DELETE ON ${table} FOR EACH ROW EXECUTE FUNCTION coffer_bump_cache_generation()`)
      .execute(db);
  }
}

async function sqliteTriggers(db: Kysely<unknown>): Promise<void> {
  for (const table of CACHED_TABLES) {
    for (const event of ['INSERT', `UPDATE${updatedColumns(table)}`, 'DELETE']) {
      const name = `${table}_bump_cache_${event.split(' ')[0]!.toLowerCase()}`;
      await sql.raw(`CREATE TRIGGER ${name} AFTER ${event} ON ${table} BEGIN ${BUMP}; END`).execute(db);
    }
  }
}
