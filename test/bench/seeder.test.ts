import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCore, type Core } from '../../src/app.js';
import { loadConfig } from '../../src/config/config.js';
import { PaymentMethodSealer } from '../../src/services/payment-method-sealer.js';
import { TEST_CARDS } from '../../src/domain/test-cards.js';
import { bulkTokens, seedStore, type SeedResult } from '../../bench/seeder.js';
import { change } from '../../bench/scale-report.js';
import { inParallel } from '../../drills/store-check.js';
import { tempDir } from '../helpers/temp.js';

describe('bulk tokens', () => {
  it('have the API tokens’ shape and do not repeat', () => {
    const tokens = bulkTokens(20_000);
    for (const token of tokens.slice(0, 500)) expect(token).toMatch(/^[A-Za-z0-9]{29}$/);
    expect(new Set(tokens).size).toBe(tokens.length);
  });
});

describe('the scale seeder writes genuine rows', () => {
  const temp = tempDir('coffer-seed-');
  const masterKey = randomBytes(32);
  const env = { COFFER_DATA_DIR: temp.dir, COFFER_MASTER_KEY: masterKey.toString('base64'), COFFER_TLS: 'off' };
  let core: Core;
  let environmentKey: string;
  let seeded: SeedResult;

  beforeAll(async () => {
    const setup = await buildCore(loadConfig(env));
    environmentKey = (await setup.tenancy.init()).environment_key;
    await setup.close();
    seeded = await seedStore({ store: loadConfig(env).store, masterKey, environmentKey, gatewayToken: 'g'.repeat(29), paymentMethods: 1200, transactions: 700, batchRows: 100, batchesPerCommit: 3 });
    core = await buildCore(loadConfig(env));
  });

  afterAll(async () => {
    await core?.close();
    temp.cleanup();
  });

  it('writes every row and reports its rate and samples across the range', async () => {
    const count = async (table: 'payment_methods' | 'transactions') => Number((await core.store.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    expect(await count('payment_methods')).toBe(1200);
    expect(await count('transactions')).toBe(700);
    expect(seeded.samplePaymentMethods).toHaveLength(100);
    expect(seeded.transactionsAtDepth.map((depth) => depth.fraction)).toEqual([0.1, 0.5, 0.9, 0.999]);
    expect(seeded.paymentMethodsPerSecond).toBeGreaterThan(0);
  });

  it('seals cards with the real vault: the service reads them back and the sealer opens them', async () => {
    const environment = await core.tenancy.requireEnvironment(environmentKey);
    const row = await core.paymentMethods.show(environment, seeded.samplePaymentMethods[7] as string);
    expect(row).toMatchObject({ storage_state: 'retained', payment_method_type: 'credit_card' });
    expect(row.sealed_number).toMatch(/^c1\./);
    const opened = await new PaymentMethodSealer(core.keyring).open(row);
    expect(opened?.type).toBe('credit_card');
    const number = opened?.type === 'credit_card' ? opened.number.reveal() : '';
    expect(TEST_CARDS.map((card) => card.number)).toContain(number);
    expect(JSON.parse(row.details).last_four_digits).toBe(number.slice(-4));
  });

  it('pages through the seeded purchases as the API lists them', async () => {
    const environment = await core.tenancy.requireEnvironment(environmentKey);
    const page = await core.transactionQuery.list(environment, { sinceToken: seeded.transactionsAtDepth[1]!.token, order: 'asc', count: 20 }, {});
    expect(page.transactions).toHaveLength(20);
    expect(page.transactions.every((transaction) => transaction.transactionType === 'Purchase' && transaction.state === 'succeeded')).toBe(true);
    expect(page.paymentMethods.size).toBe(20);
  });
});

describe('small helpers', () => {
  it('states a change in percent', () => {
    expect(change(10, 12.5)).toBe('+25%');
    expect(change(10, 9)).toBe('-10%');
    expect(change(0, 9)).toBe('n/a');
  });

  it('runs work over items, never more than the width at once', async () => {
    let running = 0;
    let most = 0;
    const done: number[] = [];
    await inParallel([1, 2, 3, 4, 5, 6, 7], 3, async (item) => {
      running += 1;
      most = Math.max(most, running);
      await new Promise((resolve) => setImmediate(resolve));
      done.push(item);
      running -= 1;
    });
    expect(done.sort()).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(most).toBe(3);
  });
});
