import type pg from 'pg';
import { pgModule } from './pg-module.js';
import { Kysely, Migrator, sql, type Migration, type MigrationProvider } from 'kysely';
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
import { cacheGeneration } from './migrations/015-cache-generation.js';
import { partialIndexes } from './migrations/016-partial-indexes.js';
import { portalMemberships } from './migrations/017-portal-memberships.js';
import { callbackFairness } from './migrations/018-callback-fairness.js';
import { portabilityImport } from './migrations/019-portability-import.js';
import { upstreams } from './migrations/020-upstreams.js';
import { paymentMethodExports } from './migrations/023-payment-method-exports.js';
import { masterKeyChecks } from './migrations/021-master-key-checks.js';
import { auditChain } from './migrations/022-audit-chain.js';
import { portalSearch } from './migrations/024-portal-search.js';
import { overviewFigures } from './migrations/025-overview-figures.js';
import { wallets } from './migrations/026-wallets.js';
import { masterKeyRotations } from './migrations/027-master-key-rotations.js';
import { portabilityClosing } from './migrations/030-portability-closing.js';
import { openSqliteStore } from './sqlite-store.js';
import { CofferPostgresDialect } from './postgres-dialect.js';
import { CommitFeed, type CommitSubscription } from './commit-feed.js';

/** Connections of the PostgreSQL pool: open, idle among them, and queries waiting for one. */
export interface PoolUse {
  total: number;
  idle: number;
  waiting: number;
}

/** An open store: the typed query builder plus what the rest of the code needs to know about it. */
export interface StoreHandle {
  db: Kysely<Database>;
  dialect: Dialect;
  /**
   * Resolves once every commit this process has seen is durable (SQLite group commit,
   * wal-sync.ts); null when nothing is pending, and always on PostgreSQL, whose commits are
   * durable when they return. Answers wait for it.
   */
  settled(): Promise<void> | null;
  /**
   * Every durable commit's latency and batch size (docs/metrics.md, "Store"; the bench): on SQLite one
   * sample per group-commit fsync, with the commits it carried; on PostgreSQL one per COMMIT.
   */
  commits: CommitSubscription;
  /** The PostgreSQL pool's use now; null on SQLite (one connection, no pool). */
  poolUse(): PoolUse | null;
  close(): Promise<void>;
}

// Explicit list, in order; a migration is never edited once released, only added.
export function migrationsFor(dialect: Dialect): Record<string, Migration> {
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
    '015-cache-generation': cacheGeneration(dialect),
    '016-partial-indexes': partialIndexes,
    '017-portal-memberships': portalMemberships(dialect),
    '018-callback-fairness': callbackFairness,
    '019-portability-import': portabilityImport,
    '020-upstreams': upstreams,
    '021-master-key-checks': masterKeyChecks,
    '022-audit-chain': auditChain(dialect),
    '023-payment-method-exports': paymentMethodExports,
    '024-portal-search': portalSearch(dialect),
    '025-overview-figures': overviewFigures,
    '026-wallets': wallets,
    '027-master-key-rotations': masterKeyRotations,
    '030-portability-closing': portabilityClosing,
  };
}

function provider(dialect: Dialect): MigrationProvider {
  return { getMigrations: async () => migrationsFor(dialect) };
}

// int8 (bigserial, bigint) arrives as a string from pg by default; our values fit a double.
const INT8_OID = 20;
const pgTypes = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === INT8_OID ? (value: string) => Number(value) : pgModule().types.getTypeParser(oid, format as 'text')) as typeof pg.types.getTypeParser,
};

function openPostgres(url: string, commits: CommitFeed): { db: Kysely<Database>; pool: pg.Pool } {
  // pipeline: statements nobody waits for go out behind each other (postgres-pipeline.ts).
  const pool = new (pgModule().Pool)({ connectionString: url, max: 10, types: pgTypes, connectionTimeoutMillis: 5000, pipeline: true });
  // An idle client that loses its server (restart, network) must not crash the process.
  pool.on('error', () => undefined);
  // A connection that drops while checked out (a PostgreSQL restart under load) raises 'error' on
  // the client; unheard, that would end the process. The query in flight fails on its own.
  pool.on('connect', (client) => client.on('error', () => undefined));
  return { db: new Kysely<Database>({ dialect: new CofferPostgresDialect(pool, commits) }), pool };
}

/** Opens the configured store without touching its schema. */
export function openStore(config: StoreConfig): StoreHandle {
  const commits = new CommitFeed();
  if (config.kind === 'sqlite') {
    const sqlite = openSqliteStore(config.path, { commits });
    return { db: sqlite.db, dialect: 'sqlite', settled: () => sqlite.settled(), commits, poolUse: () => null, close: () => sqlite.close() };
  }
  const { db, pool } = openPostgres(config.url, commits);
  return {
    db,
    dialect: 'postgres',
    settled: () => null,
    commits,
    poolUse: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: () => db.destroy(),
  };
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
