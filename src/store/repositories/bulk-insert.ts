import { isOperationNodeSource, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { columnsOf, Precompiled, recordOf, recordShape } from './precompiled.js';

type Table = keyof Database;

/** One Precompiled insert per table and returning-or-not; its shape is the row count and the columns. */
const INSERTS = new Map<string, Precompiled<unknown>>();

function insertOf(table: Table, returningAll: boolean): Precompiled<unknown> {
  const key = `${table}|${returningAll}`;
  let insert = INSERTS.get(key);
  if (insert === undefined) {
    insert = new Precompiled<unknown>((db, values, shape) => {
      const at = shape.indexOf('|');
      const count = Number(shape.slice(0, at));
      const columns = columnsOf(shape.slice(at + 1));
      const rows = Array.from({ length: count }, (_, row) => recordOf(columns, values.slice(row * columns.length, (row + 1) * columns.length)));
      const query = db.insertInto(table).values(rows as never);
      return returningAll ? query.returningAll() : query;
    });
    INSERTS.set(key, insert);
  }
  return insert;
}

/**
 * Inserts `rows` into `table` in one statement, compiled once per row count and column list (a
 * bulk import's statements all have the same shape): building a multi-row insert with Kysely on
 * every call was a third of an import's time. Rows whose columns differ, or that hold SQL
 * expressions, are inserted the usual way. Returns the rows written when `returningAll`.
 */
export async function insertRows<Row>(db: Kysely<Database>, table: Table, rows: readonly object[], returningAll = false): Promise<Row[]> {
  if (rows.length === 0) return [];
  const first = recordShape(rows[0] as object);
  const values = first === null ? null : sameShapeValues(rows, first.columns);
  if (first === null || values === null) {
    const query = db.insertInto(table).values(rows as never);
    return (returningAll ? await query.returningAll().execute() : (await query.execute(), [])) as Row[];
  }
  return (await insertOf(table, returningAll).rows(db, `${rows.length}|${first.shape}`, values)) as Row[];
}

/**
 * Every row's values in `columns` order, or null when a row has other columns (a column left
 * undefined counts as absent, as Kysely leaves it out) or a value that is SQL rather than a value.
 */
function sameShapeValues(rows: readonly object[], columns: readonly string[]): unknown[] | null {
  const values: unknown[] = new Array<unknown>(rows.length * columns.length);
  let at = 0;
  for (const row of rows) {
    const record = row as Record<string, unknown>;
    let defined = 0;
    for (const key in record) if (record[key] !== undefined) defined += 1;
    if (defined !== columns.length) return null;
    for (const column of columns) {
      const value = record[column];
      if (value === undefined || typeof value === 'function' || (typeof value === 'object' && value !== null && isOperationNodeSource(value))) return null;
      values[at] = value;
      at += 1;
    }
  }
  return values;
}
