import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { PipelinedConnection } from './postgres-pipeline.js';

/**
 * Named prepared statements on PostgreSQL (docs/benchmarks.md). node-postgres sends an unnamed statement
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

/** Each pooled client's pipeline (postgres-pipeline.ts), made once per connection. */
const pipelines = new WeakMap<pg.PoolClient, PipelinedConnection>();

function send(client: pg.PoolClient, text: string, parameters: unknown[] | undefined): Promise<pg.QueryResult> {
  const name = parameters !== undefined && parameters.length > 0 && !unnamed.has(client) ? nameFor(text) : null;
  const run = name === null ? client.query(text, parameters ?? []) : client.query({ name, text, values: parameters as unknown[] });
  return run.catch((error: unknown) => {
    if ((error as { code?: unknown }).code === PLAN_CHANGED) unnamed.add(client);
    throw error;
  });
}

function pipelineOf(client: pg.PoolClient): PipelinedConnection {
  let pipeline = pipelines.get(client);
  if (pipeline === undefined) {
    pipeline = new PipelinedConnection(client.connection.stream as { cork?: () => void; uncork?: () => void }, (text, parameters) => send(client, text, parameters));
    pipelines.set(client, pipeline);
  }
  return pipeline;
}

function preparingClient(client: pg.PoolClient): PostgresPoolClient {
  const pipeline = pipelineOf(client);
  return {
    query: ((textOrCursor: unknown, parameters?: readonly unknown[]) => {
      if (typeof textOrCursor !== 'string') return client.query(textOrCursor as never);
      return pipeline.query(textOrCursor, parameters === undefined ? undefined : [...parameters]);
    }) as unknown as PostgresPoolClient['query'],
    // A connection given back in the middle of a transaction (its statements still in flight) is
    // closed rather than handed to the next request, which would run inside that transaction.
    release: () => client.release(pipeline.idle ? undefined : new Error('released inside a transaction')),
  };
}

/** The pool as Kysely sees it, each client naming its statements and pipelining its transactions. */
export function preparingPool(pool: pg.Pool): PostgresPool {
  return {
    connect: async () => preparingClient(await pool.connect()),
    end: () => pool.end(),
  };
}
