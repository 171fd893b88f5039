import type { Core } from '../app.js';
import type { Config } from '../config/config.js';
import { databaseName, ensurePostgresDatabase } from '../store/postgres-database.js';
import { NotEmptyError } from '../services/tenancy.service.js';
import type { FirstCredentials } from './start-banner.js';

/** The portal owner created on a fresh installation. */
export const INITIAL_OWNER_EMAIL = 'owner@coffer.local';

/**
 * Initialises an empty database, the same way for `init` and `serve`, on SQLite and PostgreSQL:
 * organization `default`, environment `sandbox`, an admin access secret, and the portal owner
 * (with a generated password, shown once). Throws NotEmptyError when the database is not empty.
 */
export async function initialise(core: Core): Promise<FirstCredentials> {
  const init = await core.tenancy.init();
  const owner = await core.portalUsers.createInitialOwner(init.organization_token, INITIAL_OWNER_EMAIL);
  return { ...init, owner };
}

/** As `initialise`; null when the database was not empty (or another node got there first). */
export async function initialiseIfEmpty(core: Core): Promise<FirstCredentials | null> {
  if (!(await core.tenancy.isEmpty())) return null;
  try {
    return await initialise(core);
  } catch (error) {
    if (error instanceof NotEmptyError) return null;
    throw error;
  }
}

/**
 * `init` and `serve` create the database when there is none: on SQLite the file (when the store
 * opens), on PostgreSQL the database the URL names, when the server says it does not exist and the
 * user may create it (src/store/postgres-database.ts). Says so on stderr when it did.
 */
export async function createDatabaseIfMissing(config: Config): Promise<void> {
  if (config.store.kind !== 'postgres') return;
  if (await ensurePostgresDatabase(config.store.url)) {
    process.stderr.write(`Created PostgreSQL database "${databaseName(config.store.url)}".\n`);
  }
}
