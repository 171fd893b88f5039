import type BetterSqlite3 from 'better-sqlite3';
import type { CompiledQuery, DatabaseConnection, QueryResult } from 'kysely';

/** Builds one row object from a row's values, in the statement's column order. */
type RowBuilder = (values: readonly unknown[]) => Record<string, unknown>;

/** A statement's builder and the schema it was made for (`select *` follows the schema). */
interface ShapedStatement {
  schemaVersion: number;
  build: RowBuilder;
}

/**
 * Kysely's SQLite connection, with the rows of every reading statement built by Coffer instead of
 * by better-sqlite3 (docs/benchmarks.md, "Rows of one shape"). better-sqlite3 makes each row
 * object by setting its columns one by one, the column names internalized again for every row;
 * a row of `transactions` (26 columns) or `payment_methods` ends up in V8's dictionary mode, and
 * every read of it after (the mappers read each column) is a hash look-up. Here the statement
 * returns its values as an array (`raw`) and one function per statement, written once from its
 * column names, makes each row as an object literal: the same keys in the same order with the same
 * values, one hidden class per statement: a page of 20 transactions read in about 40 % less time.
 *
 * Everything else is Kysely's connection unchanged: statements that do not read, streaming, and
 * the prepared-statement cache (sqlite-store.ts), which marks the connection as having written.
 */
export class ShapedRowsConnection implements DatabaseConnection {
  private readonly shaped = new WeakMap<BetterSqlite3.Statement, ShapedStatement>();
  private readonly schemaVersion: BetterSqlite3.Statement<[], number>;

  constructor(
    private readonly handle: BetterSqlite3.Database,
    private readonly inner: DatabaseConnection,
  ) {
    // Prepared past the statement cache (sqlite-store.ts): a statement of its own, whose plucking
    // no other use of the same text can undo.
    const prepare = (Object.getPrototypeOf(handle) as BetterSqlite3.Database).prepare;
    this.schemaVersion = prepare.call(handle, 'pragma schema_version').pluck() as BetterSqlite3.Statement<[], number>;
  }

  executeQuery<R>(compiledQuery: CompiledQuery): Promise<QueryResult<R>> {
    const statement = this.handle.prepare(compiledQuery.sql);
    if (!statement.reader) return this.inner.executeQuery<R>(compiledQuery);
    return Promise.resolve({ rows: this.rows(statement, compiledQuery.parameters) as R[] });
  }

  streamQuery<R>(compiledQuery: CompiledQuery, chunkSize?: number): AsyncIterableIterator<QueryResult<R>> {
    return this.inner.streamQuery<R>(compiledQuery, chunkSize);
  }

  private rows(statement: BetterSqlite3.Statement, parameters: readonly unknown[]): unknown[] {
    // Read before the statement runs, its columns after (see `builderOf`).
    const schemaVersion = this.schemaVersion.get() as number;
    statement.raw(true);
    let values: unknown[][];
    try {
      values = statement.all(parameters) as unknown[][];
    } finally {
      statement.raw(false);
    }
    const build = this.builderOf(statement, schemaVersion);
    const rows = new Array<Record<string, unknown>>(values.length);
    for (let index = 0; index < values.length; index += 1) rows[index] = build(values[index] as unknown[]);
    return rows;
  }

  /**
   * The statement's builder, made again when the schema changed since it was made (a migration,
   * here or in another process): SQLite then prepares the cached statement again as it runs, and
   * a `select *` may have other columns. The version is read before the statement ran and its
   * columns after, so the columns are never older than the version they are kept for: a change in
   * between only makes the next run build again. Reading the version costs under a microsecond.
   */
  private builderOf(statement: BetterSqlite3.Statement, schemaVersion: number): RowBuilder {
    const known = this.shaped.get(statement);
    if (known !== undefined && known.schemaVersion === schemaVersion) return known.build;
    const shaped = { schemaVersion, build: rowBuilder(statement.columns().map((column) => column.name)) };
    this.shaped.set(statement, shaped);
    return shaped.build;
  }
}

/**
 * `(values) => ({ "name0": values[0], … })` for these column names. Each name is written as a JSON
 * string literal, so no name can be anything but a key. A repeated name keeps its first place and
 * its last value, as better-sqlite3's own rows do. A `__proto__` column sets the row's prototype in
 * better-sqlite3 (each column is assigned in turn); an object literal would do the same once but
 * refuses the key twice, so such a statement's rows are assigned in turn here too.
 */
export function rowBuilder(names: readonly string[]): RowBuilder {
  if (names.includes('__proto__')) {
    return (values) => {
      const row: Record<string, unknown> = {};
      for (let index = 0; index < names.length; index += 1) row[names[index] as string] = values[index];
      return row;
    };
  }
  const fields = names.map((name, index) => `${JSON.stringify(name)}: values[${index}]`).join(', ');
  return new Function('values', `return { ${fields} };`) as RowBuilder;
}
