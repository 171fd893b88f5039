import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type StoreHandle } from '../../src/store/database.js';
import { createPostgresDatabase, postgresUrl } from '../helpers/postgres.js';

/** Statements with parameters are prepared once per connection, by name. */
describe.runIf(postgresUrl !== null)('PostgreSQL named prepared statements', () => {
  let database: { url: string; drop: () => Promise<void> };
  let store: StoreHandle;
  let db: Kysely<never>;

  beforeAll(async () => {
    database = await createPostgresDatabase();
    store = openStore({ kind: 'postgres', url: database.url });
    db = store.db as unknown as Kysely<never>;
    await sql`create table items (id int primary key, name text)`.execute(db);
    await sql`insert into items values (1, 'one'), (2, 'two')`.execute(db);
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  it('a query with parameters is prepared once on the connection and reused', async () => {
    await db.connection().execute(async (connection) => {
      for (const id of [1, 2, 1]) {
        const { rows } = await sql<{ name: string }>`select name from items where id = ${id}`.execute(connection);
        expect(rows[0]?.name).toBe(id === 1 ? 'one' : 'two');
      }
      const prepared = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(connection);
      const mine = prepared.rows.filter((row) => row.statement.includes('from items where id'));
      expect(mine).toHaveLength(1);
      expect(mine[0]?.name).toMatch(/^coffer_\d+$/);
    });
  });

  it('a plan gone stale under a schema change fails once, then the connection runs unnamed', async () => {
    await db.connection().execute(async (connection) => {
      await sql`select * from items where id = ${1}`.execute(connection);
      await sql`alter table items add column extra text`.execute(connection);
      await expect(sql`select * from items where id = ${1}`.execute(connection)).rejects.toMatchObject({ code: '0A000' });
      const { rows } = await sql<{ id: number; extra: string | null }>`select * from items where id = ${1}`.execute(connection);
      expect(rows[0]).toMatchObject({ id: 1, extra: null });
    });
  });

  it('two stores in one process keep their own names: each names the texts it meets, in its own order', async () => {
    const first = openStore({ kind: 'postgres', url: database.url });
    const second = openStore({ kind: 'postgres', url: database.url });
    const byId = (id: number) => sql<{ name: string }>`select name from items where id = ${id}`;
    const byName = (name: string) => sql<{ id: number }>`select id from items where name = ${name}`;
    const preparedOn = async (connection: Kysely<never>): Promise<Record<string, string>> => {
      const { rows } = await sql<{ name: string; statement: string }>`select name, statement from pg_prepared_statements`.execute(connection);
      return Object.fromEntries(rows.map((row) => [row.statement, row.name]));
    };
    try {
      const named = await (first.db as unknown as Kysely<never>).connection().execute(async (connection) => {
        await byId(1).execute(connection);
        await byName('one').execute(connection);
        return preparedOn(connection);
      });
      const namedByOther = await (second.db as unknown as Kysely<never>).connection().execute(async (connection) => {
        await byName('one').execute(connection);
        return preparedOn(connection);
      });
      const byIdText = byId(1).compile(db).sql;
      const byNameText = byName('one').compile(db).sql;
      expect(named).toEqual({ [byIdText]: 'coffer_1', [byNameText]: 'coffer_2' });
      // A process-wide map would have given this text coffer_2 here as well.
      expect(namedByOther).toEqual({ [byNameText]: 'coffer_1' });
    } finally {
      await first.close();
      await second.close();
    }
  });
});
