import { CompiledQuery, isOperationNodeSource, type Compilable, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { deferrable } from '../deferrable-query.js';

/** Where a compiled parameter's value comes from: the call's values (by position) or the builder itself. */
type Slot = { value: number } | { constant: unknown };

interface CompiledShape {
  sql: string;
  slots: Slot[];
}

/**
 * A hot query built and compiled by Kysely once per database kind and shape instead of on every
 * call (that cost 4–7 µs a query, a few percent of a request). The builder gets a placeholder for
 * each value; compiling maps each of the SQL's parameters either to a value, by its placeholder, or
 * to a constant the builder wrote itself. Each call then binds its own values to the same text.
 *
 * The cache key is the database's adapter (SQLite and PostgreSQL write different SQL) and a shape
 * string naming whatever else changes the SQL: the columns an insert or update sets, the length of
 * an `in` list. The builder must build the same SQL for the same shape.
 */
export class Precompiled<Row> {
  private readonly shapes = new WeakMap<object, Map<string, CompiledShape>>();

  /**
   * `deferrable`: nobody reads this statement's result, only whether it failed; inside a
   * PostgreSQL transaction it is sent without waiting for its answer (deferrable-query.ts). Each
   * query this Precompiled makes carries the declaration; the same text built elsewhere does not.
   */
  constructor(
    private readonly build: (db: Kysely<Database>, values: readonly unknown[], shape: string) => Compilable<Row>,
    private readonly options: { deferrable?: boolean } = {},
  ) {}

  query(db: Kysely<Database>, shape: string, values: readonly unknown[]): CompiledQuery<Row> {
    const adapter = db.getExecutor().adapter;
    let byShape = this.shapes.get(adapter);
    if (byShape === undefined) {
      byShape = new Map();
      this.shapes.set(adapter, byShape);
    }
    let compiled = byShape.get(shape);
    if (compiled === undefined) {
      compiled = compileShape(this.build(db, placeholders(values.length), shape), values.length);
      byShape.set(shape, compiled);
    }
    const parameters = compiled.slots.map((slot) => ('value' in slot ? values[slot.value] : slot.constant));
    const query = CompiledQuery.raw(compiled.sql, parameters) as CompiledQuery<Row>;
    return this.options.deferrable === true ? deferrable(query) : query;
  }

  async rows(db: Kysely<Database>, shape: string, values: readonly unknown[]): Promise<Row[]> {
    return (await db.executeQuery(this.query(db, shape, values))).rows;
  }

  async first(db: Kysely<Database>, shape: string, values: readonly unknown[]): Promise<Row | undefined> {
    return (await this.rows(db, shape, values))[0];
  }
}

const PLACEHOLDER = '\u0000coffer-precompiled-value-';
const placeholderList: string[] = [];

/** `count` distinct strings no caller's value can be (they start with NUL). */
function placeholders(count: number): readonly string[] {
  while (placeholderList.length < count) placeholderList.push(`${PLACEHOLDER}${placeholderList.length}\u0000`);
  return placeholderList.slice(0, count);
}

function compileShape(query: Compilable<unknown>, valueCount: number): CompiledShape {
  const { sql, parameters } = query.compile();
  const names = placeholders(valueCount);
  const slots: Slot[] = parameters.map((parameter) => {
    const index = typeof parameter === 'string' ? names.indexOf(parameter) : -1;
    return index === -1 ? { constant: parameter } : { value: index };
  });
  // Every value must be bound exactly once, or the cached text would run with a value missing or doubled.
  for (let index = 0; index < valueCount; index += 1) {
    const uses = slots.filter((slot) => 'value' in slot && slot.value === index).length;
    if (uses !== 1) throw new Error(`precompiled query binds value ${index} ${uses} times: ${sql}`);
  }
  return { sql, slots };
}

/** An insert's or update's record as a precompiled query takes it: `shape` names its columns (see columnsOf). */
export interface RecordShape {
  columns: string[];
  values: unknown[];
  shape: string;
}

/**
 * The defined columns of an insert's or update's record and their values, in order, or null when a
 * value is a Kysely expression or a callback building one (SQL, not a parameter): such a record is
 * built the usual way.
 */
export function recordShape(record: object): RecordShape | null {
  const columns: string[] = [];
  const values: unknown[] = [];
  for (const [column, value] of Object.entries(record)) {
    // Kysely leaves an undefined column out of the statement: so does the shape.
    if (value === undefined) continue;
    if (typeof value === 'function' || (typeof value === 'object' && value !== null && isOperationNodeSource(value))) return null;
    columns.push(column);
    values.push(value);
  }
  return { columns, values, shape: columns.join(',') };
}

/** The columns a record's `shape` names (column names never hold a comma). */
export function columnsOf(shape: string): string[] {
  return shape === '' ? [] : shape.split(',');
}

/** The record of `columns` with `values`, as the builder passes it to Kysely. */
export function recordOf(columns: readonly string[], values: readonly unknown[]): Record<string, unknown> {
  return Object.fromEntries(columns.map((column, index) => [column, values[index]]));
}
