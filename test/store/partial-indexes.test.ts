import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateStore, openStore, type StoreHandle } from '../../src/store/database.js';
import { PARTIAL_INDEXES } from '../../src/store/migrations/016-partial-indexes.js';
import { createPostgresDatabase, storeKinds } from '../helpers/postgres.js';
import { tempDir } from '../helpers/temp.js';

/**
 * Migration 016: the indexes of mostly-null columns hold only non-null rows, and the
 * queries that use them can still use them. Each query below has the shape of its repository's
 * (transactions.repo.ts, payment-methods.repo.ts).
 */
const QUERIES: Record<string, string> = {
  transactions_by_reference: `select * from transactions {hint} where environment_key = 'e' and reference_token = 'r' order by seq`,
  transactions_by_first_attempt: `select * from transactions {hint} where environment_key = 'e' and first_attempt_token in ('a', 'b')`,
  transactions_to_reconcile: `select * from transactions {hint} where reconcile_next_at <= '2030-01-01' order by reconcile_next_at limit 10`,
  transactions_by_order: `select * from transactions {hint} where environment_key = 'e' and order_id = 'o'`,
  payment_methods_cvv_expiry: `select * from payment_methods {hint} where cvv_expires_at <= '2030-01-01' limit 10`,
  payment_methods_cache_expiry: `select * from payment_methods {hint} where storage_state = 'cached' and cache_expires_at <= '2030-01-01' order by cache_expires_at limit 10`,
};

describe.each(storeKinds)('partial indexes (%s)', (kind) => {
  let store: StoreHandle;
  let cleanup: () => Promise<void> | void = () => undefined;

  beforeAll(async () => {
    if (kind === 'sqlite') {
      const temp = tempDir('coffer-partial-');
      cleanup = temp.cleanup;
      store = openStore({ kind: 'sqlite', path: path.join(temp.dir, 'coffer.sqlite') });
    } else {
      const database = await createPostgresDatabase();
      cleanup = database.drop;
      store = openStore({ kind: 'postgres', url: database.url });
    }
    await migrateStore(store);
  });
  afterAll(async () => {
    await store.close();
    await cleanup();
  });

  it('every query of a partial index can use it', async () => {
    expect(Object.keys(QUERIES).sort()).toEqual(PARTIAL_INDEXES.map((index) => index.name).sort());
    for (const index of PARTIAL_INDEXES) {
      const query = QUERIES[index.name] as string;
      if (kind === 'sqlite') {
        // INDEXED BY fails ("no query solution") when the query does not imply the index's WHERE.
        const { rows } = await sql.raw(`explain query plan ${query.replace('{hint}', `indexed by ${index.name}`)}`).execute(store.db);
        expect(JSON.stringify(rows), index.name).toContain(index.name);
      } else {
        // With other plans priced out, the planner takes the partial index only if the query implies its predicate.
        const plan = await store.db.transaction().execute(async (trx) => {
          await sql`set local enable_seqscan = off`.execute(trx);
          await sql`set local enable_bitmapscan = off`.execute(trx);
          const dropped = await sql<{ indexname: string }>`select indexname from pg_indexes where tablename = ${index.table} and indexname <> ${index.name} and indexname not like '%pkey' and indexname not like '%_key'`.execute(trx);
          for (const other of dropped.rows) await sql.raw(`drop index ${other.indexname}`).execute(trx);
          const { rows } = await sql.raw<{ 'QUERY PLAN': string }>(`explain ${query.replace('{hint}', '')}`).execute(trx);
          // Roll back: the drops were only to leave this index as the one candidate.
          throw new PlanFound(rows.map((row) => row['QUERY PLAN']).join('\n'));
        }).catch((error: unknown) => {
          if (error instanceof PlanFound) return error.plan;
          throw error;
        });
        expect(plan, index.name).toContain(index.name);
      }
    }
  });

  it('each holds only the rows where its column is not null', async () => {
    if (kind !== 'sqlite') return expect(await indexDefinitions(store)).toEqual(PARTIAL_INDEXES.map((index) => `${index.name} ${index.notNull}`).sort());
    const { rows } = await sql<{ name: string; sql: string }>`select name, sql from sqlite_master where type = 'index' and name in (${sql.join(PARTIAL_INDEXES.map((index) => index.name))}) order by name`.execute(store.db);
    expect(rows.map((row) => `${row.name} ${/where\s+"?(\w+)"?\s+is not null/i.exec(row.sql)?.[1] ?? 'no where'}`)).toEqual(PARTIAL_INDEXES.map((index) => `${index.name} ${index.notNull}`).sort());
  });
});

class PlanFound extends Error {
  constructor(readonly plan: string) {
    super('plan found');
  }
}

/** "name column" of each partial index on PostgreSQL, from its definition's WHERE clause. */
async function indexDefinitions(store: StoreHandle): Promise<string[]> {
  const names = PARTIAL_INDEXES.map((index) => index.name);
  const { rows } = await sql<{ indexname: string; indexdef: string }>`select indexname, indexdef from pg_indexes where indexname in (${sql.join(names)}) order by indexname`.execute(store.db);
  return rows.map((row) => `${row.indexname} ${/WHERE \((\w+) IS NOT NULL\)/.exec(row.indexdef)?.[1] ?? 'no where'}`);
}
