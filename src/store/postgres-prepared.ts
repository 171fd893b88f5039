import type pg from 'pg';

/**
 * Named prepared statements on PostgreSQL (docs/benchmarks.md, "Named prepared statements").
 * node-postgres sends an unnamed statement (parse, plan, execute) for every query; given a name it
 * parses once per connection and then only binds and executes.
 *
 * The names belong to one store's pool (postgres-driver.ts makes one StatementNames per store):
 * each distinct SQL text with parameters gets a stable name within it, so the pool's connections
 * agree, and two stores in one process never share a counter or a bound. Past MAX_NAMED texts
 * (lists whose IN has a varying length) queries go unnamed, which bounds what each connection
 * keeps on the server.
 */
export const MAX_NAMED = 2000;

/** One store's SQL texts and the names their prepared statements go by on its connections. */
export class StatementNames {
  private readonly names = new Map<string, string>();

  /** The name of `text`, given on first use; null once MAX_NAMED texts are named. */
  nameFor(text: string): string | null {
    let name = this.names.get(text);
    if (name === undefined) {
      if (this.names.size >= MAX_NAMED) return null;
      name = `coffer_${this.names.size + 1}`;
      this.names.set(text, name);
    }
    return name;
  }
}

/**
 * "cached plan must not change result type": a node upgraded beside this one added a column
 * under a prepared `select *`. That connection stops naming statements (the failing query's
 * error goes to its caller, as any store error does); new connections prepare afresh.
 */
const PLAN_CHANGED = '0A000';

/** One pooled connection sending its statements by name, until its prepared plans go stale. */
export class PreparingClient {
  private naming = true;

  constructor(
    private readonly client: pg.PoolClient,
    private readonly names: StatementNames,
  ) {}

  send(text: string, parameters: unknown[] | undefined): Promise<pg.QueryResult> {
    const name = parameters !== undefined && parameters.length > 0 && this.naming ? this.names.nameFor(text) : null;
    const run = name === null ? this.client.query(text, parameters ?? []) : this.client.query({ name, text, values: parameters as unknown[] });
    return run.catch((error: unknown) => {
      if ((error as { code?: unknown }).code === PLAN_CHANGED) this.naming = false;
      throw error;
    });
  }
}
