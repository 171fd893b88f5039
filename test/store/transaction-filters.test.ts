import { CompiledQuery, sql, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreHandle } from '../../src/store/database.js';
import { repositories } from '../../src/store/repositories.js';
import { newTransaction } from '../../src/services/transaction-records.js';
import { TRANSACTION_SEARCH_WINDOW, type TransactionSearch } from '../../src/domain/transaction.js';
import { storeKinds } from '../helpers/postgres.js';
import { scratchStore } from '../helpers/scratch-store.js';

/*
 * The portal's "find a payment" filters (docs/portal.md): amount range, currency and the payment
 * methods of a last four, alone and with the others; the window read when no index answers; and
 * the plans of the indexed ones on both stores.
 */
describe.each(storeKinds)('transaction search filters (%s)', (kind) => {
  let store: StoreHandle;
  let cleanup: () => Promise<void> | void;

  beforeAll(async () => {
    ({ store, cleanup } = await scratchStore(kind));
    const repos = repositories(store.db, store.dialect);
    const rows: Array<[string, number, string, string, string]> = [
      ['t-1', 500, 'USD', 'pm-a', 'Purchase'],
      ['t-2', 1500, 'USD', 'pm-b', 'Purchase'],
      ['t-3', 2500, 'EUR', 'pm-a', 'Authorization'],
      ['t-4', 1000, 'JPY', 'pm-c', 'Purchase'],
      ['t-5', 9900, 'USD', 'pm-b', 'Credit'],
    ];
    for (const [token, amount, currency, pm, type] of rows) {
      const base = newTransaction({ token, environmentKey: 'env', transactionType: type, outcome: 'succeeded', paymentMethodToken: pm, now: '2026-03-10T10:00:00.000Z' });
      await repos.transactions.insert({ ...base, amount, currencyCode: currency, messageKey: null, message: null });
    }
  });
  afterAll(async () => {
    await store.close();
    await cleanup();
  });

  const tokens = async (filter: Omit<TransactionSearch, 'count'>) =>
    (await repositories(store.db, store.dialect).transactions.search('env', { count: 50, ...filter })).transactions.map((t) => t.token);

  it('filters by amount range, currency and payment methods, newest first', async () => {
    expect(await tokens({ amountFrom: 1000, amountTo: 2500 })).toEqual(['t-4', 't-3', 't-2']);
    expect(await tokens({ amountFrom: 1000, amountTo: 2500, currency: 'USD' })).toEqual(['t-2']);
    expect(await tokens({ paymentMethodTokens: ['pm-a', 'pm-c'] })).toEqual(['t-4', 't-3', 't-1']);
    expect(await tokens({ paymentMethodTokens: ['pm-b'], amountTo: 2000 })).toEqual(['t-2']);
    expect(await tokens({ paymentMethodTokens: [] })).toEqual([]);
    expect(await tokens({ type: 'Purchase', amountFrom: 600 })).toEqual(['t-4', 't-2']);
  });

  it('reads a window of the newest rows when no index answers, and says where it stopped', async () => {
    const repos = repositories(store.db, store.dialect);
    const filler = Array.from({ length: TRANSACTION_SEARCH_WINDOW + 3 }, (_, index) => ({
      ...newTransaction({ token: `fill-${index}`, environmentKey: 'env', transactionType: 'Verify', outcome: 'succeeded', now: '2026-03-11T10:00:00.000Z' }),
      messageKey: null,
      message: null,
    }));
    await repos.transactions.insertMany(filler);
    try {
      const first = await repos.transactions.search('env', { amountFrom: 1, count: 50 });
      expect(first.transactions).toEqual([]);
      expect(first.scannedTo).not.toBeNull();
      const next = await repos.transactions.search('env', { amountFrom: 1, count: 50, beforePosition: first.scannedTo as number });
      expect(next.transactions.map((t) => t.token)).toEqual(['t-5', 't-4', 't-3', 't-2', 't-1']);
      expect(next.scannedTo).toBeNull();
    } finally {
      await store.db.deleteFrom('transactions').where('token', 'like', 'fill-%').execute();
    }
  });

  async function planOf(filter: TransactionSearch): Promise<string> {
    const sent: CompiledQuery[] = [];
    const capture: KyselyPlugin = {
      transformQuery: (args) => {
        sent.push(store.db.getExecutor().compileQuery(args.node, args.queryId));
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    await repositories(store.db.withPlugin(capture), store.dialect).transactions.search('env', filter);
    const main = sent.at(-1) as CompiledQuery;
    if (store.dialect === 'sqlite') {
      const plan = await store.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${main.sql}`, [...main.parameters]));
      return plan.rows.map((row) => row.detail).join('\n');
    }
    return store.db.transaction().execute(async (trx) => {
      await sql`set local enable_seqscan = off`.execute(trx);
      const plan = await trx.executeQuery<Record<string, string>>(CompiledQuery.raw(`explain ${main.sql}`, [...main.parameters]));
      return plan.rows.map((row) => Object.values(row).join(' ')).join('\n');
    });
  }

  it('finds the transactions of a last four through transactions_by_payment_method', async () => {
    const plan = await planOf({ paymentMethodTokens: ['pm-a', 'pm-b'], amountFrom: 100, count: 50 });
    expect(plan).toContain('transactions_by_payment_method');
    expect(plan).not.toMatch(/^SCAN transactions$/m);
    expect(plan).not.toContain('Seq Scan');
  });

  it('walks transactions_by_env for a window, never the whole table', async () => {
    const plan = await planOf({ amountFrom: 100, count: 50 });
    expect(plan).toContain('transactions_by_env');
    expect(plan).not.toMatch(/^SCAN transactions$/m);
    expect(plan).not.toContain('Seq Scan on transactions');
  });
});
