import type { CompiledQuery } from 'kysely';

/**
 * A compiled statement whose result nobody reads, only whether it failed: inside a PostgreSQL
 * transaction it is sent without waiting for its answer (postgres-pipeline.ts; the contract is in
 * docs/reliability.md, "Adding a query"). The declaration travels on the query object itself, which
 * Kysely hands unchanged to the driver's connection: the same SQL text built elsewhere, whose
 * caller may read its rows or row count, is a different object and is never deferred. SQLite runs
 * every statement to its end before the next one and ignores it.
 */
export type DeferrableQuery<Row = unknown> = CompiledQuery<Row> & { readonly deferrable: true };

/** Declares `query` deferrable: call it where the statement is defined, never on one whose result is read. */
export function deferrable<Row>(query: CompiledQuery<Row>): DeferrableQuery<Row> {
  return Object.freeze({ ...query, deferrable: true as const });
}

/** Whether `query` was declared with `deferrable`. */
export function isDeferrable(query: CompiledQuery): query is DeferrableQuery {
  return (query as Partial<DeferrableQuery>).deferrable === true;
}
