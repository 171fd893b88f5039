import BetterSqlite3 from 'better-sqlite3';
import { Kysely, PostgresDialect, sql, SqliteDialect } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { isDeferrable } from '../../src/store/deferrable-query.js';
import { columnsOf, Precompiled, recordOf, recordShape } from '../../src/store/repositories/precompiled.js';
import type { Database } from '../../src/store/schema.js';

interface Items {
  items: { id: number; name: string; state: string; note: string | null };
}

/** Kysely over an in-memory SQLite table `items`. */
function sqliteDb(): Kysely<Items> {
  const db = new Kysely<Items>({ dialect: new SqliteDialect({ database: new BetterSqlite3(':memory:') }) });
  return db;
}

/** The Precompiled API is typed for Coffer's schema; these tests use a table of their own. */
const asCoffer = (db: Kysely<Items>) => db as unknown as Kysely<Database>;
const asItems = (db: Kysely<Database>) => db as unknown as Kysely<Items>;

describe('Precompiled (queries built by Kysely once per database kind and shape)', () => {
  let db: Kysely<Items>;
  afterEach(async () => {
    await db.destroy();
  });

  async function withItems(): Promise<Kysely<Items>> {
    db = sqliteDb();
    await sql`create table items (id integer primary key, name text not null, state text not null, note text)`.execute(db);
    await db
      .insertInto('items')
      .values([
        { id: 1, name: 'a', state: 'open', note: null },
        { id: 2, name: 'b', state: 'done', note: 'x' },
        { id: 3, name: 'c', state: 'open', note: 'y' },
      ])
      .execute();
    return db;
  }

  it('binds each call its own values and keeps constants the builder wrote', async () => {
    await withItems();
    let builds = 0;
    const byNameInState = new Precompiled<Items['items']>((coffer, [name]) => {
      builds += 1;
      return asItems(coffer).selectFrom('items').selectAll().where('name', '=', name as string).where('state', '=', 'open');
    });
    expect((await byNameInState.rows(asCoffer(db), '', ['a'])).map((row) => row.id)).toEqual([1]);
    expect(await byNameInState.rows(asCoffer(db), '', ['b'])).toEqual([]); // b is done: the constant is still bound
    expect((await byNameInState.first(asCoffer(db), '', ['c']))?.id).toBe(3);
    const compiled = byNameInState.query(asCoffer(db), '', ['zz']);
    expect(compiled.sql).toBe('select * from "items" where "name" = ? and "state" = ?');
    expect(compiled.parameters).toEqual(['zz', 'open']);
    expect(builds).toBe(1);
  });

  it('compiles one text per shape: an update of different columns, an in-list of different lengths', async () => {
    await withItems();
    const update = new Precompiled<Items['items']>((coffer, values, shape) => {
      const columns = columnsOf(shape);
      return asItems(coffer)
        .updateTable('items')
        .set(recordOf(columns, values))
        .where('id', '=', values[columns.length] as number)
        .returningAll();
    });
    const first = recordShape({ name: 'A', note: undefined, state: 'done' });
    expect(first).toEqual({ columns: ['name', 'state'], values: ['A', 'done'], shape: 'name,state' });
    expect(await update.first(asCoffer(db), first?.shape ?? '', [...(first?.values ?? []), 1])).toEqual({ id: 1, name: 'A', state: 'done', note: null });
    expect(await update.first(asCoffer(db), 'note', [null, 2])).toEqual({ id: 2, name: 'b', state: 'done', note: null });
    expect(update.query(asCoffer(db), 'note', [null, 2]).sql).toBe('update "items" set "note" = ? where "id" = ? returning *');

    const byIds = new Precompiled<Items['items']>((coffer, ids) =>
      asItems(coffer)
        .selectFrom('items')
        .selectAll()
        .where('id', 'in', ids as number[])
        .orderBy('id'),
    );
    expect((await byIds.rows(asCoffer(db), '2', [1, 3])).map((row) => row.id)).toEqual([1, 3]);
    expect((await byIds.rows(asCoffer(db), '3', [3, 2, 1])).map((row) => row.id)).toEqual([1, 2, 3]);
    expect((await byIds.rows(asCoffer(db), '2', [2, 9])).map((row) => row.id)).toEqual([2]);
  });

  it('keeps a separate text per database kind (PostgreSQL numbers its parameters)', async () => {
    await withItems();
    const byName = new Precompiled<Items['items']>((coffer, [name]) => asItems(coffer).selectFrom('items').selectAll().where('name', '=', name as string));
    // Compiling needs no connection: the pool is never asked for one.
    const postgres = new Kysely<Items>({ dialect: new PostgresDialect({ pool: {} as never }) });
    expect(byName.query(asCoffer(postgres), '', ['a']).sql).toBe('select * from "items" where "name" = $1');
    expect(byName.query(asCoffer(db), '', ['a']).sql).toBe('select * from "items" where "name" = ?');
    expect(byName.query(asCoffer(postgres), '', ['b']).parameters).toEqual(['b']);
  });

  it('refuses a builder that binds a value twice or not at all (the cached text would run wrong)', async () => {
    await withItems();
    const twice = new Precompiled<Items['items']>((coffer, [name]) =>
      asItems(coffer)
        .selectFrom('items')
        .selectAll()
        .where('name', '=', name as string)
        .where('state', '=', name as string),
    );
    expect(() => twice.query(asCoffer(db), '', ['a'])).toThrow(/binds value 0 2 times/);
    const never = new Precompiled<Items['items']>((coffer) => asItems(coffer).selectFrom('items').selectAll().where('name', '=', 'a'));
    expect(() => never.query(asCoffer(db), '', ['a'])).toThrow(/binds value 0 0 times/);
  });

  it('declares a deferrable statement on each query it makes, never on the same statement built elsewhere', async () => {
    await withItems();
    const build = (coffer: Kysely<Database>, [state, id]: readonly unknown[]) => asItems(coffer).updateTable('items').set({ state: state as string }).where('id', '=', id as number);
    const deferrable = new Precompiled(build, { deferrable: true });
    const plain = new Precompiled(build);
    const declared = deferrable.query(asCoffer(db), '', ['x', 1]);
    const undeclared = plain.query(asCoffer(db), '', ['x', 1]);
    // One text, one statement: the declaration is on the query object, not in its SQL.
    expect(declared.sql).toBe('update "items" set "state" = ? where "id" = ?');
    expect(undeclared.sql).toBe(declared.sql);
    expect(declared.parameters).toEqual(['x', 1]);
    expect(isDeferrable(declared)).toBe(true);
    expect(isDeferrable(undeclared)).toBe(false);
    expect(isDeferrable(build(asCoffer(db), ['x', 1]).compile())).toBe(false);
    // SQLite ignores the declaration: both run as written.
    await deferrable.rows(asCoffer(db), '', ['closed', 1]);
    await plain.rows(asCoffer(db), '', ['closed', 2]);
    expect((await db.selectFrom('items').select('state').orderBy('id').execute()).map((row) => row.state)).toEqual(['closed', 'closed', 'open']);
  });

  it('has no shape for a record holding SQL or a callback: those are built the usual way', () => {
    expect(recordShape({ name: 'a', state: sql`upper(state)` })).toBeNull();
    expect(recordShape({ name: () => sql`1` })).toBeNull();
    expect(recordShape({ name: null, note: undefined, id: 0 })).toEqual({ columns: ['name', 'id'], values: [null, 0], shape: 'name,id' });
    expect(recordShape({})).toEqual({ columns: [], values: [], shape: '' });
    expect(columnsOf('')).toEqual([]);
    expect(columnsOf('name,id')).toEqual(['name', 'id']);
  });
});
