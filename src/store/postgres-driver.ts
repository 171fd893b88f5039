import type pg from 'pg';
import {
  CompiledQuery,
  createQueryId,
  IdentifierNode,
  RawNode,
  type DatabaseConnection,
  type Driver,
  type QueryCompiler,
  type QueryResult,
  type TransactionSettings,
} from 'kysely';
import type { CommitFeed } from './commit-feed.js';
import { isDeferrable } from './deferrable-query.js';
import { PipelinedConnection } from './postgres-pipeline.js';
import { PreparingClient, StatementNames } from './postgres-prepared.js';

/**
 * Kysely's driver over Coffer's PostgreSQL pool. Kysely's own PostgresDriver gives node-postgres
 * only a statement's text; this one gives the pipeline the compiled query Kysely hands it (the
 * very object the repository built), so a statement declared deferrable (deferrable-query.ts) is
 * known by its declaration, not by its text. Each driver, one per store, names its own prepared
 * statements (postgres-prepared.ts). Everything else is as Kysely's: the same transaction and
 * savepoint statements, the same results, each COMMIT's latency published to the commit feed.
 */
export class CofferPostgresDriver implements Driver {
  private readonly names = new StatementNames();
  private readonly connections = new WeakMap<pg.PoolClient, CofferPostgresConnection>();
  private destroyed = false;

  constructor(
    private readonly pool: pg.Pool,
    private readonly commits: CommitFeed,
  ) {}

  async init(): Promise<void> {}

  async acquireConnection(): Promise<DatabaseConnection> {
    const client = await this.pool.connect();
    if (this.destroyed) {
      client.release();
      throw new Error('driver has already been destroyed');
    }
    let connection = this.connections.get(client);
    if (connection === undefined) {
      connection = new CofferPostgresConnection(client, this.names);
      this.connections.set(client, connection);
    }
    return connection;
  }

  async beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    if (settings.isolationLevel === undefined && settings.accessMode === undefined) {
      await connection.executeQuery(CompiledQuery.raw('begin'));
      return;
    }
    let text = 'start transaction';
    if (settings.isolationLevel !== undefined) text += ` isolation level ${settings.isolationLevel}`;
    if (settings.accessMode !== undefined) text += ` ${settings.accessMode}`;
    await connection.executeQuery(CompiledQuery.raw(text));
  }

  /** One transaction per COMMIT: each is one sample of the store's commit feed (docs/metrics.md). */
  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.commits.timed(1, async () => {
      await connection.executeQuery(CompiledQuery.raw('commit'));
    });
  }

  async rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    await connection.executeQuery(CompiledQuery.raw('rollback'));
  }

  async savepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await connection.executeQuery(compile(savepointCommand('savepoint', name), createQueryId()));
  }

  async rollbackToSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await connection.executeQuery(compile(savepointCommand('rollback to', name), createQueryId()));
  }

  async releaseSavepoint(connection: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> {
    await connection.executeQuery(compile(savepointCommand('release', name), createQueryId()));
  }

  async releaseConnection(connection: DatabaseConnection): Promise<void> {
    (connection as CofferPostgresConnection).release();
  }

  async destroy(): Promise<void> {
    if (this.destroyed) return;
    this.destroyed = true;
    await this.pool.end();
  }
}

/** `savepoint "name"` and its kin, the name quoted as an identifier (as Kysely writes them). */
function savepointCommand(command: string, name: string): RawNode {
  return RawNode.createWithChildren([RawNode.createWithSql(`${command} `), IdentifierNode.create(name)]);
}

/** The commands whose row count Kysely reports as `numAffectedRows`. */
const COUNTED = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** One pooled client: its statements named (postgres-prepared.ts) and its transactions pipelined. */
class CofferPostgresConnection implements DatabaseConnection {
  private readonly pipeline: PipelinedConnection;

  constructor(
    private readonly client: pg.PoolClient,
    names: StatementNames,
  ) {
    const statements = new PreparingClient(client, names);
    const socket = client.connection.stream as { cork?: () => void; uncork?: () => void };
    this.pipeline = new PipelinedConnection(socket, (text, parameters) => statements.send(text, parameters));
  }

  async executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    try {
      const { command, rowCount, rows } = await this.pipeline.query(compiledQuery.sql, [...compiledQuery.parameters], isDeferrable(compiledQuery));
      return { numAffectedRows: COUNTED.has(command) ? BigInt(rowCount ?? 0) : undefined, rows: (rows ?? []) as R[] };
    } catch (error) {
      throw withCallerStack(error, new Error());
    }
  }

  // Coffer reads no PostgreSQL result as a stream (Kysely needs a cursor library for it).
  // eslint-disable-next-line require-yield
  async *streamQuery<R>(): AsyncIterableIterator<QueryResult<R>> {
    throw new Error('streaming is not supported by the PostgreSQL store');
  }

  /**
   * Back to the pool. A connection given back in the middle of a transaction (its statements still
   * in flight) is closed rather than handed to the next request, which would run inside it.
   */
  release(): void {
    this.client.release(this.pipeline.idle ? undefined : new Error('released inside a transaction'));
  }
}

/** node-postgres's errors carry its parser's stack: the caller's is appended, as Kysely's driver does. */
function withCallerStack(error: unknown, caller: Error): unknown {
  if (error instanceof Error && typeof error.stack === 'string' && caller.stack !== undefined) {
    error.stack += `\n${caller.stack.split('\n').slice(1).join('\n')}`;
  }
  return error;
}
