import type { Clock } from '../../domain/clock.js';

/**
 * Recent success rates per gateway and card brand, for success-rate routing. Kept in
 * this node's memory: each node learns from the transactions it routed (docs/routing.md says so).
 * The window is the last `maxOutcomes` outcomes of a gateway+brand that are younger than `windowMs`.
 */
export interface SuccessRateWindow {
  windowMs: number;
  maxOutcomes: number;
}

export const DEFAULT_SUCCESS_RATE_WINDOW: SuccessRateWindow = { windowMs: 15 * 60_000, maxOutcomes: 200 };

export interface SuccessRate {
  successes: number;
  total: number;
}

interface Outcome {
  at: number;
  succeeded: boolean;
}

/** Bounded to this many gateway+brand series: an attacker cycling brands cannot grow it further. */
const MAX_SERIES = 10_000;

export class SuccessRates {
  private readonly series = new Map<string, Outcome[]>();

  constructor(
    private readonly clock: Clock,
    readonly window: SuccessRateWindow = DEFAULT_SUCCESS_RATE_WINDOW,
  ) {}

  record(gatewayToken: string, brand: string | null, succeeded: boolean): void {
    const key = seriesKey(gatewayToken, brand);
    let outcomes = this.series.get(key);
    if (outcomes === undefined) {
      if (this.series.size >= MAX_SERIES) this.series.delete(this.series.keys().next().value as string);
      outcomes = [];
      this.series.set(key, outcomes);
    }
    outcomes.push({ at: this.clock.now().getTime(), succeeded });
    if (outcomes.length > this.window.maxOutcomes) outcomes.splice(0, outcomes.length - this.window.maxOutcomes);
  }

  rate(gatewayToken: string, brand: string | null): SuccessRate {
    const since = this.clock.now().getTime() - this.window.windowMs;
    const recent = (this.series.get(seriesKey(gatewayToken, brand)) ?? []).filter((outcome) => outcome.at >= since);
    return { successes: recent.filter((outcome) => outcome.succeeded).length, total: recent.length };
  }
}

function seriesKey(gatewayToken: string, brand: string | null): string {
  return `${gatewayToken}\u0000${brand ?? ''}`;
}

/**
 * The rate a gateway is ranked by: Laplace's (s+1)/(n+2), so a gateway with no recent outcome
 * ranks at 0.5 instead of 0 or 1, and a single outcome does not decide everything.
 */
export function smoothedRate(rate: SuccessRate): number {
  return (rate.successes + 1) / (rate.total + 2);
}
