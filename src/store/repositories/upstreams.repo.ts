import type { UpstreamsRepository } from '../interfaces/upstreams.js';
import { sql, type Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { intakeGrantOf, upstreamOf } from '../mappers/upstream.js';
import type { BackfillProgress, IntakeGrant, Upstream, UpstreamFailure, UpstreamSettings } from '../../domain/upstream.js';

/** The counters a pull moves: one a card pulled on demand, the others a backfill's. */
export type UpstreamCounter = 'pulled_on_demand' | 'backfill_seen' | 'backfill_backfilled' | 'backfill_already_here' | 'backfill_failed';

/**
 * Single-query primitives over an environment's upstream (migration 020): its settings, its
 * counters and backfill progress, the failures, and the one-time intake grants.
 */
export class UpstreamsRepo implements UpstreamsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async find(environmentKey: string): Promise<Upstream | undefined> {
    const row = await this.db.selectFrom('environment_upstreams').selectAll().where('environment_key', '=', environmentKey).executeTakeFirst();
    return row === undefined ? undefined : upstreamOf(row);
  }

  /** Sets (or replaces) the upstream; a new URL or key starts the progress afresh, counters included. */
  async put(settings: UpstreamSettings, at: string): Promise<void> {
    const values = {
      url: settings.url,
      upstream_environment_key: settings.upstreamEnvironmentKey,
      sealed_access_secret: settings.sealedAccessSecret,
      public_url: settings.publicUrl,
      receiver_token: settings.receiverToken,
      updated_at: at,
    };
    await this.db
      .insertInto('environment_upstreams')
      .values({ environment_key: settings.environmentKey, ...values, created_at: at })
      .onConflict((conflict) => conflict.column('environment_key').doUpdateSet(values))
      .execute();
  }

  /** Removes the upstream, its failures and its grants; false when there was none. */
  async remove(environmentKey: string): Promise<boolean> {
    await this.db.deleteFrom('upstream_failures').where('environment_key', '=', environmentKey).execute();
    await this.db.deleteFrom('upstream_intake_grants').where('environment_key', '=', environmentKey).execute();
    const result = await this.db.deleteFrom('environment_upstreams').where('environment_key', '=', environmentKey).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  /** Keeps the receiver made at the upstream, unless another node kept one first; false then. */
  async setReceiverIfAbsent(environmentKey: string, receiverToken: string): Promise<boolean> {
    const result = await this.db
      .updateTable('environment_upstreams')
      .set({ receiver_token: receiverToken })
      .where('environment_key', '=', environmentKey)
      .where('receiver_token', 'is', null)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async increment(environmentKey: string, counter: UpstreamCounter, by = 1): Promise<void> {
    await this.db
      .updateTable('environment_upstreams')
      .set({ [counter]: sql`${sql.ref(counter)} + ${by}` })
      .where('environment_key', '=', environmentKey)
      .execute();
  }

  /** Writes the backfill's state fields named in `progress`. */
  async setBackfill(environmentKey: string, progress: Partial<BackfillProgress>): Promise<void> {
    const set: Record<string, unknown> = {};
    if (progress.state !== undefined) set.backfill_state = progress.state;
    if (progress.cursor !== undefined) set.backfill_cursor = progress.cursor;
    if (progress.startedAt !== undefined) set.backfill_started_at = progress.startedAt;
    if (progress.finishedAt !== undefined) set.backfill_finished_at = progress.finishedAt;
    if (progress.throttledUntil !== undefined) set.backfill_throttled_until = progress.throttledUntil;
    if (progress.seen !== undefined) set.backfill_seen = progress.seen;
    if (progress.backfilled !== undefined) set.backfill_backfilled = progress.backfilled;
    if (progress.alreadyHere !== undefined) set.backfill_already_here = progress.alreadyHere;
    if (progress.failed !== undefined) set.backfill_failed = progress.failed;
    if (Object.keys(set).length === 0) return;
    await this.db.updateTable('environment_upstreams').set(set).where('environment_key', '=', environmentKey).execute();
  }

  /** Starts a backfill unless one is running; false when one is (another request or node owns it). */
  async claimBackfill(environmentKey: string, at: string): Promise<boolean> {
    const result = await this.db
      .updateTable('environment_upstreams')
      .set({ backfill_state: 'running', backfill_started_at: at, backfill_finished_at: null })
      .where('environment_key', '=', environmentKey)
      .where('backfill_state', '<>', 'running')
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async recordFailure(environmentKey: string, failure: UpstreamFailure): Promise<void> {
    await this.db
      .insertInto('upstream_failures')
      .values({ environment_key: environmentKey, payment_method_token: failure.paymentMethodToken, reason: failure.reason, at: failure.at })
      .onConflict((conflict) => conflict.columns(['environment_key', 'payment_method_token']).doUpdateSet({ reason: failure.reason, at: failure.at }))
      .execute();
  }

  async clearFailure(environmentKey: string, token: string): Promise<void> {
    await this.db.deleteFrom('upstream_failures').where('environment_key', '=', environmentKey).where('payment_method_token', '=', token).execute();
  }

  /** The latest failures, newest first. */
  async failures(environmentKey: string, limit: number): Promise<UpstreamFailure[]> {
    const rows = await this.db
      .selectFrom('upstream_failures')
      .select(['payment_method_token', 'reason', 'at'])
      .where('environment_key', '=', environmentKey)
      .orderBy('at', 'desc')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ paymentMethodToken: row.payment_method_token, reason: row.reason, at: row.at }));
  }

  async countFailures(environmentKey: string): Promise<number> {
    const row = await this.db.selectFrom('upstream_failures').select((eb) => eb.fn.countAll<number>().as('n')).where('environment_key', '=', environmentKey).executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async grant(grant: IntakeGrant): Promise<void> {
    await this.db
      .insertInto('upstream_intake_grants')
      .values({
        credential_hash: grant.credentialHash,
        environment_key: grant.environmentKey,
        payment_method_token: grant.paymentMethodToken,
        fields: JSON.stringify(grant.fields),
        purpose: grant.purpose,
        expires_at: grant.expiresAt,
        used_at: null,
        request_id: grant.requestId,
      })
      .execute();
  }

  /**
   * Spends a grant: marks it used if it is unused and unexpired, and returns it; undefined when
   * there is no such grant, it expired, or it was spent already. One statement, so two intakes
   * racing with one credential cannot both win.
   */
  async spend(credentialHash: string, now: string): Promise<IntakeGrant | undefined> {
    const result = await this.db
      .updateTable('upstream_intake_grants')
      .set({ used_at: now })
      .where('credential_hash', '=', credentialHash)
      .where('used_at', 'is', null)
      .where('expires_at', '>', now)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) return undefined;
    const row = await this.db.selectFrom('upstream_intake_grants').selectAll().where('credential_hash', '=', credentialHash).executeTakeFirst();
    return row === undefined ? undefined : intakeGrantOf(row);
  }

  /** Forgets grants past their window (spent or not): a late delivery with one is refused anyway. */
  async purgeGrants(before: string): Promise<number> {
    const result = await this.db.deleteFrom('upstream_intake_grants').where('expires_at', '<', before).executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
