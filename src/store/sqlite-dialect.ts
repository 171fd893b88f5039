import type { WalSync } from './wal-sync.js';
import { noteSeenCommit } from '../domain/request-context.js';
import { CommitFeed } from './commit-feed.js';
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
  constructor(
    settings: SqliteDialectConfig,
    private readonly file: string,
    private readonly durability: SqliteDurability | null,
    private readonly commits: CommitFeed,
  ) {
    super(settings);
  }

  /** Without group commit (no WAL) each COMMIT syncs itself: it is the commit to time. */
  override commitTransaction(connection: DatabaseConnection): Promise<void> {
    if (this.durability !== null) return super.commitTransaction(connection);
    return this.commits.timed(1, () => super.commitTransaction(connection));
  }

  /**
   * Handles on one file in one process (tests run several "nodes" in one process) take turns here,
   * asynchronously. Otherwise one handle's write would wait in busy_timeout, synchronously, while
   * the transaction it waits for sits in the same event loop: a deadlock until SQLITE_BUSY. Since
   * every write of an API object now writes its event in one transaction (issue 17), such
   * transactions are common. Separate processes still queue on the file lock as before.
   */
  override async acquireConnection(): Promise<DatabaseConnection> {
    await fileTurn(this.file).lock();
    return super.acquireConnection();
  }

  /**
   * Group commit (issue 12): a use of the connection that wrote hands it on first, then waits
   * until its commit is durable. Whoever takes the connection meanwhile commits into the same
   * or the next fsync, so the event loop never waits on a lone fsync and no caller is told of a
   * commit before it is on disk.
   */
  override async releaseConnection(): Promise<void> {
    const durability = this.durability;
    let sequence: number | null = null;
    if (durability !== null) {
      const { walSync } = durability;
      // A commit by another connection (a second node, the CLI) is synced from here too: one file.
      if (durability.sawForeignCommit()) walSync.note();
      if (durability.takeWrite()) sequence = walSync.note();
      // Whatever this use read reflects commits up to here: the request's answer waits for them.
      noteSeenCommit(walSync, walSync.last);
    }
    await super.releaseConnection();
    fileTurn(this.file).unlock();
    if (sequence !== null) await durability?.walSync.durable(sequence);
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }
}

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
  /** True (once) when another connection committed since the last call (SQLite's data_version moved). */
  sawForeignCommit(): boolean;
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
