import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/domain/environment.js';
import type { NewTransaction, TransactionState } from '../../src/domain/transaction.js';
import type { TransactionDetails } from '../../src/domain/transaction-details.js';
import type { GatewayService } from '../../src/services/gateway.service.js';
import { overviewJson } from '../../src/portal/overview-json.js';
import { OverviewRoller } from '../../src/services/overview-roller.js';
import { OverviewService } from '../../src/services/overview.service.js';
import type { StoreHandle } from '../../src/store/database.js';
import { repositories } from '../../src/store/repositories.js';
import { storeAccess } from '../../src/store/store-access.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { scratchStore } from '../helpers/scratch-store.js';

const ENV = { key: 'env', organizationToken: 'org', name: 'env' } as unknown as Environment;
const gateways = { list: async () => [{ token: 'gwOne', gatewayType: 'test', description: 'One', definition: { name: 'Test' }, state: 'retained' }] } as unknown as Pick<GatewayService, 'list'>;

/**
 * A long backlog of ended hours (a fresh node on a large store): the overview does not count it on
 * the request but hands it to the background, which counts it in bounded passes (here 2
 * transactions each) while the page says which hours are still being counted; once counted, the
 * figures are the same as one pass would give, a breaker run split across passes opens once, and
 * the completion mark never moves back.
 */
describe.each(storeKinds)('overview backlog counted in the background (%s)', (kind) => {
  let store: StoreHandle;
  let cleanup: () => Promise<void> | void;
  const clock = new ManualClock(Date.parse('2026-03-10T18:30:00.000Z'));
  let seq = 0;

  async function record(at: string, state: TransactionState = 'succeeded', code: string | null = null): Promise<void> {
    seq += 1;
    const details = { gateway_type: 'test', order_id: null, gateway_latency_ms: 100, response: { success: state === 'succeeded', error_code: code } } as unknown as TransactionDetails;
    const transaction: NewTransaction = {
      token: `b${seq}x${kind}`,
      environmentKey: 'env',
      transactionType: 'Purchase',
      state,
      succeeded: state === 'succeeded',
      messageKey: null,
      message: null,
      gatewayToken: 'gwOne',
      paymentMethodToken: null,
      referenceToken: null,
      amount: 1000,
      currencyCode: 'USD',
      details,
      createdAt: at,
      updatedAt: at,
    };
    await repositories(store.db, store.dialect).transactions.insert(transaction);
  }

  beforeAll(async () => {
    ({ store, cleanup } = await scratchStore(kind));
    // Ten approved payments over 10:00–14:00, then a run of five faults across 15:00 and 16:00.
    for (let i = 0; i < 10; i += 1) await record(`2026-03-10T1${Math.floor(i / 2)}:0${i % 10}:00.000Z`);
    for (const at of ['15:58', '15:59', '16:00', '16:01', '16:02']) await record(`2026-03-10T${at}:00.000Z`, 'gateway_processing_failed', 'processing_error');
    // The running hour: counted on every load, never part of the backlog.
    await record('2026-03-10T18:10:00.000Z');
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await cleanup?.();
  });

  it('answers at once without the backlog, counts it in passes, then shows every hour', async () => {
    const overview = new OverviewService(storeAccess(store), gateways, clock, { inlineRows: 3, passRows: 2 });
    const first = (await overview.of(ENV, '24h')).figures;
    // Nothing was counted on the request: only the running hour, and the page says from when hours are missing.
    expect(first.countingFrom).toBe('2026-02-07T19:00:00.000Z');
    expect(first.totals.payments).toBe(1);
    // The JSON the page links to says the same.
    expect((overviewJson(first).overview as Record<string, unknown>).counting_from).toBe('2026-02-07T19:00:00.000Z');
    await overview.fillEndedHours('env');
    const repos = repositories(store.db, store.dialect);
    expect(await repos.rollups.completeUntil('env')).toBe('2026-03-10T18:00:00.000Z');
    const after = (await overview.of(ENV, '24h')).figures;
    expect(after.countingFrom).toBeNull();
    expect((overviewJson(after).overview as Record<string, unknown>).counting_from).toBeNull();
    expect(after.totals).toMatchObject({ payments: 16, approved: 11, breakerOpenings: 1 });
    expect(after.declineReasons).toEqual([{ code: 'processing_error', count: 5 }]);
    expect(after.gateways[0]?.series.filter((p) => p.payments > 0).map((p) => [p.start.slice(11, 13), p.payments])).toEqual([
      ['10', 2], ['11', 2], ['12', 2], ['13', 2], ['14', 2], ['15', 2], ['16', 3], ['18', 1],
    ]);
  });

  it('never moves the mark back when a slower pass stores an earlier one', async () => {
    const repos = repositories(store.db, store.dialect);
    await repos.rollups.store('env', [], '2026-03-10T12:00:00.000Z');
    expect(await repos.rollups.completeUntil('env')).toBe('2026-03-10T18:00:00.000Z');
  });

  it('counts a short backlog (the hour that just ended) on the request', async () => {
    clock.set(Date.parse('2026-03-10T19:05:00.000Z'));
    const overview = new OverviewService(storeAccess(store), gateways, clock, { inlineRows: 3, passRows: 2 });
    const figures = (await overview.of(ENV, '24h')).figures;
    expect(figures.countingFrom).toBeNull();
    expect(figures.totals.payments).toBe(16);
    expect(await repositories(store.db, store.dialect).rollups.completeUntil('env')).toBe('2026-03-10T19:00:00.000Z');
  });

  it('finds where a pass ends by walking transactions_by_env_created_seq, with no sort', async () => {
    const query = (prefix: string) =>
      sql.raw(`${prefix} select created_at from transactions where environment_key = 'env' and created_at >= '2026-03-10T10:00' and created_at < '2026-03-10T18:00' order by created_at, seq limit 1 offset 5000`);
    let details: string;
    if (store.dialect === 'sqlite') {
      details = ((await query('explain query plan').execute(store.db)).rows as Array<{ detail: string }>).map((row) => row.detail).join('\n');
      expect(details).not.toContain('TEMP B-TREE');
    } else {
      // A few rows: without this the planner rightly prefers a sequential scan.
      details = await store.db.transaction().execute(async (trx) => {
        await sql`set local enable_seqscan = off`.execute(trx);
        return ((await query('explain').execute(trx)).rows as Array<Record<string, string>>).map((row) => Object.values(row).join(' ')).join('\n');
      });
      expect(details).not.toMatch(/\bSort\b/);
    }
    expect(details).toContain('transactions_by_env_created_seq');
  });

  it('the roller goes through every environment, and reports a failed round', async () => {
    const filled: string[] = [];
    const organizations = { list: async () => [{ token: 'o1' }, { token: 'o2' }] };
    const environments = { listByOrganization: async (org: string) => (org === 'o1' ? [{ key: 'e1' }, { key: 'e2' }] : [{ key: 'e3' }]) };
    const access = { repos: { organizations, environments } } as never;
    const roller = new OverviewRoller(access, { fillEndedHours: async (key: string) => void filled.push(key) });
    expect(await roller.round()).toBe(3);
    expect(filled).toEqual(['e1', 'e2', 'e3']);

    const errors: unknown[] = [];
    const failing = new OverviewRoller(access, {
      fillEndedHours: async () => {
        throw new Error('store unreachable');
      },
    });
    failing.start(60_000, (error) => errors.push(error));
    await failing.stop();
    expect(errors.map((error) => (error as Error).message)).toEqual(['store unreachable']);
  });
});
