import type pg from 'pg';

/**
 * Pipelined transactions on PostgreSQL (docs/reliability.md). node-postgres waits for each statement's answer
 * before it sends the next one, so a purchase made twelve loopback round trips, each a socket
 * write, a wait and a wake-up of PostgreSQL. With the client in pipeline mode, statements whose
 * answer nobody reads are sent without waiting for it:
 *
 * - `begin`, which goes out with the transaction's first statement;
 * - statements declared deferrable where they are defined (deferrable-query.ts: the event and
 *   callback-queue inserts, the named lock, the outcome update): they go out with whatever the
 *   transaction sends next, at the latest with its `commit`. Outside a transaction such a
 *   statement runs as any other: its caller waits for it to commit.
 *
 * PostgreSQL runs a connection's statements in the order they arrive, so a statement sent behind a
 * deferred one sees its effects (the update behind the lock runs once the lock is held). What
 * changes is only when a deferred statement's failure is seen:
 *
 * - a failure aborts the transaction, so every statement sent after it fails too (25P02); that
 *   statement's caller gets the deferred statement's own error instead;
 * - `commit` resolves only once every deferred statement has answered, and throws the first
 *   failure: PostgreSQL answers the `commit` of an aborted transaction by rolling it back, so the
 *   transaction's writes land together or not at all, exactly as before;
 * - `begin` fails only on a connection that can no longer run anything (closed, or in a failed
 *   transaction), and then so does every statement sent after it.
 *
 * Writes sent in one turn of the event loop leave in one write: the socket is corked when a
 * deferred statement is sent and uncorked once the turn has run (setImmediate).
 */

/** What `query` resolves a deferred statement with at once: no rows, nothing counted. */
const NO_RESULT = Object.freeze({ command: 'DEFERRED', rowCount: null, rows: [], fields: [] }) as unknown as pg.QueryResult;

/** SQLSTATE 25P02: "current transaction is aborted, commands ignored until end of transaction block". */
const IN_FAILED_TRANSACTION = '25P02';

type Send = (text: string, parameters: unknown[] | undefined) => Promise<pg.QueryResult>;

function opensTransaction(text: string): boolean {
  return text === 'begin' || text.startsWith('start transaction');
}

/** One pooled connection's transaction, as far as pipelining needs to know it. */
export class PipelinedConnection {
  private inTransaction = false;
  /** Deferred statements of the open transaction; each settled before the transaction ends. */
  private deferred: Array<Promise<unknown>> = [];
  /** The first deferred statement of the open transaction that failed. */
  private failure: unknown = null;
  private corked = false;

  constructor(
    private readonly socket: { cork?: () => void; uncork?: () => void } | undefined,
    private readonly send: Send,
  ) {}

  /** Sends one statement; `deferrable`: its caller reads nothing of its result (deferrable-query.ts). */
  query(text: string, parameters: unknown[] | undefined, deferrable = false): Promise<pg.QueryResult> {
    if (this.inTransaction) {
      if (text === 'commit') return this.end(text, true);
      if (text === 'rollback') return this.end(text, false);
      if (deferrable) return this.defer(text, parameters);
      if (text.startsWith('rollback to')) return this.recover(text, parameters);
      return this.send(text, parameters).catch((error: unknown) => {
        throw (error as { code?: unknown }).code === IN_FAILED_TRANSACTION && this.failure !== null ? this.failure : error;
      });
    }
    if (text === 'begin') {
      this.open();
      return this.defer(text, undefined);
    }
    if (opensTransaction(text)) this.open();
    return this.send(text, parameters);
  }

  /** Whether nothing of a transaction is left on the connection (it may go back to the pool). */
  get idle(): boolean {
    return !this.inTransaction && this.deferred.length === 0;
  }

  private open(): void {
    this.inTransaction = true;
    this.deferred = [];
    this.failure = null;
  }

  private defer(text: string, parameters: unknown[] | undefined): Promise<pg.QueryResult> {
    this.cork();
    const answer = this.send(text, parameters).catch((error: unknown) => {
      this.failure ??= error;
    });
    this.deferred.push(answer);
    return Promise.resolve(NO_RESULT);
  }

  /**
   * `rollback to savepoint`: once it has succeeded the transaction is usable again, so a deferred
   * failure before it (every deferred statement was sent before it, and so has answered) no
   * longer fails the commit.
   */
  private async recover(text: string, parameters: unknown[] | undefined): Promise<pg.QueryResult> {
    const result = await this.send(text, parameters);
    await Promise.all(this.deferred);
    this.deferred = [];
    this.failure = null;
    return result;
  }

  /** Sends `commit` or `rollback`; resolves once it and every deferred statement have answered. */
  private async end(text: string, committing: boolean): Promise<pg.QueryResult> {
    const ending = this.send(text, undefined);
    const deferred = this.deferred;
    this.inTransaction = false;
    this.deferred = [];
    // Settled together, so the ending's failure is never left without a handler meanwhile.
    const [, ended] = await Promise.allSettled([Promise.all(deferred), ending]);
    const failure = this.failure;
    this.failure = null;
    // The server answered this commit with a rollback: the deferred failure is the reason.
    if (committing && failure !== null) throw failure;
    if (ended.status === 'rejected') throw ended.reason;
    return ended.value;
  }

  /** Holds this turn's writes until the turn has run, so they leave the process in one write. */
  private cork(): void {
    if (this.corked || this.socket?.cork === undefined) return;
    this.corked = true;
    this.socket.cork();
    setImmediate(() => {
      this.corked = false;
      this.socket?.uncork?.();
    });
  }
}
