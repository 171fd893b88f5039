import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreHandle } from '../../src/store/database.js';
import { certificateOf } from '../../src/store/mappers/certificate.js';
import { repositories } from '../../src/store/repositories.js';
import { transactionOf } from '../../src/store/mappers/transaction.js';
import { newTransaction } from '../../src/services/transaction-records.js';
import { readInGroups, readPage, type PageRequest } from '../../src/store/repositories/page.js';
import { storeKinds } from '../helpers/postgres.js';
import { scratchStore } from '../helpers/scratch-store.js';
import { turnCounter } from '../helpers/turn-counter.js';

/*
 * Pages of large rows are read in several statements with a turn of the event loop between two
 * (src/store/repositories/page.ts; docs/wire-compatibility.md, "Large pages"): better-sqlite3 reads
 * synchronously, and one statement for 100 payment methods of 64 KiB of `data` each held the loop.
 * The rows must be those one statement reads, and a page is never short unless the list ends.
 * Turns are counted, never timed.
 */

interface FakeRow {
  seq: number;
  text: string;
}

/** A table of `count` rows, `chars` characters each, read as keyset statements are; records each statement's count. */
function table(count: number, chars: number) {
  let rows: FakeRow[] = Array.from({ length: count }, (_, index) => ({ seq: (index + 1) * 3, text: 'x'.repeat(chars) }));
  const statements: number[] = [];
  return {
    statements,
    drop: (seq: number) => (rows = rows.filter((row) => row.seq !== seq)),
    read: async (part: PageRequest): Promise<FakeRow[]> => {
      statements.push(part.count);
      const after = rows.filter((row) => part.sinceSeq === null || (part.order === 'asc' ? row.seq > part.sinceSeq : row.seq < part.sinceSeq));
      const ordered = part.order === 'asc' ? after : [...after].reverse();
      return ordered.slice(0, part.count);
    },
  };
}

describe('readPage: a page in keyset statements of bounded size', () => {
  it('reads the rows one statement reads, in order, for every count, order and starting point', async () => {
    for (const chars of [10, 40_000, 300_000]) {
      for (const order of ['asc', 'desc'] as const) {
        for (const [sinceSeq, count] of [[null, 100], [null, 7], [30, 100], [150, 20], [298, 5]] as const) {
          const source = table(100, chars);
          const oneStatement = await table(100, chars).read({ sinceSeq, order, count });
          const rows = await readPage({ sinceSeq, order, count }, source.read);
          expect(rows.map((row) => row.seq)).toEqual(oneStatement.map((row) => row.seq));
        }
      }
    }
  });

  it('small rows: a default page is one statement, a page of 100 two; large rows: statements of about 512 KiB, the loop turning between', async () => {
    const small = table(100, 500);
    expect(await readPage({ sinceSeq: null, order: 'asc', count: 20 }, small.read)).toHaveLength(20);
    expect(small.statements).toEqual([20]);
    const hundred = table(100, 500);
    await readPage({ sinceSeq: null, order: 'asc', count: 100 }, hundred.read);
    expect(hundred.statements).toEqual([20, 80]);
    const large = table(100, 80_000);
    const counter = turnCounter();
    const rows = await readPage({ sinceSeq: null, order: 'asc', count: 100 }, large.read);
    counter.stop();
    expect(rows).toHaveLength(100);
    // 20 first, then 6 rows of 80,000 characters (480,000 ≤ 512 KiB) a statement.
    expect(large.statements[0]).toBe(20);
    expect(Math.max(...large.statements.slice(1))).toBe(6);
    expect(counter.turns()).toBeGreaterThanOrEqual(large.statements.length - 1);
  });

  it('is never short while rows remain: a row gone between two statements is made up by the next', async () => {
    const source = table(100, 80_000);
    const read = async (part: PageRequest) => {
      const rows = await source.read(part);
      // After the first statement, a row further on disappears (redacted out of a state filter, say).
      if (source.statements.length === 1) source.drop(90);
      return rows;
    };
    const rows = await readPage({ sinceSeq: null, order: 'asc', count: 40 }, read);
    expect(rows).toHaveLength(40);
    expect(rows.map((row) => row.seq)).not.toContain(90);
    const toTheEnd = await readPage({ sinceSeq: 240, order: 'asc', count: 100 }, source.read);
    expect(toTheEnd.map((row) => row.seq)).toEqual(Array.from({ length: 20 }, (_, index) => 243 + index * 3));
  });

  it('readInGroups asks for every key once, a group at a time, the groups sized by what they read', async () => {
    const keys = Array.from({ length: 100 }, (_, index) => index);
    const groups: number[][] = [];
    const rows = await readInGroups(keys, async (group) => {
      groups.push(group);
      return group.map((key) => ({ key, text: 'y'.repeat(100_000) }));
    });
    expect(rows.map((row) => row.key)).toEqual(keys);
    expect(groups.flat()).toEqual(keys);
    expect(groups[0]).toHaveLength(20);
    expect(Math.max(...groups.slice(1).map((group) => group.length))).toBe(5);
    expect(await readInGroups([], async () => [{ never: true }])).toEqual([]);
  });
});

describe.each(storeKinds)('lists of large rows on the store (%s)', (kind) => {
  let store: StoreHandle;
  let cleanup: () => Promise<void> | void;
  const data = JSON.stringify({ text: 'd'.repeat(60_000) });

  beforeAll(async () => {
    ({ store, cleanup } = await scratchStore(kind));
    const repos = repositories(store.db, store.dialect);
    const now = '2026-03-01T00:00:00.000Z';
    for (let index = 0; index < 100; index += 1) {
      const token = `pm${String(index).padStart(3, '0')}`;
      await repos.paymentMethods.insert({
        token,
        environment_key: 'env',
        payment_method_type: 'credit_card',
        storage_state: index % 10 === 0 ? 'cached' : 'retained',
        test: 1,
        single_use: 0,
        data,
        details: '{}',
        created_at: now,
        updated_at: now,
      });
      await repos.transactions.insert({ ...newTransaction({ token: `tx${index}`, environmentKey: 'env', transactionType: 'Purchase', outcome: 'succeeded', paymentMethodToken: token, details: JSON.parse(data) as object, now }), messageKey: null, message: null });
      await repos.certificates.insert({ token: `cert${index}`, environmentKey: 'env', level: 'environment', algorithm: null, cn: null, o: null, ou: null, c: null, st: null, l: null, emailAddress: null, publicKey: 'k', publicKeyHash: 'h', csr: null, pem: data, sealedPrivateKey: 's', createdAt: now, updatedAt: now });
    }
  });
  afterAll(async () => {
    await store.close();
    await cleanup();
  });

  /**
   * `read` gives `expected` (the rows of one statement), in several statements: the event loop
   * turns meanwhile. What fails without the parts is SQLite (better-sqlite3 reads synchronously);
   * the PostgreSQL driver reads asynchronously anyway, and there the rows are what is checked.
   */
  async function expectReadInParts<Row>(read: () => Promise<Row[]>, expected: Row[]): Promise<Row[]> {
    const counter = turnCounter();
    const rows = await read();
    counter.stop();
    expect(rows).toEqual(expected);
    // ~60 KB a row: 20 in the first statement, then 8 a statement.
    expect(counter.turns()).toBeGreaterThanOrEqual(5);
    return rows;
  }

  it('payment methods: the rows of one statement, read while the event loop turns', async () => {
    const repos = repositories(store.db, store.dialect);
    const oneStatement = await store.db.selectFrom('payment_methods').selectAll().where('environment_key', '=', 'env').where('storage_state', 'in', ['retained']).orderBy('seq', 'desc').limit(80).execute();
    await expectReadInParts(() => repos.paymentMethods.list('env', { states: ['retained'], metadata: {} }, { sinceSeq: null, order: 'desc', count: 80 }), oneStatement);
  });

  it('transactions and the methods they nest: the rows of one statement, read while the event loop turns', async () => {
    const repos = repositories(store.db, store.dialect);
    const oneStatement = await store.db.selectFrom('transactions').selectAll().where('environment_key', '=', 'env').orderBy('seq').limit(100).execute();
    const rows = await expectReadInParts(() => repos.transactions.list('env', { sinceSeq: null, order: 'asc', count: 100 }), oneStatement.map((row) => transactionOf(row)));
    const tokens = rows.map((row) => row.paymentMethodToken as string);
    const methods = await store.db.selectFrom('payment_methods').selectAll().where('token', 'in', tokens).execute();
    const byToken = (a: { token: string }, b: { token: string }) => a.token.localeCompare(b.token);
    await expectReadInParts(async () => (await repos.paymentMethods.findMany('env', tokens)).sort(byToken), methods.sort(byToken));
  });

  it('certificates (a PEM may be 64 KiB; gateways and receivers list the same way): the rows of one statement, read while the event loop turns', async () => {
    const repos = repositories(store.db, store.dialect);
    const oneStatement = await store.db.selectFrom('certificates').selectAll().where('environment_key', '=', 'env').orderBy('seq').limit(100).execute();
    await expectReadInParts(() => repos.certificates.list('env', { sinceSeq: null, order: 'asc', count: 100 }), oneStatement.map(certificateOf));
  });
});
