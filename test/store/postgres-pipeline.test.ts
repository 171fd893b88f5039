import { CompiledQuery, sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type StoreHandle } from '../../src/store/database.js';
import { CommitFeed } from '../../src/store/commit-feed.js';
import { deferrable } from '../../src/store/deferrable-query.js';
import { CofferPostgresDriver } from '../../src/store/postgres-driver.js';
import { LocksRepo } from '../../src/store/repositories/locks.repo.js';
import { createPostgresDatabase, postgresUrl } from '../helpers/postgres.js';

/**
 * Inside a PostgreSQL transaction, `begin` and the statements nobody reads (the event
 * insert, the named lock) go out without waiting for their answers. Their failures must still
 * fail the transaction as a whole, with their own error, and what follows them must still run
 * after them.
 */

const NOTE = 'insert into notes (id, body) values ($1, $2)';

const SQLSTATE = { uniqueViolation: '23505' } as const;

describe.runIf(postgresUrl !== null)('PostgreSQL pipelined transactions', () => {
  let database: { url: string; drop: () => Promise<void> };
  let store: StoreHandle;
  let db: Kysely<never>;

  const note = (executor: Kysely<never>, id: number, body: string) => executor.executeQuery(deferrable(CompiledQuery.raw(NOTE, [id, body])));
  const bodies = async (): Promise<string[]> => (await sql<{ body: string }>`select body from notes order by id`.execute(db)).rows.map((row) => row.body);
  const counter = async (): Promise<number> => (await sql<{ n: number }>`select n from counter`.execute(db)).rows[0]?.n ?? -1;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    store = openStore({ kind: 'postgres', url: database.url });
    db = store.db as unknown as Kysely<never>;
    await sql`create table notes (id int primary key, body text not null)`.execute(db);
    await sql`create table counter (n int not null)`.execute(db);
  });
  beforeEach(async () => {
    await sql`delete from notes`.execute(db);
    await sql`delete from counter`.execute(db);
    await sql`insert into counter values (0)`.execute(db);
    await note(db, 1, 'kept');
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('a deferred statement that fails fails the commit with its own error, and nothing of the transaction lands', async () => {
    const attempt = db.transaction().execute(async (trx) => {
      await note(trx, 2, 'written first');
      await note(trx, 1, 'duplicate key'); // deferred: answered at once, fails on the server
    });
    await expect(attempt).rejects.toMatchObject({ code: SQLSTATE.uniqueViolation });
    expect(await bodies()).toEqual(['kept']);
  });

  it('a statement sent after a failed deferred one throws the deferred error, not "transaction is aborted"', async () => {
    let seen: unknown = null;
    const attempt = db.transaction().execute(async (trx) => {
      await note(trx, 1, 'duplicate key');
      try {
        await sql`update counter set n = n + 1`.execute(trx);
      } catch (error) {
        seen = error;
        throw error;
      }
    });
    await expect(attempt).rejects.toMatchObject({ code: SQLSTATE.uniqueViolation });
    expect(seen).toMatchObject({ code: SQLSTATE.uniqueViolation });
    expect(await counter()).toBe(0);
  });

  it('the connection is clean after a failed transaction: the next transaction on every connection commits', async () => {
    await expect(db.transaction().execute((trx) => note(trx, 1, 'duplicate key'))).rejects.toMatchObject({ code: SQLSTATE.uniqueViolation });
    // More transactions than the pool has connections, so each connection serves one after the failure.
    await Promise.all(Array.from({ length: 12 }, (_, index) => db.transaction().execute((trx) => note(trx, 10 + index, `after ${index}`))));
    expect(await bodies()).toHaveLength(13);
  });

  it('outside a transaction a deferrable statement is waited for: its error reaches its caller', async () => {
    await expect(note(db, 1, 'duplicate key')).rejects.toMatchObject({ code: SQLSTATE.uniqueViolation });
    await note(db, 3, 'autocommitted');
    expect(await bodies()).toEqual(['kept', 'autocommitted']);
  });

  it('a deferred lock still serializes: what follows it runs once the lock is held (no lost increment)', async () => {
    const increments = 40;
    await Promise.all(
      Array.from({ length: increments }, () =>
        db.transaction().execute(async (trx) => {
          await new LocksRepo(trx as never, 'postgres').serialize('pipeline-test-counter');
          const { rows } = await sql<{ n: number }>`select n from counter`.execute(trx);
          await sql`update counter set n = ${(rows[0]?.n ?? 0) + 1}`.execute(trx);
        }),
      ),
    );
    expect(await counter()).toBe(increments);
  });

  it('a rolled-back transaction leaves nothing of its deferred statements', async () => {
    const attempt = db.transaction().execute(async (trx) => {
      await note(trx, 4, 'deferred, then rolled back');
      throw new Error('the caller gives up');
    });
    await expect(attempt).rejects.toThrow('the caller gives up');
    expect(await bodies()).toEqual(['kept']);
  });

  it('a rollback to a savepoint taken before a failed deferred statement recovers the transaction: the commit lands what remains', async () => {
    await db.transaction().execute(async (trx) => {
      await note(trx, 5, 'before the savepoint');
      await sql`savepoint retry`.execute(trx);
      await note(trx, 1, 'duplicate key');
      await sql`rollback to savepoint retry`.execute(trx);
      await note(trx, 6, 'after the rollback to it');
    });
    expect(await bodies()).toEqual(['kept', 'before the savepoint', 'after the rollback to it']);
  });

  it('a connection given back inside a transaction is closed, not handed to the next request', async () => {
    const driver = new CofferPostgresDriver(new pg.Pool({ connectionString: database.url, max: 1, pipeline: true }), new CommitFeed());
    try {
      const first = await driver.acquireConnection();
      await first.executeQuery(CompiledQuery.raw('begin'));
      await first.executeQuery(deferrable(CompiledQuery.raw(NOTE, [7, 'left in an open transaction'])));
      await driver.releaseConnection(first);
      const second = await driver.acquireConnection();
      const { rows } = await second.executeQuery<{ open: boolean }>(CompiledQuery.raw('select now() <> statement_timestamp() as open'));
      await driver.releaseConnection(second);
      expect(rows[0]?.open).toBe(false);
      expect(await bodies()).toEqual(['kept']);
    } finally {
      await driver.destroy();
    }
  });
});
