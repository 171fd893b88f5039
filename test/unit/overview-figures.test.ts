import { describe, expect, it } from 'vitest';
import type { GatewayCall, PaymentCell } from '../../src/domain/rollup.js';
import { breakerOpenings, latencyLabel, leadInOf, parseRoutedLabel, paymentRollups, percentileOf, rescueKind, routedLabel } from '../../src/services/overview-figures.js';

const T0 = Date.parse('2026-03-10T12:00:00.000Z');

function calls(gatewayToken: string, pattern: string, startMs = T0, stepMs = 1000): GatewayCall[] {
  return [...pattern].map((c, i) => ({ gatewayToken, fault: c === 'F' ? true : c === 'o' ? false : null, createdAt: new Date(startMs + i * stepMs).toISOString() }));
}

function cell(overrides: Partial<PaymentCell>): PaymentCell {
  return { gatewayToken: 'gw', hour: '2026-03-10T12', succeeded: true, declineCode: null, latencyBucket: null, failoverReason: null, rescued: false, routedWorkflow: null, routedRule: null, routedGateway: null, count: 1, ...overrides };
}

describe('overview figures', () => {
  it('counts a breaker opening at the fifth fault in a row, not at four, and a refusal neither breaks nor extends a run', () => {
    expect(breakerOpenings(calls('a', 'FFFFoFFFF'), new Map())).toEqual([]);
    expect(breakerOpenings(calls('a', 'FF-FFF'), new Map())).toEqual([{ hour: '2026-03-10T12', figure: 'breaker_opening', gatewayToken: 'a', label: '', count: 1 }]);
  });

  it('counts the failed probe after an open window as another opening, not the faults in flight inside it', () => {
    const burst = calls('a', 'FFFFFFF', T0, 1000);
    const probe = calls('a', 'F', T0 + 70_000);
    expect(breakerOpenings([...burst, ...probe], new Map())).toEqual([{ hour: '2026-03-10T12', figure: 'breaker_opening', gatewayToken: 'a', label: '', count: 2 }]);
  });

  it('continues a run that began before the range (lead-in), per gateway and hour', () => {
    const before = leadInOf(calls('a', 'FFFo').reverse());
    expect(before).toEqual({ run: 0, lastOpeningMs: null });
    const leadIn = leadInOf(calls('a', 'oFFF', T0 - 10_000).reverse());
    expect(leadIn.run).toBe(3);
    const rows = breakerOpenings([...calls('a', 'FF', T0 + 3_600_000), ...calls('b', 'FFFFF')], new Map([['a', leadIn]]));
    expect(rows).toEqual(
      expect.arrayContaining([
        { hour: '2026-03-10T13', figure: 'breaker_opening', gatewayToken: 'a', label: '', count: 1 },
        { hour: '2026-03-10T12', figure: 'breaker_opening', gatewayToken: 'b', label: '', count: 1 },
      ]),
    );
    expect(rows).toHaveLength(2);
  });

  it('tells a retry after a decline from a failover after a fault or a gateway passed over', () => {
    expect(rescueKind('soft decline: card_declined')).toBe('retry_rescue');
    expect(rescueKind('custom error code: insufficient_funds')).toBe('retry_rescue');
    expect(rescueKind('gateway fault before acceptance: refused (ECONNREFUSED)')).toBe('failover_rescue');
    expect(rescueKind('passed over without a call: breaker open')).toBe('failover_rescue');
  });

  it('turns payment cells into counts: payments, approvals, declines, latency, rescues and routing on the chosen gateway', () => {
    const rows = paymentRollups([
      cell({ count: 3, latencyBucket: 2 }),
      cell({ succeeded: false, declineCode: 'card_declined', count: 2, latencyBucket: 2 }),
      cell({ gatewayToken: 'backup', failoverReason: 'passed over without a call: breaker open', rescued: true, routedWorkflow: 'checkout', routedRule: null, routedGateway: 'gw' }),
    ]);
    const count = (figure: string, gateway: string, label = '') => rows.find((r) => r.figure === figure && r.gatewayToken === gateway && r.label === label)?.count;
    expect(count('payments', 'gw')).toBe(5);
    expect(count('approved', 'gw')).toBe(3);
    expect(count('decline', 'gw', 'card_declined')).toBe(2);
    expect(count('latency', 'gw', '200')).toBe(5);
    expect(count('failover_rescue', 'backup')).toBe(1);
    expect(count('routed', 'gw', 'checkout\n')).toBe(1);
    expect(count('routed', 'backup', 'checkout\n')).toBeUndefined();
  });

  it('reads p50 and p95 from a histogram as the upper bound of the bucket that holds them', () => {
    expect(percentileOf(new Map(), 0.5)).toBeNull();
    const histogram = new Map([[latencyLabel(0), 50], [latencyLabel(3), 45], [latencyLabel(6), 5]]);
    expect(percentileOf(histogram, 0.5)).toBe(50);
    expect(percentileOf(histogram, 0.95)).toBe(300);
    expect(percentileOf(histogram, 0.99)).toBe(1000);
    expect(percentileOf(new Map([['more', 1]]), 0.5)).toBe(Number.POSITIVE_INFINITY);
  });

  it('keeps a workflow rule in a label and reads it back; the default target has no rule', () => {
    expect(parseRoutedLabel(routedLabel('checkout', 'euro'))).toEqual({ workflowKey: 'checkout', rule: 'euro' });
    expect(parseRoutedLabel(routedLabel('checkout', null))).toEqual({ workflowKey: 'checkout', rule: null });
  });
});
