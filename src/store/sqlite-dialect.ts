import { StoreDurabilityError, type WalSync } from './wal-sync.js';
import { noteSeenCommit } from './request-commits.js';
import { CommitFeed } from './commit-feed.js';
import { ShapedRowsConnection } from './sqlite-rows.js';
import BetterSqlite3 from 'better-sqlite3';
import {
  CompiledQuery,
  SqliteAdapter,
  SqliteDialect,
  SqliteDriver,
  type DatabaseConnection,
  type DialectAdapter,
  type Driver,
  type SqliteDialectConfig,
} from 'kysely';

/**
 * Opens write transactions with BEGIN IMMEDIATE: the write lock is taken at the start, so
 * two processes on one file (a CLI command beside the server, two nodes migrating a new file)
 * queue on busy_timeout instead of failing when a read transaction tries to upgrade.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  /**
   * Group commit's batch (docs/reliability.md, "Batches"): an outer BEGIN IMMEDIATE holding logical transactions that
   * were released (savepoints) but not yet committed; the next flush commits it. Only with
   * durability (WAL): without it every transaction commits, and syncs, on its own.
   */
  private batchOpen = false;
  /** A logical transaction that wrote was released into the open batch: someone awaits its flush. */
  private batchAwaited = false;
  /** This handle holds the in-process turn on the file: during one use, or while its batch is open. */
  private holdsTurn = false;
  /** Kysely's connection with rows built by Coffer (sqlite-rows.ts); made on first use. */
  private shaped: ShapedRowsConnection | null = null;

  constructor(
    private readonly settings: SqliteDialectConfig,
    private readonly file: string,
    private readonly durability: SqliteDurability | null,
    private readonly commits: CommitFeed,
  ) {
    super(settings);
    durability?.walSync.batchCommitsWith(() => this.commitBatch());
  }

  /** Without group commit (no WAL) each COMMIT syncs itself: it is the commit to time. */
  override commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.durability === null) return this.commits.timed(1, () => super.commitTransaction(connection));
    // The logical commit: the savepoint's work joins the batch, made durable by the next flush.
    return connection.executeQuery(RELEASE_LOGICAL).then(() => undefined);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.durability === null) {
      await connection.executeQuery(BEGIN_IMMEDIATE);
      return;
    }
    this.durability.walSync.refuseIfBroken();
    if (!this.batchOpen) {
      await connection.executeQuery(BEGIN_IMMEDIATE);
      this.batchOpen = true;
    }
    await connection.executeQuery(SAVEPOINT_LOGICAL);
  }

  /** Undoes this logical transaction only; the batch's other transactions stay. */
  override async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.durability === null) return super.rollbackTransaction(connection);
    if (!this.durability.inTransaction()) return; // SQLite already rolled the whole batch back: releaseConnection reports it
    await connection.executeQuery(ROLLBACK_LOGICAL);
    await connection.executeQuery(RELEASE_LOGICAL);
  }

  /**
   * Handles on one file in one process (tests run several "nodes" in one process) take turns here,
   * asynchronously. Otherwise one handle's write would wait in busy_timeout, synchronously, while
   * the transaction it waits for sits in the same event loop: a deadlock until SQLITE_BUSY. Since
   * every write of an API object now writes its event in one transaction (docs/events.md), such
   * transactions are common. Separate processes still queue on the file lock as before. A handle
   * keeps the turn while its batch is open; the flush that commits the batch hands it on.
   */
  override async acquireConnection(): Promise<DatabaseConnection> {
    const connection = await super.acquireConnection();
    if (!this.holdsTurn) {
      await fileTurn(this.file).lock();
      this.holdsTurn = true;
    }
    return this.shapedRows(connection);
  }

  /** The connection to hand out: rows built by Coffer when the database is a better-sqlite3 handle given as such. */
  private shapedRows(connection: DatabaseConnection): DatabaseConnection {
    if (this.shaped !== null) return this.shaped;
    const database = this.settings.database as unknown;
    if (!(database instanceof BetterSqlite3)) return connection;
    this.shaped = new ShapedRowsConnection(database, connection);
    return this.shaped;
  }

  /**
   * Group commit (docs/reliability.md): a use of the connection that wrote hands it on first, then waits
   * until its commit is durable. Whoever takes the connection meanwhile commits into the same
   * batch or the next, so the event loop never waits on a lone fsync, a batch writes each page
   * it touched once, and no caller is told of a commit before it is on disk.
   */
  override async releaseConnection(): Promise<void> {
    const durability = this.durability;
    let sequence: number | null = null;
    try {
      if (durability !== null) {
        const { walSync } = durability;
        if (this.batchOpen && !durability.inTransaction()) this.loseBatch();
        if (durability.takeWrite()) {
          sequence = walSync.note();
          if (this.batchOpen) this.batchAwaited = true;
        }
        // Whatever this use read reflects commits up to here: the request's answer waits for them.
        noteSeenCommit(walSync, walSync.last);
        // A batch nobody waits for (its transactions only read, or rolled back) is ended now, so
        // that the turn is not held without a flush coming to release it.
        if (this.batchOpen && !this.batchAwaited) this.endBatch();
      }
    } finally {
      // Whatever failed above, the connection and (without an open batch) the file's turn go on.
      if (!this.batchOpen) this.handOnTurn();
      await super.releaseConnection();
    }
    if (sequence !== null) await durability?.walSync.durable(sequence);
  }

  override async destroy(): Promise<void> {
    if (this.batchOpen) await this.commitBatch();
    await super.destroy();
  }

  /**
   * Commits the open batch (WalSync calls this before each fsync) and returns the last commit it
   * covers, read before the connection is handed on: everything noted up to it is in this commit.
   */
  private async commitBatch(): Promise<number> {
    const walSync = (this.durability as SqliteDurability).walSync;
    if (!this.batchOpen) return walSync.last;
    await super.acquireConnection(); // the batch already holds the file's turn
    try {
      if (this.batchOpen) this.endBatch();
      return walSync.last;
    } finally {
      this.handOnTurn();
      await super.releaseConnection();
    }
  }

  /** COMMIT of the batch; on failure SQLite may keep or drop it, and either way its commits are not durable. */
  private endBatch(): void {
    const durability = this.durability as SqliteDurability;
    this.batchOpen = false;
    this.batchAwaited = false;
    try {
      durability.execute('commit');
    } catch (error) {
      if (durability.inTransaction()) durability.execute('rollback');
      throw error;
    }
  }

  /** SQLite rolled back the open batch by itself (an I/O or full-disk error): its released transactions are gone. */
  private loseBatch(): void {
    this.batchOpen = false;
    this.batchAwaited = false;
    this.durability?.walSync.fail(new StoreDurabilityError('SQLite rolled back a batch of committed transactions; the store refuses writes until restart'));
  }

  private handOnTurn(): void {
    if (!this.holdsTurn) return;
    this.holdsTurn = false;
    fileTurn(this.file).unlock();
  }
}

const BEGIN_IMMEDIATE = CompiledQuery.raw('begin immediate');
const SAVEPOINT_LOGICAL = CompiledQuery.raw('savepoint coffer_logical');
const RELEASE_LOGICAL = CompiledQuery.raw('release coffer_logical');
const ROLLBACK_LOGICAL = CompiledQuery.raw('rollback to coffer_logical');

/** A first-come, first-served async lock. */
class Turn {
  private held = false;
  private readonly waiting: Array<() => void> = [];

  lock(): Promise<void> {
    if (!this.held) {
      this.held = true;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  unlock(): void {
    const next = this.waiting.shift();
    if (next === undefined) this.held = false;
    else next();
  }
}

const TURNS = new Map<string, Turn>();

function fileTurn(file: string): Turn {
  let turn = TURNS.get(file);
  if (turn === undefined) {
    turn = new Turn();
    TURNS.set(file, turn);
  }
  return turn;
}

/** SQLite can run DDL inside a transaction, so migrations apply atomically. */
class TransactionalDdlSqliteAdapter extends SqliteAdapter {
  override get supportsTransactionalDdl(): boolean {
    return true;
  }
}

let anonymous = 0;

/** How a store's commits become durable: the WAL syncer, and whether the last use of the connection wrote. */
export interface SqliteDurability {
  walSync: WalSync;
  /** True (once) when a statement that can write ran since the last call. */
  takeWrite(): boolean;
  /** Whether the connection is inside a transaction (SQLite may roll one back by itself on I/O errors). */
  inTransaction(): boolean;
  /** Runs a transaction-control statement on the connection, synchronously. */
  execute(statement: 'commit' | 'rollback'): void;
}

export class CofferSqliteDialect extends SqliteDialect {
  constructor(
    private readonly settings: SqliteDialectConfig,
    private readonly durability: SqliteDurability | null = null,
    /** Where commits are published when there is no group commit to publish them (the store's `commits`). */
    private readonly commits: CommitFeed = new CommitFeed(),
  ) {
    super(settings);
  }

  override createDriver(): Driver {
    // The file's name keys the in-process turn; an anonymous database gets one of its own.
    const database = this.settings.database as { name?: unknown };
    const file = typeof database.name === 'string' && database.name !== '' && database.name !== ':memory:' ? database.name : `anonymous-${(anonymous += 1)}`;
    return new ImmediateSqliteDriver(this.settings, file, this.durability, this.commits);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}
