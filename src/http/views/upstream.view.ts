import { WireList, type WireObject } from '../format/wire.js';
import { storedDate } from './time.js';
import type { Upstream } from '../../domain/upstream.js';
import type { UpstreamStatus } from '../../services/upstream/upstream-settings.service.js';

/** An environment's upstream as GET environments/<key> shows it: never the access secret. */
export function upstreamView(upstream: Upstream): WireObject {
  return {
    url: upstream.url,
    environment_key: upstream.upstreamEnvironmentKey,
    public_url: upstream.publicUrl,
    receiver_token: upstream.receiverToken,
    created_at: storedDate(upstream.createdAt),
    updated_at: storedDate(upstream.updatedAt),
  };
}

/**
 * GET environments/<key>/upstream: the settings and the migration's progress. The upstream lists
 * no totals, so `remaining` is known only once a backfill has walked to the end (0), else null.
 */
export function upstreamStatusView(status: UpstreamStatus): WireObject {
  const { upstream, failures, failedCount } = status;
  const backfill = upstream.backfill;
  return {
    ...upstreamView(upstream),
    pulled_on_demand: upstream.pulledOnDemand,
    backfilled: backfill.backfilled,
    failed: failedCount,
    remaining: backfill.state === 'done' ? 0 : null,
    backfill: {
      state: backfill.state,
      seen: backfill.seen,
      backfilled: backfill.backfilled,
      already_here: backfill.alreadyHere,
      failed: backfill.failed,
      since_token: backfill.cursor,
      started_at: backfill.startedAt === null ? null : storedDate(backfill.startedAt),
      finished_at: backfill.finishedAt === null ? null : storedDate(backfill.finishedAt),
      throttled_until: backfill.throttledUntil === null ? null : storedDate(backfill.throttledUntil),
    },
    failures: new WireList(
      'failure',
      failures.map((failure) => ({ payment_method_token: failure.paymentMethodToken, reason: failure.reason, at: storedDate(failure.at) })),
    ),
  };
}
