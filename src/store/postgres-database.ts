import { pgModule } from './pg-module.js';

/** PostgreSQL's SQLSTATEs this module acts on. */
const INVALID_CATALOG_NAME = '3D000';
const DUPLICATE_DATABASE = '42P04';
/** What a CREATE DATABASE racing another one for the same name may get instead of 42P04. */
const UNIQUE_VIOLATION = '23505';
const INSUFFICIENT_PRIVILEGE = '42501';

/** Databases a server always has, tried in turn to run CREATE DATABASE from (as `createdb` does). */
const MAINTENANCE_DATABASES = ['postgres', 'template1'];

/** The database named by a PostgreSQL URL ('' when the URL names none: the server then uses the user's name). */
export function databaseName(url: string): string {
  return decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
}

/** The same URL naming another database of the same server, with the same user, password and options. */
function onDatabase(url: string, database: string): string {
  const other = new URL(url);
  other.pathname = `/${encodeURIComponent(database)}`;
  return other.toString();
}

function sqlState(error: unknown): string | undefined {
  return (error as { code?: unknown }).code as string | undefined;
}

/** A double-quoted identifier: the name as it is, whatever it contains. */
function quoteIdentifier(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

/** The database named by `url` does not exist (an error of connecting to it). */
export function isMissingDatabase(error: unknown): boolean {
  return sqlState(error) === INVALID_CATALOG_NAME;
}

/** What to run by hand when Coffer may not create the database itself. */
export function createDatabaseHint(url: string): string {
  const parsed = new URL(url);
  const user = decodeURIComponent(parsed.username) || '<user>';
  const name = databaseName(url);
  return `create it as a PostgreSQL superuser: createdb -h ${parsed.hostname || 'localhost'} -p ${parsed.port || '5432'} -O ${user} ${name}` +
    ` (or in psql: CREATE DATABASE ${quoteIdentifier(name)} OWNER ${quoteIdentifier(user)};)`;
}

/**
 * Makes sure the database `url` names exists, creating it when the server says it does not
 * (docs/deployment.md, "PostgreSQL: first steps"). Only `init` and `serve` call it. Safe:
 * nothing happens unless connecting failed with "database does not exist"; the name is quoted,
 * never spliced; a database another node created meanwhile counts as created; a user without
 * CREATEDB gets one error saying what to run instead. Returns true when it created the database.
 */
export async function ensurePostgresDatabase(url: string): Promise<boolean> {
  const probe = new (pgModule().Client)({ connectionString: url, connectionTimeoutMillis: 5000 });
  try {
    await probe.connect();
    return false;
  } catch (error) {
    if (!isMissingDatabase(error)) throw error;
  } finally {
    await probe.end().catch(() => undefined);
  }
  const name = databaseName(url);
  if (name === '') throw new Error('COFFER_DATABASE_URL names no database');
  let lastError: unknown;
  for (const maintenance of MAINTENANCE_DATABASES) {
    const admin = new (pgModule().Client)({ connectionString: onDatabase(url, maintenance), connectionTimeoutMillis: 5000 });
    try {
      await admin.connect();
    } catch (error) {
      lastError = error;
      await admin.end().catch(() => undefined);
      continue;
    }
    try {
      await admin.query(`CREATE DATABASE ${quoteIdentifier(name)}`);
      return true;
    } catch (error) {
      // Another node created it meanwhile (seen as either code, depending on when the two met).
      if (sqlState(error) === DUPLICATE_DATABASE || sqlState(error) === UNIQUE_VIOLATION) return false;
      if (sqlState(error) === INSUFFICIENT_PRIVILEGE) {
        throw new Error(`database "${name}" does not exist and this user may not create it; ${createDatabaseHint(url)}`);
      }
      throw error;
    } finally {
      await admin.end().catch(() => undefined);
    }
  }
  throw new Error(`database "${name}" does not exist and no maintenance database (${MAINTENANCE_DATABASES.join(', ')}) could be reached to create it (${(lastError as Error).message}); ${createDatabaseHint(url)}`);
}
