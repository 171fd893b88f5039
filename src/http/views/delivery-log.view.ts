import type { DeliveryLog } from '../../services/callbacks/callback-admin.service.js';
import { WireList, type WireObject } from '../format/wire.js';
import { storedDate } from './time.js';

/** One callback's delivery log: where, its state, and each attempt's status and latency (never a body). */
export function deliveryLogView({ delivery, attempts }: DeliveryLog): WireObject {
  return {
    token: delivery.token,
    kind: delivery.kind,
    url: delivery.url,
    format: delivery.format,
    state: delivery.state,
    attempts_count: delivery.attempts,
    next_attempt_at: delivery.state === 'queued' ? storedDate(delivery.nextAttemptAt) : null,
    give_up_at: storedDate(delivery.giveUpAt),
    attempts: new WireList(
      'attempt',
      attempts.map((attempt) => ({ attempt: attempt.attempt, status: attempt.status, latency_ms: attempt.latencyMs, error: attempt.error, created_at: storedDate(attempt.createdAt) })),
    ),
    created_at: storedDate(delivery.createdAt),
    updated_at: storedDate(delivery.updatedAt),
  };
}
