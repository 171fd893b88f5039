import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { Kysely, Migrator, PostgresDialect, sql, type Migration, type MigrationProvider } from 'kysely';
import type { StoreConfig } from '../config/config.js';
import type { Database } from './schema.js';
import type { Dialect } from './dialect.js';
import { foundation } from './migrations/001-foundation.js';
import { paymentMethods } from './migrations/002-payment-methods.js';
import { gatewayTransactions } from './migrations/003-gateway-transactions.js';
import { receiversAndCertificates } from './migrations/004-receivers-certificates.js';
import { idempotencyKeyHashes } from './migrations/006-idempotency-key-hashes.js';
import { portal } from './migrations/009-portal.js';
import { cardCapture } from './migrations/010-card-capture.js';
import { eventsAndCallbacks } from './migrations/011-events-callbacks.js';
import { portalGaps } from './migrations/012-portal-gaps.js';
import { retryChains } from './migrations/013-retry-chains.js';
import { workflows } from './migrations/014-workflows.js';
import { CofferSqliteDialect } from './sqlite-dialect.js';

/** An open store: the typed query builder plus what the rest of the code needs to know about it. */
export interface StoreHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  close(): Promise<void>;
}

// Explicit list, in order; a migration is never edited once released, only added.
function migrationsFor(dialect: Dialect): Record<string, Migration> {
  return {
    '001-foundation': foundation(dialect),
    '002-payment-methods': paymentMethods(dialect),
    '003-gateway-transactions': gatewayTransactions(),
    '004-receivers-certificates': receiversAndCertificates(dialect),
    '006-idempotency-key-hashes': idempotencyKeyHashes(),
    '009-portal': portal(dialect),
    '010-card-capture': cardCapture(),
    '011-events-callbacks': eventsAndCallbacks(dialect),
    '012-portal-gaps': portalGaps(),
    '013-retry-chains': retryChains(),
    '014-workflows': workflows(dialect),
  };
}

function provider(dialect: Dialect): MigrationProvider {
  return { getMigrations: async () => migrationsFor(dialect) };
}

function openSqlite(file: string): Kysely<Database> {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const handle = new BetterSqlite3(file);
  // WAL lets readers proceed during a write; synchronous=FULL makes every acknowledged
  // commit durable (fsync of the WAL), which a vault needs more than raw write speed.
  handle.pragma('journal_mode = WAL');
  handle.pragma('synchronous = FULL');
  handle.pragma('foreign_keys = ON');
  // Redacted ciphertext is overwritten on disk, not left in free pages.
  handle.pragma('secure_delete = ON');
  handle.pragma('busy_timeout = 5000');
  cachePreparedStatements(handle);
  return new Kysely<Database>({ dialect: new CofferSqliteDialect({ database: handle }) });
}

/** Distinct SQL texts kept prepared; Coffer's queries are a few hundred shapes at most. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * Kysely prepares every statement again on each call; parsing and planning was ~13% of a
 * purchase (docs/benchmarks.md). Statements are reused per SQL text instead. Safe here: one
 * connection, statements run to completion before the next (Coffer never streams results), and
 * SQLite re-prepares a cached statement by itself after a schema change.
 */
function cachePreparedStatements(handle: BetterSqlite3.Database): void {
  const prepare = handle.prepare.bind(handle);
  const cache = new Map<string, ReturnType<typeof prepare>>();
  handle.prepare = ((sql: string) => {
    let statement = cache.get(sql);
    if (statement === undefined) {
      statement = prepare(sql);
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(sql, statement);
    }
    return statement;
  }) as typeof handle.prepare;
}

// int8 (bigserial, bigint) arrives as a string from pg by default; our values fit a double.
const INT8_OID = 20;
const pgTypes = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

function openPostgres(url: string): Kysely<Database> {
  const pool = new pg.Pool({ connectionString: url, max: 10, types: pgTypes, connectionTimeoutMillis: 5000 });
  // An idle client that loses its server (restart, network) must not crash the process.
  pool.on('error', () => undefined);
  // A connection that drops while checked out (a PostgreSQL restart under load) raises 'error' on
  // the client; unheard, that would end the process. The query in flight fails on its own.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/** Opens the configured store without touching its schema. */
export function openStore(config: StoreConfig): StoreHandle {
  const dialect: Dialect = config.kind;
  const db = config.kind === 'sqlite' ? openSqlite(config.path) : openPostgres(config.url);
  return { db, dialect, close: () => db.destroy() };
}

/**
 * Applies every pending migration, atomically. Safe from several processes at once: Kysely
 * takes an advisory lock on PostgreSQL; on SQLite the migration transaction is BEGIN IMMEDIATE.
 */
export async function migrateStore(store: StoreHandle): Promise<string[]> {
  const migrator = new Migrator({ db: store.db, provider: provider(store.dialect) });
  const { error, results } = await migrator.migrateToLatest();
  if (error !== undefined) {
    throw error instanceof Error ? error : new Error(String(error));
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}

/** True when the store answers a trivial query. */
export async function storeIsReachable(store: StoreHandle): Promise<boolean> {
  try {
    await sql`select 1`.execute(store.db);
    return true;
  } catch {
    return false;
  }
}
