import { LATENCY_BUCKETS_MS } from '../domain/rollup.js';
import type { OverviewFigures } from '../services/overview.service.js';

/** A latency percentile for JSON: the bucket's upper bound in ms; null without samples or above the last bucket. */
function ms(value: number | null): number | null {
  return value === null || !Number.isFinite(value) ? null : value;
}

function rate(value: number | null): number | null {
  return value === null ? null : Math.round(value * 10000) / 10000;
}

/**
 * `GET /portal/e/<env>/overview.json?range=24h|7d|30d` (docs/portal.md, "Overview as JSON"): the
 * figures the overview page draws, from the same object, in the API's snake_case.
 */
export function overviewJson(figures: OverviewFigures): Record<string, unknown> {
  const names = new Map(figures.gateways.map((gateway) => [gateway.token, gateway.name]));
  return {
    overview: {
      range: figures.range,
      from: figures.from,
      until: figures.until,
      bucket_hours: figures.bucketHours,
      // Null when complete; else ended hours from here on are still being counted and left out.
      counting_from: figures.countingFrom,
      latency_bucket_bounds_ms: [...LATENCY_BUCKETS_MS],
      totals: {
        payments: figures.totals.payments,
        approved: figures.totals.approved,
        approval_rate: rate(figures.totals.approvalRate),
        retry_rescues: figures.totals.retryRescues,
        failover_rescues: figures.totals.failoverRescues,
        breaker_openings: figures.totals.breakerOpenings,
      },
      gateways: figures.gateways.map((gateway) => ({
        token: gateway.token,
        gateway_type: gateway.gatewayType,
        name: gateway.name,
        payments: gateway.payments,
        approved: gateway.approved,
        approval_rate: rate(gateway.approvalRate),
        series: gateway.series.map((point) => ({ start: point.start, payments: point.payments, approved: point.approved })),
        latency: { p50_ms: ms(gateway.latencyP50Ms), p95_ms: ms(gateway.latencyP95Ms), samples: gateway.latencySamples },
        breaker_openings: gateway.breakerOpenings,
        breaker_open_now: gateway.breakerOpenNow,
        retry_rescues: gateway.retryRescues,
        failover_rescues: gateway.failoverRescues,
      })),
      decline_reasons: figures.declineReasons.map((reason) => ({ code: reason.code, count: reason.count })),
      routing: figures.routing.map((rule) => ({
        workflow_key: rule.workflowKey,
        rule: rule.rule,
        decisions: rule.decisions,
        gateways: rule.gateways.map((gateway) => ({ token: gateway.token, name: names.get(gateway.token) ?? null, count: gateway.count })),
      })),
    },
  };
}
