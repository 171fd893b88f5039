import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Environment } from '../../src/domain/environment.js';
import type { NewTransaction, RoutedBy, TransactionState } from '../../src/domain/transaction.js';
import type { TransactionDetails } from '../../src/domain/transaction-details.js';
import type { GatewayService } from '../../src/services/gateway.service.js';
import { OverviewService } from '../../src/services/overview.service.js';
import type { StoreHandle } from '../../src/store/database.js';
import { repositories } from '../../src/store/repositories.js';
import { storeAccess } from '../../src/store/store-access.js';
import { ManualClock } from '../helpers/manual-clock.js';
import { storeKinds } from '../helpers/postgres.js';
import { scratchStore } from '../helpers/scratch-store.js';

const ENV = { key: 'env', organizationToken: 'org', name: 'env' } as unknown as Environment;

/** The gateways the overview lists: `gone` is redacted. */
const GATEWAYS = [
  { token: 'gwOne', gatewayType: 'test', description: 'One', definition: { name: 'Test' }, state: 'retained' },
  { token: 'gwTwo', gatewayType: 'stripe', description: null, definition: { name: 'Stripe' }, state: 'retained' },
  { token: 'gwGone', gatewayType: 'test', description: 'Gone', definition: { name: 'Test' }, state: 'redacted' },
];
const gateways = { list: async () => GATEWAYS } as unknown as Pick<GatewayService, 'list'>;

let seq = 0;

/**
 * The overview's figures straight from the service, on each store, over transactions written with
 * known times, latencies, codes and chains: what the test gateway cannot produce through the API
 * (latency spread, a soft-decline retry, a breaker run across an hour boundary that is rolled up
 * in two passes).
 */
describe.each(storeKinds)('OverviewService figures (%s)', (kind) => {
  let store: StoreHandle;
  let cleanup: () => Promise<void> | void;
  // Half a minute after the fifth fault: its breaker is open now.
  const clock = new ManualClock(Date.parse('2026-03-10T12:00:30.000Z'));

  async function record(at: string, fields: { gateway: string; type?: string; state?: TransactionState; code?: string | null; latency?: number | null; failover?: string; first?: string; routed?: Partial<RoutedBy> }): Promise<string> {
    seq += 1;
    const token = `t${seq}x${kind}`;
    const state = fields.state ?? 'succeeded';
    const details = {
      gateway_type: 'test',
      order_id: null,
      gateway_latency_ms: fields.latency === undefined ? 100 : fields.latency,
      response: { success: state === 'succeeded', error_code: fields.code ?? null },
      ...(fields.failover === undefined ? {} : { failover: { from_transaction_token: null, from_gateway_token: 'gwOne', reason: fields.failover, skipped: [] } }),
    } as unknown as TransactionDetails;
    const transaction: NewTransaction = {
      token,
      environmentKey: 'env',
      transactionType: fields.type ?? 'Purchase',
      state,
      succeeded: state === 'succeeded',
      messageKey: state === 'failed' ? 'messages.refused' : null,
      message: null,
      gatewayToken: fields.gateway,
      paymentMethodToken: null,
      referenceToken: null,
      amount: 1000,
      currencyCode: 'USD',
      details,
      createdAt: at,
      updatedAt: at,
      ...(fields.first === undefined ? {} : { firstAttemptToken: fields.first === 'self' ? token : fields.first }),
    };
    const repos = repositories(store.db, store.dialect);
    await repos.transactions.insert(transaction);
    if (fields.routed !== undefined) {
      const routedBy: RoutedBy = { workflow_key: 'checkout', rule: null, rule_index: null, method: 'single', gateway_token: fields.gateway, gateway_tokens: [fields.gateway], reason: 'test', ...fields.routed };
      await repos.transactions.recordRouting('env', { token, firstAttemptToken: null }, routedBy);
    }
    return token;
  }

  beforeAll(async () => {
    ({ store, cleanup } = await scratchStore(kind));
    // 10:00–11:00: five approved payments on One, latencies spread out.
    for (const [i, latency] of [40, 90, 250, 280, 2500].entries()) await record(`2026-03-10T10:0${i}:00.000Z`, { gateway: 'gwOne', latency });
    // Not payments: a capture, a void, a credit and a verification; and a payment on a redacted gateway.
    for (const type of ['Capture', 'Void', 'Credit', 'Verification']) await record('2026-03-10T10:10:00.000Z', { gateway: 'gwOne', type, latency: 5 });
    await record('2026-03-10T10:20:00.000Z', { gateway: 'gwGone', state: 'gateway_processing_failed', code: 'card_declined' });
    // A soft decline on One, rescued by a retry on Two; a fault on One, rescued by a failover on Two (routed by rule "euro").
    const soft = await record('2026-03-10T10:30:00.000Z', { gateway: 'gwOne', state: 'gateway_processing_failed', code: 'card_declined', first: 'self' });
    await record('2026-03-10T10:30:01.000Z', { gateway: 'gwTwo', first: soft, failover: 'soft decline: card_declined', latency: 600 });
    await record('2026-03-10T10:40:00.000Z', { gateway: 'gwTwo', routed: { rule: 'euro', rule_index: 0 }, first: 'self', latency: 700 });
    // A refusal by Coffer itself (no call): a decline reason by its message key, and not a breaker call.
    await record('2026-03-10T10:50:00.000Z', { gateway: 'gwOne', state: 'failed', latency: null });
    // Three faults at the end of 11:00–12:00 and two at the start of the running hour: one run of five.
    for (const second of [57, 58, 59]) await record(`2026-03-10T11:59:${second}.000Z`, { gateway: 'gwOne', state: 'gateway_processing_failed', code: 'processing_error' });
    for (const second of [1, 2]) await record(`2026-03-10T12:00:0${second}.000Z`, { gateway: 'gwOne', state: 'gateway_processing_result_unknown', code: 'processing_error' });
  }, 60_000);

  afterAll(async () => {
    await store?.close();
    await cleanup?.();
  });

  const overview = () => new OverviewService(storeAccess(store), gateways, clock);

  it('counts payments, approvals, declines, latency, rescues, routing and breaker openings; nothing else', async () => {
    const { figures } = await overview().of(ENV, '24h');
    expect(figures.gateways.map((g) => [g.token, g.name])).toEqual([['gwOne', 'One'], ['gwTwo', 'Stripe']]);
    const one = figures.gateways[0];
    const two = figures.gateways[1];
    // One: 5 approved, the soft decline, the refusal, 5 faults; Two: the retry and the routed payment.
    expect(one).toMatchObject({ payments: 12, approved: 5, breakerOpenings: 1, breakerOpenNow: true, retryRescues: 0, failoverRescues: 0 });
    expect(two).toMatchObject({ payments: 2, approved: 2, approvalRate: 1, retryRescues: 1, failoverRescues: 0 });
    // One's latencies: 40, 90, 250, 280, 2500, the decline's and the faults' 100 ms (the refusal has none).
    expect(one?.latencySamples).toBe(11);
    expect(one?.latencyP50Ms).toBe(100);
    expect(one?.latencyP95Ms).toBe(3000);
    expect(two).toMatchObject({ latencyP50Ms: 750, latencyP95Ms: 750 });
    expect(figures.totals).toMatchObject({ payments: 14, approved: 7, retryRescues: 1, failoverRescues: 0, breakerOpenings: 1 });
    expect(figures.declineReasons).toEqual([
      { code: 'processing_error', count: 5 },
      { code: 'card_declined', count: 1 },
      { code: 'messages.refused', count: 1 },
    ]);
    expect(figures.routing).toEqual([{ workflowKey: 'checkout', rule: 'euro', decisions: 1, gateways: [{ token: 'gwTwo', count: 1 }] }]);
    expect(one?.series.filter((p) => p.payments > 0).map((p) => [p.start.slice(11, 13), p.payments])).toEqual([['10', 7], ['11', 3], ['12', 2]]);
  });

  it('reads ended hours from the rollups once they are stored, and the run across the hour boundary still opens once', async () => {
    clock.set(Date.parse('2026-03-10T13:05:00.000Z'));
    const first = (await overview().of(ENV, '24h')).figures;
    const mark = await repositories(store.db, store.dialect).rollups.completeUntil('env');
    expect(mark).toBe('2026-03-10T13:00:00.000Z');
    expect(first.totals).toMatchObject({ payments: 14, approved: 7, breakerOpenings: 1 });
    // Counted again from the rollups only (no transaction read for the ended hours): the same figures.
    const again = (await overview().of(ENV, '7d')).figures;
    expect(again.totals).toEqual(first.totals);
    expect(again.declineReasons).toEqual(first.declineReasons);
    expect(again.gateways.map((g) => [g.latencyP50Ms, g.latencyP95Ms])).toEqual(first.gateways.map((g) => [g.latencyP50Ms, g.latencyP95Ms]));
    // Seven days in buckets of six hours: 06:00–12:00 holds the 10:00 and 11:00 hours.
    expect(again.gateways[0]?.series.filter((p) => p.payments > 0).map((p) => [p.start.slice(11, 13), p.payments])).toEqual([['06', 10], ['12', 2]]);
    // An hour later still, nothing new: no breaker open any more.
    clock.set(Date.parse('2026-03-10T14:05:00.000Z'));
    const later = (await overview().of(ENV, '30d')).figures;
    expect(later.totals).toEqual(first.totals);
    expect(later.gateways[0]?.breakerOpenNow).toBe(false);
    expect(later.gateways[0]?.series).toHaveLength(30);
  });
});
