import { CompiledQuery, sql, type KyselyPlugin } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StoreHandle } from '../../src/store/database.js';
import { repositories } from '../../src/store/repositories.js';
import { METADATA_WINDOW, prefixUpperBound } from '../../src/store/repositories/payment-method-search.js';
import type { CardDetails, StorageState } from '../../src/domain/payment-method.js';
import type { PaymentMethodSearch } from '../../src/domain/payment-method-search.js';
import { storeKinds } from '../helpers/postgres.js';
import { scratchStore } from '../helpers/scratch-store.js';

interface Seed {
  token: string;
  last: string;
  first6: string;
  first: string;
  lastName: string;
  email: string | null;
  state: StorageState;
  fingerprint: string | null;
  createdAt: string;
  metadata?: Record<string, string | number | boolean>;
}

function card(seed: Seed): CardDetails {
  return {
    first_name: seed.first,
    last_name: seed.lastName,
    address1: null, address2: null, city: null, state: null, zip: null, country: null, phone_number: null, company: null,
    shipping_address1: null, shipping_address2: null, shipping_city: null, shipping_state: null, shipping_zip: null, shipping_country: null, shipping_phone_number: null,
    card_type: 'visa',
    month: 12,
    year: 2030,
    first_six_digits: seed.first6,
    last_four_digits: seed.last,
    eligible_for_card_updater: null,
  };
}

const SEEDS: Seed[] = [
  { token: 'pm-ada', last: '1111', first6: '411111', first: 'Ada', lastName: 'Lovelace', email: 'Ada@Example.com', state: 'retained', fingerprint: 'f-ada', createdAt: '2026-03-01T10:00:00.000Z', metadata: { customer: 'c-1', vip: true } },
  { token: 'pm-adam', last: '4242', first6: '424242', first: 'Adam', lastName: 'Smith', email: 'adam@example.com', state: 'cached', fingerprint: 'f-adam', createdAt: '2026-03-02T10:00:00.000Z', metadata: { customer: 'c-2' } },
  { token: 'pm-ada-2', last: '1111', first6: '411111', first: 'Ada', lastName: 'Byron', email: 'ada@example.com', state: 'redacted', fingerprint: null, createdAt: '2026-03-03T10:00:00.000Z' },
  { token: 'pm-bob', last: '1111', first6: '555555', first: 'Bob', lastName: 'Stone', email: null, state: 'retained', fingerprint: 'f-ada', createdAt: '2026-03-04T10:00:00.000Z', metadata: { customer: 'c-1' } },
  { token: 'pm-zoe', last: '0005', first6: '378282', first: 'Zoë', lastName: 'Ward', email: 'zoe@example.com', state: 'retained', fingerprint: 'f-zoe', createdAt: '2026-02-27T10:00:00.000Z' },
];

/*
 * The portal's card search (migration 024) on both stores: each key finds what it should, keys
 * combine, pages continue without loss or repetition, and each search walks its index (EXPLAIN):
 * no full scan and, for the newest-first keys, no sort.
 */
describe.each(storeKinds)('payment method search (%s)', (kind) => {
  let store: StoreHandle;
  let cleanup: () => Promise<void> | void;

  beforeAll(async () => {
    ({ store, cleanup } = await scratchStore(kind));
    const repos = repositories(store.db, store.dialect);
    for (const seed of SEEDS) {
      await repos.paymentMethods.insert({
        token: seed.token,
        environmentKey: 'env',
        paymentMethodType: 'credit_card',
        storageState: seed.state,
        test: true,
        singleUse: false,
        email: seed.email,
        data: null,
        metadata: seed.metadata ?? null,
        callbackUrl: null,
        details: card(seed),
        fingerprint: seed.fingerprint,
        createdAt: seed.createdAt,
        updatedAt: seed.createdAt,
      });
    }
  });
  afterAll(async () => {
    await store.close();
    await cleanup();
  });

  const tokens = async (search: Omit<PaymentMethodSearch, 'count'>, count = 50) =>
    (await repositories(store.db, store.dialect).paymentMethods.search('env', { count, ...search })).hits.map((hit) => hit.paymentMethod.token);

  it('finds by each key, newest first, and combines keys', async () => {
    expect(await tokens({ lastFour: '1111' })).toEqual(['pm-bob', 'pm-ada-2', 'pm-ada']);
    expect(await tokens({ firstSix: '411111' })).toEqual(['pm-ada-2', 'pm-ada']);
    expect(await tokens({ email: 'ADA@example.COM' })).toEqual(['pm-ada-2', 'pm-ada']);
    expect(await tokens({ fingerprint: 'f-ada' })).toEqual(['pm-bob', 'pm-ada']);
    expect(await tokens({ states: ['retained'] })).toEqual(['pm-zoe', 'pm-bob', 'pm-ada']);
    expect(await tokens({ states: ['cached', 'redacted'] })).toEqual(['pm-ada-2', 'pm-adam']);
    expect(await tokens({ createdFrom: '2026-03-02T00:00:00.000Z', createdTo: '2026-03-04T00:00:00.000Z' })).toEqual(['pm-ada-2', 'pm-adam']);
    expect(await tokens({ metadata: { key: 'customer', value: 'c-1' } })).toEqual(['pm-bob', 'pm-ada']);
    expect(await tokens({ metadata: { key: 'vip', value: 'true' } })).toEqual(['pm-ada']);
    expect(await tokens({ lastFour: '1111', states: ['retained'], metadata: { key: 'customer', value: 'c-1' } })).toEqual(['pm-bob', 'pm-ada']);
    expect(await tokens({ lastFour: '1111', email: 'ada@example.com', createdFrom: '2026-03-02T00:00:00.000Z' })).toEqual(['pm-ada-2']);
    expect(await tokens({ lastFour: '9999' })).toEqual([]);
    expect(await tokens({})).toEqual(['pm-zoe', 'pm-bob', 'pm-ada-2', 'pm-adam', 'pm-ada']);
  });

  it('matches a name by its start, case-insensitively, alphabetically', async () => {
    expect(await tokens({ namePrefix: 'ADA' })).toEqual(['pm-ada-2', 'pm-ada', 'pm-adam']);
    expect(await tokens({ namePrefix: 'ada l' })).toEqual(['pm-ada']);
    expect(await tokens({ namePrefix: 'zoë' })).toEqual(['pm-zoe']);
    expect(await tokens({ namePrefix: 'lovelace' })).toEqual([]);
    expect(prefixUpperBound('ada')).toBe('adb');
  });

  it('pages after a cursor without losing or repeating a method, in every order', async () => {
    const repo = repositories(store.db, store.dialect).paymentMethods;
    for (const search of [{ lastFour: '1111' }, { namePrefix: 'a' }, { createdFrom: '2026-01-01T00:00:00.000Z' }, {}, { metadata: { key: 'customer', value: 'c-1' } }] as Array<Omit<PaymentMethodSearch, 'count'>>) {
      const all = await tokens(search);
      const seen: string[] = [];
      let before: number | undefined;
      for (let round = 0; round < 10; round += 1) {
        const page = await repo.search('env', { ...search, count: 2, ...(before === undefined ? {} : { beforePosition: before }) });
        seen.push(...page.hits.map((hit) => hit.paymentMethod.token));
        if (page.hits.length < 2) break;
        before = page.hits.at(-1)?.position;
      }
      expect(seen, JSON.stringify(search)).toEqual(all);
    }
  });

  it('reads only a window of the newest methods for metadata alone, and says where it stopped', async () => {
    const repos = repositories(store.db, store.dialect);
    const now = '2026-03-05T00:00:00.000Z';
    const filler = Array.from({ length: METADATA_WINDOW + 5 }, (_, index) => ({
      token: `fill-${index}`, environmentKey: 'env', paymentMethodType: 'sprel' as const, storageState: 'retained' as const, test: true, singleUse: false,
      email: null, data: null, metadata: null, callbackUrl: null, details: {}, createdAt: now, updatedAt: now,
    }));
    await repos.paymentMethods.insertMany(filler);
    try {
      const first = await repos.paymentMethods.search('env', { metadata: { key: 'customer', value: 'c-1' }, count: 50 });
      expect(first.hits).toEqual([]);
      expect(first.scannedTo).not.toBeNull();
      const next = await repos.paymentMethods.search('env', { metadata: { key: 'customer', value: 'c-1' }, count: 50, beforePosition: first.scannedTo as number });
      expect(next.hits.map((hit) => hit.paymentMethod.token)).toEqual(['pm-bob', 'pm-ada']);
      expect(next.scannedTo).toBeNull();
    } finally {
      await store.db.deleteFrom('payment_methods').where('token', 'like', 'fill-%').execute();
    }
  });

  /** The statements the repository sends for `search`, compiled as sent (with their parameters). */
  async function statementsOf(search: PaymentMethodSearch): Promise<CompiledQuery[]> {
    const sent: CompiledQuery[] = [];
    const capture: KyselyPlugin = {
      transformQuery: (args) => {
        sent.push(store.db.getExecutor().compileQuery(args.node, args.queryId));
        return args.node;
      },
      transformResult: async (args) => args.result,
    };
    await repositories(store.db.withPlugin(capture), store.dialect).paymentMethods.search('env', search);
    return sent;
  }

  // Each search, the index its statement must walk; none may scan the table or sort.
  const plans: Array<[string, Omit<PaymentMethodSearch, 'count'>, string]> = [
    ['last four (and a state)', { lastFour: '1111', states: ['retained'] }, 'payment_methods_by_last_four'],
    ['first six', { firstSix: '411111' }, 'payment_methods_by_first_six'],
    ['email (and a creation range)', { email: 'ada@example.com', createdFrom: '2026-01-01T00:00:00.000Z' }, 'payment_methods_by_email'],
    ['fingerprint (and last four)', { fingerprint: 'f-ada', lastFour: '1111' }, 'payment_methods_by_fingerprint'],
    ['one state', { states: ['retained'] }, 'payment_methods_by_state'],
    ['name prefix', { namePrefix: 'ada' }, 'payment_methods_by_name'],
    ['name prefix, a later page', { namePrefix: 'ada', beforePosition: 1 }, 'payment_methods_by_name'],
    ['creation range', { createdFrom: '2026-03-01T00:00:00.000Z', createdTo: '2026-03-03T00:00:00.000Z' }, 'payment_methods_by_created'],
    ['creation range, a later page', { createdFrom: '2026-03-01T00:00:00.000Z', beforePosition: 3 }, 'payment_methods_by_created'],
  ];

  it.each(plans)('a search by %s walks its index, with no sort', async (_name, search, index) => {
    const statements = await statementsOf({ count: 50, ...search });
    const main = statements.at(-1) as CompiledQuery;
    expect(main.sql).toContain('order by');
    let details: string;
    if (store.dialect === 'sqlite') {
      const plan = await store.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${main.sql}`, [...main.parameters]));
      details = plan.rows.map((row) => row.detail).join('\n');
      expect(details).not.toContain('TEMP B-TREE');
      expect(details).not.toMatch(/^SCAN payment_methods$/m);
    } else {
      // A handful of rows: without this the planner rightly prefers a sequential scan.
      details = await store.db.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        await sql`set local enable_bitmapscan = off`.execute(trx);
        const plan = await trx.executeQuery<Record<string, string>>(CompiledQuery.raw(`explain ${main.sql}`, [...main.parameters]));
        return plan.rows.map((row) => Object.values(row).join(' ')).join('\n');
      });
      expect(details).not.toMatch(/\bSort\b/);
      expect(details).not.toContain('Seq Scan');
    }
    expect(details).toContain(index);
  });
});
