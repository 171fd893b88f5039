import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';

/**
 * Named prepared statements on PostgreSQL (issue 12). node-postgres sends an unnamed statement
 * (parse, plan, execute) for every query; given a name it parses once per connection and then
 * only binds and executes. Each distinct SQL text with parameters gets a stable name (the same
 * text always the same name, so connections agree); past MAX_NAMED texts (lists whose IN has a
 * varying length) queries go unnamed, which bounds what each connection keeps on the server.
 */

const MAX_NAMED = 2000;
const names = new Map<string, string>();

function nameFor(text: string): string | null {
  let name = names.get(text);
  if (name === undefined) {
    if (names.size >= MAX_NAMED) return null;
    name = `coffer_${names.size + 1}`;
    names.set(text, name);
  }
  return name;
}

/**
 * "cached plan must not change result type": a node upgraded beside this one added a column
 * under a prepared `select *`. That connection stops naming statements (the failing query's
 * error goes to its caller, as any store error does); new connections prepare afresh.
 */
const PLAN_CHANGED = '0A000';

/** Clients that saw their prepared plans go stale, named no more. */
const unnamed = new WeakSet<pg.PoolClient>();

function preparingClient(client: pg.PoolClient): PostgresPoolClient {
  return {
    query: ((textOrCursor: unknown, parameters?: readonly unknown[]) => {
      if (typeof textOrCursor !== 'string') return client.query(textOrCursor as never);
      const name = parameters !== undefined && parameters.length > 0 && !unnamed.has(client) ? nameFor(textOrCursor) : null;
      const run = name === null ? client.query(textOrCursor, parameters === undefined ? [] : [...parameters]) : client.query({ name, text: textOrCursor, values: [...(parameters as unknown[])] });
      return run.catch((error: unknown) => {
        if ((error as { code?: unknown }).code === PLAN_CHANGED) unnamed.add(client);
        throw error;
      });
    }) as unknown as PostgresPoolClient['query'],
    release: () => client.release(),
  };
}

/** The pool as Kysely sees it, each client naming its statements. */
export function preparingPool(pool: pg.Pool): PostgresPool {
  return {
    connect: async () => preparingClient(await pool.connect()),
    end: () => pool.end(),
  };
}
