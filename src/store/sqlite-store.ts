import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely } from 'kysely';
import type { Database } from './schema.js';
import { CofferSqliteDialect, type SqliteDurability } from './sqlite-dialect.js';
import { Checkpointer, type WalBounds } from './checkpointer.js';
import { CommitFeed } from './commit-feed.js';
import { seenCommit } from './request-commits.js';
import { WalFileSyncer, WalSync, type FileSyncer } from './wal-sync.js';

/** An open SQLite store: the query builder and what group commit needs from outside. */
export interface SqliteStore {
  db: Kysely<Database>;
  /** Off-loop WAL checkpoints (null without WAL). */
  checkpointer: Checkpointer | null;
  /**
   * Resolves once every commit the current request could have seen (outside a request: every
   * commit this process has seen, its own or another process's) is durable; null when nothing is pending.
   */
  settled(): Promise<void> | null;
  close(): Promise<void>;
}

/** Distinct SQL texts kept prepared; Coffer's queries are a few hundred shapes at most. */
const STATEMENT_CACHE_SIZE = 1000;

export interface SqliteOpenOptions {
  /** Test seam: a different way to make the WAL durable (counting, holding). */
  fileSyncer?: (databaseFile: string) => FileSyncer;
  /** Where each durable commit is published: one sample per group-commit fsync, with its batch size. */
  commits?: CommitFeed;
  /** Test seam: commits between off-loop checkpoints, and the driver the checkpoint worker loads. */
  checkpoints?: { every?: number; driver?: string; bounds?: WalBounds };
}

/**
 * Creates the database file empty with mode 0600 unless it exists (SQLite takes an empty file
 * for an empty database). SQLite creates its -wal, -shm and -journal itself, whenever it needs
 * them again, with the mode of the database file (os_unix.c, findCreateFileMode): a database
 * born 0600 keeps them 0600 too, where SQLite alone would make all of them 0644 under the usual
 * umask. What is inside is password hashes, personal data and the audit log (docs/deployment.md).
 */
function createPrivately(file: string): void {
  try {
    fs.closeSync(fs.openSync(file, 'wx', 0o600));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

export function openSqliteStore(file: string, options: SqliteOpenOptions = {}): SqliteStore {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  createPrivately(file);
  const handle = new BetterSqlite3(file);
  const wal = String(handle.pragma('journal_mode = WAL', { simple: true })).toLowerCase() === 'wal';
  // In WAL mode commits are made durable by group commit (wal-sync.ts): NORMAL here, one shared
  // fdatasync per batch there, awaited before anything is acknowledged. Without WAL (a file
  // system that refuses it) every commit syncs itself, as before.
  handle.pragma(wal ? 'synchronous = NORMAL' : 'synchronous = FULL');
  handle.pragma('foreign_keys = ON');
  // Redacted ciphertext is overwritten on disk, not left in free pages.
  handle.pragma('secure_delete = ON');
  handle.pragma('busy_timeout = 5000');
  // A unit of work is a savepoint inside the group-commit batch; the pages it changes are copied to
  // the statement journal first. On disk (SQLite's default once it passes 64 KiB, which a purchase's
  // unit of work does) that journal is a temp file in /var/tmp opened, written and deleted per
  // batch: 5–20 % of a write's CPU (docs/benchmarks.md). In memory it is only a copy.
  handle.pragma('temp_store = MEMORY');
  const commits = options.commits ?? new CommitFeed();
  const checkpointer = wal ? new Checkpointer(file, handle, options.checkpoints?.every, options.checkpoints?.driver, undefined, options.checkpoints?.bounds) : null;
  const walSync = wal
    ? new WalSync((options.fileSyncer ?? ((name) => new WalFileSyncer(name)))(file), (sample) => {
        commits.publish(sample);
        checkpointer?.noteCommits(sample.batchSize);
      })
    : null;
  // Prepared once, outside the cache: it runs on every answer (settled) and plucks its value.
  const dataVersion = handle.prepare('pragma data_version').pluck();
  const readDataVersion = () => Number(dataVersion.get());
  const writes = { made: false };
  cachePreparedStatements(handle, writes);
  let seenVersion = readDataVersion();
  // Another process's commit shows as a move of SQLite's data_version (which our own commits do not move).
  const sawForeignCommit = () => {
    const version = readDataVersion();
    if (version === seenVersion) return false;
    seenVersion = version;
    return true;
  };
  // The commit noted for the last foreign commit seen: an answer whose reads may have seen it waits for it.
  let foreignCommit = 0;
  const durability: SqliteDurability | null =
    walSync === null ? null : { walSync, takeWrite: () => takeFlag(writes), inTransaction: () => handle.inTransaction, execute: (statement) => void handle.exec(statement) };
  const db = new Kysely<Database>({ dialect: new CofferSqliteDialect({ database: handle }, durability, commits) });
  return {
    db,
    checkpointer,
    settled() {
      if (walSync === null || !handle.open) return null;
      // Another process's commit (a second node, the CLI) may not be durable yet when a read here
      // sees it; our fsync of the same WAL makes it so. Checked once per answer, after all of its
      // reads, rather than at every use of the connection (that was three times per show). Whoever
      // notices it first notes it; every answer checked since then waits for that note, because
      // its reads may have seen the commit before it was noticed.
      if (sawForeignCommit()) foreignCommit = walSync.note();
      // A request waits for the commits it could have seen (noted as it used the store); anything
      // else (the sweep, the CLI) for every commit noted so far.
      const seen = seenCommit(walSync);
      const target = seen === null ? walSync.last : Math.max(seen, foreignCommit);
      return walSync.isDurable(target) ? null : walSync.durable(target);
    },
    async close() {
      await checkpointer?.close();
      await db.destroy();
      await walSync?.close();
    },
  };
}

function takeFlag(flag: { made: boolean }): boolean {
  const made = flag.made;
  flag.made = false;
  return made;
}

/**
 * Kysely prepares every statement again on each call; parsing and planning was ~13% of a
 * purchase (docs/benchmarks.md). Statements are reused per SQL text instead. Safe here: one
 * connection, statements run to completion before the next (Coffer never streams results), and
 * SQLite re-prepares a cached statement by itself after a schema change. Kysely prepares right
 * before it runs a statement, so a statement that can write marks the connection as having
 * written: its release waits for group commit.
 */
function cachePreparedStatements(handle: BetterSqlite3.Database, writes: { made: boolean }): void {
  const prepare = handle.prepare.bind(handle);
  const cache = new Map<string, { statement: ReturnType<typeof prepare>; writes: boolean }>();
  handle.prepare = ((sql: string) => {
    let entry = cache.get(sql);
    if (entry === undefined) {
      const statement = prepare(sql);
      // BEGIN IMMEDIATE is not read-only to SQLite (it takes the write lock) but writes nothing:
      // a transaction that only reads must not wait for an fsync.
      entry = { statement, writes: !statement.readonly && !BEGIN.test(sql) };
      if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
      cache.set(sql, entry);
    }
    if (entry.writes) writes.made = true;
    return entry.statement;
  }) as typeof handle.prepare;
}

const BEGIN = /^\s*begin\b/i;
