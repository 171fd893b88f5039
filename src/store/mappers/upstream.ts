import type { Selectable } from 'kysely';
import type { EnvironmentUpstreamsTable, UpstreamIntakeGrantsTable } from '../schema.js';
import type { BackfillState, IntakeGrant, Upstream, UpstreamPaymentMethodFields } from '../../domain/upstream.js';

export type EnvironmentUpstreamRow = Selectable<EnvironmentUpstreamsTable>;

export function upstreamOf(row: EnvironmentUpstreamRow): Upstream {
  return {
    environmentKey: row.environment_key,
    url: row.url,
    upstreamEnvironmentKey: row.upstream_environment_key,
    sealedAccessSecret: row.sealed_access_secret,
    publicUrl: row.public_url,
    receiverToken: row.receiver_token,
    pulledOnDemand: Number(row.pulled_on_demand),
    backfill: {
      state: row.backfill_state as BackfillState,
      cursor: row.backfill_cursor,
      seen: Number(row.backfill_seen),
      backfilled: Number(row.backfill_backfilled),
      alreadyHere: Number(row.backfill_already_here),
      failed: Number(row.backfill_failed),
      startedAt: row.backfill_started_at,
      finishedAt: row.backfill_finished_at,
      throttledUntil: row.backfill_throttled_until,
    },
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function intakeGrantOf(row: Selectable<UpstreamIntakeGrantsTable>): IntakeGrant {
  return {
    environmentKey: row.environment_key,
    credentialHash: row.credential_hash,
    paymentMethodToken: row.payment_method_token,
    fields: JSON.parse(row.fields) as UpstreamPaymentMethodFields,
    purpose: row.purpose === 'backfill' ? 'backfill' : 'on_demand',
    expiresAt: row.expires_at,
    requestId: row.request_id,
  };
}
