import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreHandle } from '../../src/store/database.js';
import { repositories } from '../../src/store/repositories.js';
import { newTransaction } from '../../src/services/transaction-records.js';
import { storeKinds } from '../helpers/postgres.js';
import { scratchStore } from '../helpers/scratch-store.js';

/*
 * The portal's date-range search (migration 012): newest first by (created_at, seq), paged by a
 * seq cursor, correct even where insertion order and created_at disagree; the plan
 * walks transactions_by_env_created_seq without sorting, on both stores.
 */
describe.each(storeKinds)('transactions search by date range (%s)', (kind) => {
  let store: StoreHandle;
  let cleanup: () => Promise<void> | void;
  const seqs = new Map<string, number>();

  beforeAll(async () => {
    ({ store, cleanup } = await scratchStore(kind));
    const repos = repositories(store.db, store.dialect);
    // Inserted out of time order: t-late first, t-early last (a clock step, a slow writer).
    const rows: Array<[string, string]> = [
      ['t-late', '2026-03-10T18:00:00.000Z'],
      ['t-mid', '2026-03-10T12:00:00.000Z'],
      ['t-other-day', '2026-03-11T01:00:00.000Z'],
      ['t-mid-2', '2026-03-10T12:00:00.000Z'],
      ['t-early', '2026-03-10T06:00:00.000Z'],
    ];
    for (const [token, createdAt] of rows) {
      const transaction = await repos.transactions.insert({ ...newTransaction({ token, environmentKey: 'env', transactionType: 'Purchase', outcome: 'succeeded', now: createdAt }), messageKey: null, message: null });
      seqs.set(token, transaction.position);
    }
  });
  afterAll(async () => {
    await store.close();
    await cleanup();
  });

  it('lists a day newest first by created_at, then pages after a seq cursor without losing or repeating a row', async () => {
    const transactions = repositories(store.db, store.dialect).transactions;
    const day = { from: '2026-03-10T00:00:00.000Z', to: '2026-03-11T00:00:00.000Z' };
    const all = (await transactions.search('env', { ...day, count: 10 })).transactions;
    expect(all.map((t) => t.token)).toEqual(['t-late', 't-mid-2', 't-mid', 't-early']);
    const first = (await transactions.search('env', { ...day, count: 2 })).transactions;
    expect(first.map((t) => t.token)).toEqual(['t-late', 't-mid-2']);
    const second = (await transactions.search('env', { ...day, count: 2, beforePosition: seqs.get('t-mid-2') as number })).transactions;
    expect(second.map((t) => t.token)).toEqual(['t-mid', 't-early']);
    const fromOnly = (await transactions.search('env', { from: '2026-03-10T12:00:00.000Z', count: 10 })).transactions;
    expect(fromOnly.map((t) => t.token)).toEqual(['t-other-day', 't-late', 't-mid-2', 't-mid']);
  });

  // The first page, and a later one (the cursor's row value bounds the walk too).
  it.each([
    ['first page', ''],
    ['later page', ` and (created_at, seq) < ('2026-03-10T12:00:00.000Z', 4)`],
  ])('the plan of a %s reads transactions_by_env_created_seq, with no sort', async (_name, cursor) => {
    const query = (prefix: string) => sql.raw(
      `${prefix} select * from transactions where environment_key = 'env' and created_at >= '2026-03-10' and created_at < '2026-03-11'${cursor} order by created_at desc, seq desc limit 50`,
    );
    let details: string;
    if (store.dialect === 'sqlite') {
      const plan = await query('explain query plan').execute(store.db);
      details = (plan.rows as Array<{ detail: string }>).map((row) => row.detail).join('\n');
      expect(details).not.toContain('TEMP B-TREE');
    } else {
      // Five rows: without this the planner rightly prefers a sequential scan.
      details = await store.db.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        const plan = await query('explain').execute(trx);
        return (plan.rows as Array<Record<string, string>>).map((row) => Object.values(row).join(' ')).join('\n');
      });
      expect(details).not.toMatch(/\bSort\b/);
    }
    expect(details).toContain('transactions_by_env_created_seq');
  });
});
