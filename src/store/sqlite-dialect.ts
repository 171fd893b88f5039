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
import { CommitFeed } from './commit-feed.js';

/**
 * Opens write transactions with BEGIN IMMEDIATE: the write lock is taken at the start, so
 * two processes on one file (a CLI command beside the server, two nodes migrating a new file)
 * queue on busy_timeout instead of failing when a read transaction tries to upgrade.
 */
class ImmediateSqliteDriver extends SqliteDriver {
  constructor(
    settings: SqliteDialectConfig,
    private readonly file: string,
    private readonly commits: CommitFeed,
  ) {
    super(settings);
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

  override async releaseConnection(): Promise<void> {
    await super.releaseConnection();
    fileTurn(this.file).unlock();
  }

  override async beginTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('begin immediate'));
  }

  /** The COMMIT (its WAL fsync under synchronous=FULL) is timed for the commit feed. */
  override commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.commits.timed(1, () => super.commitTransaction(connection));
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

export class CofferSqliteDialect extends SqliteDialect {
  constructor(
    private readonly settings: SqliteDialectConfig,
    /** Where each commit's latency is published (the store handle's `commits`). */
    private readonly commits: CommitFeed = new CommitFeed(),
  ) {
    super(settings);
  }

  override createDriver(): Driver {
    // The file's name keys the in-process turn; an anonymous database gets one of its own.
    const database = this.settings.database as { name?: unknown };
    const file = typeof database.name === 'string' && database.name !== '' && database.name !== ':memory:' ? database.name : `anonymous-${(anonymous += 1)}`;
    return new ImmediateSqliteDriver(this.settings, file, this.commits);
  }

  override createAdapter(): DialectAdapter {
    return new TransactionalDdlSqliteAdapter();
  }
}
