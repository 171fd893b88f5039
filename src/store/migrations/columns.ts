import type { CreateTableBuilder } from 'kysely';
import type { Dialect } from '../dialect.js';

/** Adds the dialect's auto-increment `seq` primary key. */
export function withSeq<T extends string>(table: CreateTableBuilder<T, never>, dialect: Dialect): CreateTableBuilder<T, 'seq'> {
  return dialect === 'postgres'
    ? table.addColumn('seq', 'bigserial', (c) => c.primaryKey())
    : table.addColumn('seq', 'integer', (c) => c.primaryKey().autoIncrement());
}
