import { BREAKER_POLICY } from '../limits/circuit-breaker.js';
import { LATENCY_BUCKETS_MS, type FigureRollup, type GatewayCall, type OverviewFigure, type PaymentCell } from '../domain/rollup.js';

/**
 * How the overview's hourly counts are made from the store's aggregates and read back
 * (src/domain/rollup.ts): pure functions, so each rule is tested on its own.
 */

/** The label of a latency bucket: its upper bound in ms, or `more` above the last. */
export function latencyLabel(bucket: number): string {
  const bound = LATENCY_BUCKETS_MS[bucket];
  return bound === undefined ? 'more' : String(bound);
}

/** A workflow rule as a rollup label; the default target has an empty rule name. */
export function routedLabel(workflowKey: string, rule: string | null): string {
  return `${workflowKey}\n${rule ?? ''}`;
}

export function parseRoutedLabel(label: string): { workflowKey: string; rule: string | null } {
  const cut = label.indexOf('\n');
  if (cut < 0) return { workflowKey: label, rule: null };
  const rule = label.slice(cut + 1);
  return { workflowKey: label.slice(0, cut), rule: rule === '' ? null : rule };
}

/**
 * Whether the chain moved on to a rescuing attempt after a decline (a retry: soft decline, custom
 * code or message, docs/routing-retry.md) rather than after a fault or a gateway passed over (a failover).
 */
export function rescueKind(failoverReason: string | null): 'retry_rescue' | 'failover_rescue' {
  const reason = failoverReason ?? '';
  return reason.startsWith('soft decline') || reason.startsWith('custom error') ? 'retry_rescue' : 'failover_rescue';
}

/** Sums rows that share hour, figure, gateway and label. */
class Tally {
  private readonly rows = new Map<string, FigureRollup>();

  add(hour: string, figure: OverviewFigure, gatewayToken: string, label: string, count: number): void {
    const key = `${hour}\u0000${figure}\u0000${gatewayToken}\u0000${label}`;
    const row = this.rows.get(key);
    if (row === undefined) this.rows.set(key, { hour, figure, gatewayToken, label, count });
    else row.count += count;
  }

  all(): FigureRollup[] {
    return [...this.rows.values()];
  }
}

/** The hourly counts of payment attempts: volume, approvals, declines, latency, rescues, routing. */
export function paymentRollups(cells: readonly PaymentCell[]): FigureRollup[] {
  const tally = new Tally();
  for (const cell of cells) {
    const { hour, gatewayToken: gateway, count } = cell;
    tally.add(hour, 'payments', gateway, '', count);
    if (cell.succeeded) tally.add(hour, 'approved', gateway, '', count);
    if (cell.declineCode !== null) tally.add(hour, 'decline', gateway, cell.declineCode, count);
    if (cell.latencyBucket !== null) tally.add(hour, 'latency', gateway, latencyLabel(cell.latencyBucket), count);
    if (cell.rescued) tally.add(hour, rescueKind(cell.failoverReason), gateway, '', count);
    if (cell.routedWorkflow !== null) tally.add(hour, 'routed', cell.routedGateway ?? gateway, routedLabel(cell.routedWorkflow, cell.routedRule), count);
  }
  return tally.all();
}

/** Where a gateway's breaker stood when a range began: faults in a row, and when the last opening was. */
export interface BreakerLeadIn {
  run: number;
  lastOpeningMs: number | null;
}

/** The lead-in from a gateway's calls before a range, newest first. */
export function leadInOf(callsNewestFirst: readonly GatewayCall[]): BreakerLeadIn {
  let run = 0;
  let newestFault: number | null = null;
  for (const call of callsNewestFirst) {
    if (call.fault === null) continue;
    if (!call.fault) break;
    run += 1;
    newestFault ??= Date.parse(call.createdAt);
  }
  // A run already long enough opened the breaker; its newest fault stands for the last opening.
  return { run, lastOpeningMs: run >= BREAKER_POLICY.failureThreshold ? newestFault : null };
}

/**
 * Breaker openings by gateway and hour, replaying the breaker's rule (API.md §8) over the calls
 * every node wrote, oldest first: a run of five faults opens it; while faults go on, a fault at
 * least one open window after the last opening is the probe failing, which opens it again.
 */
export function breakerOpenings(calls: readonly GatewayCall[], leadIns: ReadonlyMap<string, BreakerLeadIn>): FigureRollup[] {
  const tally = new Tally();
  const state = new Map<string, BreakerLeadIn>();
  for (const call of calls) {
    if (call.fault === null) continue;
    const current = state.get(call.gatewayToken) ?? { ...(leadIns.get(call.gatewayToken) ?? { run: 0, lastOpeningMs: null }) };
    state.set(call.gatewayToken, current);
    if (!call.fault) {
      current.run = 0;
      current.lastOpeningMs = null;
      continue;
    }
    current.run += 1;
    const at = Date.parse(call.createdAt);
    const opens =
      current.run === BREAKER_POLICY.failureThreshold ||
      (current.run > BREAKER_POLICY.failureThreshold && (current.lastOpeningMs === null || at - current.lastOpeningMs >= BREAKER_POLICY.openMs));
    if (opens) {
      current.lastOpeningMs = at;
      tally.add(call.createdAt.slice(0, 13), 'breaker_opening', call.gatewayToken, '', 1);
    }
  }
  return tally.all();
}

/**
 * The percentile `q` (0..1) of a latency histogram (label → count): the upper bound of the bucket
 * that holds it, in ms; null for no samples; `Infinity` when it lies above the last bound.
 */
export function percentileOf(histogram: ReadonlyMap<string, number>, q: number): number | null {
  const total = [...histogram.values()].reduce((sum, n) => sum + n, 0);
  if (total === 0) return null;
  const target = Math.max(1, Math.ceil(q * total));
  let seen = 0;
  for (const [index, bound] of LATENCY_BUCKETS_MS.entries()) {
    seen += histogram.get(latencyLabel(index)) ?? 0;
    if (seen >= target) return bound;
  }
  return Number.POSITIVE_INFINITY;
}
