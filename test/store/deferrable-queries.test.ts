import { sql, type Kysely, type QueryResult } from 'kysely';
import pg from 'pg';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openStore, type StoreHandle } from '../../src/store/database.js';
import { isDeferrable } from '../../src/store/deferrable-query.js';
import { Precompiled } from '../../src/store/repositories/precompiled.js';
import type { Database } from '../../src/store/schema.js';
import { createPostgresDatabase, postgresUrl } from '../helpers/postgres.js';

/**
 * A statement's deferrability is declared where it is defined (`new Precompiled(build, { deferrable:
 * true })`) and travels with the query object to the driver: inside a PostgreSQL transaction the
 * declared statement is sent without waiting for its answer, while the very same SQL text built
 * without the declaration is waited for. Proven against the real server: another connection holds
 * the row's lock, so PostgreSQL cannot answer the update until it lets go; a statement answered
 * meanwhile was answered by the pipeline, not by the server.
 */

interface Items {
  items: { id: number; state: string };
}

const setState = (coffer: Kysely<Database>, [state, id]: readonly unknown[]) =>
  (coffer as unknown as Kysely<Items>).updateTable('items').set({ state: state as string }).where('id', '=', id as number);
const DEFERRED_SET = new Precompiled(setState, { deferrable: true });
const AWAITED_SET = new Precompiled(setState);

type Settled = { state: 'pending' } | { state: 'resolved'; result: QueryResult<unknown> } | { state: 'rejected'; error: unknown };

describe.runIf(postgresUrl !== null)('PostgreSQL: deferrability declared on the query, not recognised from its text', () => {
  let database: { url: string; drop: () => Promise<void> };
  let store: StoreHandle;
  let lockHolder: pg.Client;

  /** Statements of this database waiting for a lock, as PostgreSQL itself reports them. */
  const waitingUpdates = async (): Promise<number> => {
    const { rows } = await sql<{ waiting: number }>`select count(*)::int as waiting from pg_stat_activity
      where datname = current_database() and wait_event_type = 'Lock' and query like 'update "items"%'`.execute(store.db);
    return rows[0]?.waiting ?? 0;
  };
  const until = async (condition: () => Promise<boolean> | boolean, what: string): Promise<void> => {
    const deadline = Date.now() + 5_000;
    while (!(await condition())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const stateOf = async (id: number): Promise<string | undefined> =>
    (await sql<{ state: string }>`select state from items where id = ${id}`.execute(store.db)).rows[0]?.state;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    store = openStore({ kind: 'postgres', url: database.url });
    await sql`create table items (id int primary key, state text not null)`.execute(store.db);
  });
  beforeEach(async () => {
    await sql`delete from items`.execute(store.db);
    await sql`insert into items values (1, 'open')`.execute(store.db);
    lockHolder = new pg.Client({ connectionString: database.url });
    await lockHolder.connect();
    await lockHolder.query('begin');
    await lockHolder.query('select id from items where id = 1 for update');
  });
  afterEach(async () => {
    await lockHolder.end();
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('builds one SQL text for both, the declaration on the deferrable one only', () => {
    const deferred = DEFERRED_SET.query(store.db, '', ['closed', 1]);
    const awaited = AWAITED_SET.query(store.db, '', ['closed', 1]);
    expect(deferred.sql).toBe('update "items" set "state" = $1 where "id" = $2');
    expect(awaited.sql).toBe(deferred.sql);
    expect([isDeferrable(deferred), isDeferrable(awaited)]).toEqual([true, false]);
  });

  it('inside a transaction, a statement declared deferrable is answered before the server has answered it', async () => {
    let settled: Settled = { state: 'pending' };
    const transaction = store.db.transaction().execute(async (trx) => {
      const query = trx.executeQuery(DEFERRED_SET.query(trx, '', ['deferred', 1]));
      query.then((result) => (settled = { state: 'resolved', result }), (error: unknown) => (settled = { state: 'rejected', error }));
      await query;
    });
    await until(() => settled.state !== 'pending', 'the deferred update to be answered');
    // Answered, yet PostgreSQL is still holding the update behind the other connection's lock.
    await until(async () => (await waitingUpdates()) === 1, 'the update to wait on the lock');
    expect(settled).toMatchObject({ state: 'resolved', result: { rows: [], numAffectedRows: undefined } });
    expect(await stateOf(1)).toBe('open');
    await lockHolder.query('commit');
    await transaction;
    expect(await stateOf(1)).toBe('deferred');
  });

  it('inside a transaction, the same SQL text not declared deferrable is waited for: its row count arrives with the answer', async () => {
    let settled: Settled = { state: 'pending' };
    const transaction = store.db.transaction().execute(async (trx) => {
      const query = trx.executeQuery(AWAITED_SET.query(trx, '', ['awaited', 1]));
      query.then((result) => (settled = { state: 'resolved', result }), (error: unknown) => (settled = { state: 'rejected', error }));
      await query;
    });
    // The update has reached PostgreSQL and waits on the lock: its caller must still be waiting too.
    await until(async () => (await waitingUpdates()) === 1, 'the update to wait on the lock');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(settled.state).toBe('pending');
    await lockHolder.query('commit');
    await transaction;
    expect(settled).toMatchObject({ state: 'resolved', result: { numAffectedRows: 1n } });
    expect(await stateOf(1)).toBe('awaited');
  });
});
