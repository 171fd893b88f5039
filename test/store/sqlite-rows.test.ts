import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { CofferSqliteDialect } from '../../src/store/sqlite-dialect.js';
import { openSqliteStore, type SqliteStore } from '../../src/store/sqlite-store.js';
import { rowBuilder } from '../../src/store/sqlite-rows.js';

/**
 * Rows of reading statements are built by Coffer from the statement's values (sqlite-rows.ts):
 * they must be what better-sqlite3 itself would have returned, key for key, in the same order.
 */
describe('rows built by Coffer on SQLite (sqlite-rows.ts)', () => {
  let handle: BetterSqlite3.Database;
  let db: Kysely<Record<string, never>> | null = null;
  let store: SqliteStore | null = null;
  let dir: string | null = null;

  afterEach(async () => {
    await db?.destroy();
    db = null;
    await store?.close();
    store = null;
    if (dir !== null) fs.rmSync(dir, { recursive: true, force: true });
    dir = null;
  });

  function open(): Kysely<Record<string, never>> {
    handle = new BetterSqlite3(':memory:');
    db = new Kysely({ dialect: new CofferSqliteDialect({ database: handle }) });
    return db;
  }

  /** The same statement read by better-sqlite3 alone, on the same handle. */
  function direct(text: string, ...parameters: unknown[]): unknown[] {
    return handle.prepare(text).all(...parameters);
  }

  it('gives every column, in order, with the values better-sqlite3 gives: text, integers, reals, nulls, blobs', async () => {
    const db = open();
    handle.exec(`create table t (id integer primary key, name text, amount integer, rate real, note text, data blob, "odd ""name"" \\ x" text)`);
    handle.prepare(`insert into t values (1, 'é''"\\n', 9007199254740991, 1.5, null, x'00ff', 'q'), (2, '', -1, -0.25, 'n', null, null)`).run();
    const text = 'select * from t order by id';
    const rows = (await sql.raw(text).execute(db)).rows;
    expect(rows).toEqual(direct(text));
    for (const [index, row] of rows.entries()) expect(Object.keys(row as object)).toEqual(Object.keys(direct(text)[index] as object));
    expect(Buffer.isBuffer((rows[0] as { data: unknown }).data)).toBe(true);
  });

  it('keeps a repeated column name at its first place with its last value, as better-sqlite3 does', async () => {
    const db = open();
    const text = `select 1 as a, 2 as b, 3 as a`;
    const [row] = (await sql.raw(text).execute(db)).rows;
    expect(row).toEqual({ a: 3, b: 2 });
    expect(Object.keys(row as object)).toEqual(Object.keys(direct(text)[0] as object));
  });

  it('gives RETURNING rows, the numbers of writes without rows, and empty results as before', async () => {
    const db = open();
    handle.exec('create table t (id integer primary key, name text)');
    const inserted = await sql.raw(`insert into t (name) values ('a') returning *`).execute(db);
    expect(inserted.rows).toEqual([{ id: 1, name: 'a' }]);
    const updated = await sql.raw(`update t set name = 'b'`).execute(db);
    expect(updated.rows).toEqual([]);
    expect(updated.numAffectedRows).toBe(1n);
    expect((await sql.raw('select * from t where id = 5').execute(db)).rows).toEqual([]);
  });

  it('follows the schema: a cached `select *` after a column is added gives the new column', async () => {
    const db = open();
    handle.exec(`create table t (id integer primary key, name text); insert into t values (1, 'a')`);
    const text = 'select * from t';
    expect((await sql.raw(text).execute(db)).rows).toEqual([{ id: 1, name: 'a' }]);
    handle.exec(`alter table t add column note text default 'x'`);
    expect((await sql.raw(text).execute(db)).rows).toEqual([{ id: 1, name: 'a', note: 'x' }]);
    handle.exec(`alter table t drop column name`);
    expect((await sql.raw(text).execute(db)).rows).toEqual([{ id: 1, note: 'x' }]);
  });

  it('sees another process change the schema between two reads of the same statement', async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'coffer-rows-'));
    const file = path.join(dir, 'coffer.sqlite');
    store = openSqliteStore(file);
    await sql`create table t (id integer primary key, name text)`.execute(store.db);
    await sql`insert into t values (1, 'a')`.execute(store.db);
    expect((await sql`select * from t`.execute(store.db)).rows).toEqual([{ id: 1, name: 'a' }]);
    const other = new BetterSqlite3(file);
    other.exec(`alter table t rename column name to label; alter table t add column extra integer default 7`);
    other.close();
    expect((await sql`select * from t`.execute(store.db)).rows).toEqual([{ id: 1, label: 'a', extra: 7 }]);
  });

  it('makes rows of one hidden class: keys only, whatever the column names say', () => {
    const build = rowBuilder(['a', 'b"); process.exit(1); ("', 'constructor', '0']);
    expect(build([1, 2, 3, 4])).toEqual({ a: 1, 'b"); process.exit(1); ("': 2, constructor: 3, 0: 4 });
    expect(Object.keys(rowBuilder(['__proto__', 'a', '__proto__'])([1, 2, 3]))).toEqual(['a']);
  });

  it('treats a __proto__ column as better-sqlite3 does (it sets the prototype, here to nothing)', async () => {
    const db = open();
    for (const text of [`select 1 as "__proto__", 2 as a`, `select null as "__proto__", 2 as a, 3 as "__proto__"`]) {
      const [row] = (await sql.raw(text).execute(db)).rows;
      const expected = direct(text)[0] as object;
      expect(Object.getPrototypeOf(row)).toBe(Object.getPrototypeOf(expected));
      expect(Object.keys(row as object)).toEqual(Object.keys(expected));
    }
  });
});
