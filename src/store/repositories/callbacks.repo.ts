import type { CallbacksRepository } from '../interfaces/callbacks.js';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { deferrable } from '../deferrable-query.js';
import { orderedToken } from '../../domain/tokens.js';
import type { Dialect } from '../dialect.js';
import { LocksRepo } from './locks.repo.js';
import { claimFairly, deferredTo, type ClaimResult, type DueClaim } from './callback-claim.js';
import type { Database } from '../schema.js';
import type { CallbackAttempt, CallbackDelivery, CallbackDestination, DeliveryState } from '../../domain/callback.js';
import type { ApiEvent } from '../../domain/event.js';
import { attemptOf, deliveryOf, destinationOf } from '../mappers/callback.js';

export type { ClaimResult, DueClaim } from './callback-claim.js';

/** Callbacks are retried for this long after the event: 24 hours (docs/events.md, "Delivery"). */
export const DELIVERY_WINDOW_MS = 24 * 3_600_000;

/** The outcomes that fire a transaction's own callback_url (when it finished asynchronously). */
const TRANSACTION_CALLBACK_EVENTS = new Set(['TransactionSucceeded', 'TransactionFailed', 'TransactionReconciled']);

/**
 * A delivery's destination, the key its failures are counted under: the URL's first 200
 * characters (in SQL, where the row is queued; migration 018 filled existing rows alike). Per URL
 * within one environment: another tenant sending to the same URL cannot back it off.
 */
const DESTINATION = sql.raw('substr(callback_url, 1, 200)');

function plus(at: string, ms: number): string {
  return new Date(Date.parse(at) + ms).toISOString();
}

/**
 * Runs an insert whose result nobody reads; inside a PostgreSQL transaction it goes out with the
 * transaction's next statement (deferrable-query.ts), its failure failing the commit.
 */
async function queue(db: Kysely<Database>, insert: RawBuilder<unknown>): Promise<void> {
  await db.executeQuery(deferrable(insert.compile(db)));
}

/**
 * Queues the callbacks an event calls for, in the event's transaction: the environment's
 * subscription (when the type is subscribed) and, for the outcome of a transaction that was
 * pending (3DS, offsite) or reconciled, the transaction's own callback_url. One statement each,
 * skipped when the subscription or destination is known to be absent; nothing is read back.
 */
export async function enqueueCallbacks(db: Kysely<Database>, event: ApiEvent, mayHaveOwnCallback = true, environmentSubscribed?: boolean): Promise<void> {
  if (event.environmentKey === null) return;
  const at = event.createdAt;
  const giveUp = plus(at, DELIVERY_WINDOW_MS);
  // Two statements per event were 8 % of a purchase (docs/caching.md): the service that records
  // the change knows the environment it read (hasCallbackSubscription), and the transaction's
  // writer knows its row. Unknown (undefined): the subscription is looked for.
  if (environmentSubscribed !== false)
    await queue(
      db,
      sql`insert into callback_deliveries (token, environment_key, event_token, kind, url, destination, format, state, attempts, next_attempt_at, give_up_at, created_at, updated_at)
    select ${orderedToken()}, key, ${event.token}, 'event', callback_url, ${DESTINATION}, coalesce(callback_format, 'xml'), 'queued', 0, ${at}, ${giveUp}, ${at}, ${at}
    from environments
    where key = ${event.environmentKey} and callback_url is not null
      and (callback_event_types is null or callback_event_types like ${`%"${event.eventType}"%`})`,
    );
  if (!mayHaveOwnCallback || event.objectType !== 'transaction' || !TRANSACTION_CALLBACK_EVENTS.has(event.eventType)) return;
  const reconciled = event.eventType === 'TransactionReconciled' ? 1 : 0;
  await queue(
    db,
    sql`insert into callback_deliveries (token, environment_key, event_token, kind, url, destination, format, state, attempts, next_attempt_at, give_up_at, created_at, updated_at)
    select ${orderedToken()}, environment_key, ${event.token}, 'transaction', callback_url, ${DESTINATION}, coalesce(callback_format, 'xml'), 'queued', 0, ${at}, ${giveUp}, ${at}, ${at}
    from transactions t
    where t.environment_key = ${event.environmentKey} and t.token = ${event.objectKey} and t.callback_url is not null
      and (${reconciled} = 1 or exists (select 1 from events e where e.environment_key = t.environment_key and e.object_key = t.token and e.event_type = 'TransactionPending'))`,
  );
}

/** The result of one attempt, as the dispatcher records it. */
export interface AttemptResult {
  status: number | null;
  latencyMs: number;
  error: string | null;
  /** delivered, abandoned, or queued again (with `nextAttemptAt`). */
  state: DeliveryState;
  nextAttemptAt: string;
  at: string;
  /**
   * What the attempt says about its destination: it answered with a 2xx (its failures are
   * forgotten), it failed (one more; `blockedUntil` gives, from the consecutive failures, until
   * when to send it nothing, or null), or it was not contacted (the event is gone).
   */
  destination: { outcome: 'delivered' } | { outcome: 'failed'; blockedUntil: (failures: number) => string | null } | { outcome: 'not contacted' };
}

/**
 * Counts the destination's consecutive failures, or forgets them on a delivery. Past the
 * threshold (the dispatcher's `blockedUntil`) the destination is blocked and its waiting
 * deliveries are deferred to the block's end.
 */
async function noteDestination(trx: Kysely<Database>, delivery: CallbackDelivery, result: AttemptResult): Promise<void> {
  const outcome = result.destination;
  if (delivery.destination === null || outcome.outcome === 'not contacted') return;
  const key = { environment_key: delivery.environmentKey, destination: delivery.destination };
  if (outcome.outcome === 'delivered') {
    await trx.deleteFrom('callback_destinations').where('environment_key', '=', key.environment_key).where('destination', '=', key.destination).execute();
    return;
  }
  // One statement, so that failures noted at once by several nodes all count.
  const { failures } = await trx
    .insertInto('callback_destinations')
    .values({ ...key, failures: 1, blocked_until: null, updated_at: result.at })
    .onConflict((conflict) => conflict.columns(['environment_key', 'destination']).doUpdateSet({ failures: sql`callback_destinations.failures + 1`, updated_at: result.at }))
    .returning('failures')
    .executeTakeFirstOrThrow();
  const blockedUntil = outcome.blockedUntil(failures);
  if (blockedUntil === null) return;
  await trx
    .updateTable('callback_destinations')
    .set({ blocked_until: blockedUntil })
    .where('environment_key', '=', key.environment_key)
    .where('destination', '=', key.destination)
    // Failures noted at once by two nodes: the longer block stays.
    .where((eb) => eb.or([eb('blocked_until', 'is', null), eb('blocked_until', '<', blockedUntil)]))
    .execute();
  // Its waiting deliveries leave the due range until the block ends, so claims do not read them meanwhile.
  await trx
    .updateTable('callback_deliveries')
    .set({ next_attempt_at: deferredTo(blockedUntil) })
    .where('state', '=', 'queued')
    .where('environment_key', '=', key.environment_key)
    .where('destination', '=', key.destination)
    .where('next_attempt_at', '<', blockedUntil)
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', result.at)]))
    .execute();
}

/** The callback queue and its delivery log (docs/events.md, "Delivery"). */
export class CallbacksRepo implements CallbacksRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  /**
   * Claims the next deliveries to attempt, fairly (callback-claim.ts; docs/events.md, "Delivery"):
   * at most `perEnvironment` attempts of one environment at once, counting every node's leases;
   * across environments, each one's oldest due delivery before anyone's second; none to a blocked
   * destination. Claims of every node run one at a time (an advisory lock on PostgreSQL; SQLite's
   * write transactions already do), so the leases counted are all of them; the conditional update
   * decides, as before.
   */
  claimDue(claim: DueClaim): Promise<ClaimResult> {
    if (claim.slots <= 0) return Promise.resolve({ claimed: [], setAside: 0 });
    return this.db.transaction().execute(async (trx) => {
      await new LocksRepo(trx, this.dialect).serialize('callback_claims');
      return claimFairly(trx, claim);
    });
  }

  /** Records an attempt and its consequence, if `claimId` still holds the row; false otherwise. */
  finishAttempt(delivery: CallbackDelivery, claimId: string, result: AttemptResult): Promise<boolean> {
    return this.db.transaction().execute(async (trx) => {
      const updated = await trx
        .updateTable('callback_deliveries')
        .set({
          state: result.state,
          attempts: delivery.attempts + 1,
          next_attempt_at: result.nextAttemptAt,
          last_status: result.status,
          last_error: result.error,
          claim_id: null,
          claimed_until: null,
          updated_at: result.at,
        })
        .where('token', '=', delivery.token)
        .where('claim_id', '=', claimId)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) return false;
      await trx
        .insertInto('callback_attempts')
        .values({ delivery_token: delivery.token, attempt: delivery.attempts + 1, status: result.status, latency_ms: result.latencyMs, error: result.error, created_at: result.at })
        .execute();
      await noteDestination(trx, delivery, result);
      return true;
    });
  }

  /** The backoff of an environment's destination, if its last attempt failed. */
  async destination(environmentKey: string, destination: string): Promise<CallbackDestination | undefined> {
    const row = await this.db.selectFrom('callback_destinations').selectAll().where('environment_key', '=', environmentKey).where('destination', '=', destination).executeTakeFirst();
    return row === undefined ? undefined : destinationOf(row);
  }

  /**
   * Queues the callbacks `event` calls for (a first delivery of an event nothing was queued for),
   * as its change would have: `enqueueCallbacks`.
   */
  enqueue(event: ApiEvent): Promise<void> {
    return enqueueCallbacks(this.db, event);
  }

  /**
   * Queues every delivery of an event again, now, for another 24 hours; how many. A redelivery is
   * the merchant saying the receiver is back: its destinations' failures (and blocks) are forgotten.
   */
  requeueEvent(environmentKey: string, eventToken: string, now: string): Promise<number> {
    return this.db.transaction().execute(async (trx) => {
      const result = await trx
        .updateTable('callback_deliveries')
        .set({ state: 'queued', next_attempt_at: now, give_up_at: plus(now, DELIVERY_WINDOW_MS), claim_id: null, claimed_until: null, updated_at: now })
        .where('environment_key', '=', environmentKey)
        .where('event_token', '=', eventToken)
        .executeTakeFirst();
      await trx
        .deleteFrom('callback_destinations')
        .where('environment_key', '=', environmentKey)
        .where('destination', 'in', (eb) => eb.selectFrom('callback_deliveries').select('destination').where('environment_key', '=', environmentKey).where('event_token', '=', eventToken))
        .execute();
      return Number(result.numUpdatedRows);
    });
  }

  async forEvent(environmentKey: string, eventToken: string): Promise<CallbackDelivery[]> {
    const rows = await this.db.selectFrom('callback_deliveries').selectAll().where('environment_key', '=', environmentKey).where('event_token', '=', eventToken).orderBy('seq').execute();
    return rows.map(deliveryOf);
  }

  async attempts(deliveryTokens: string[]): Promise<CallbackAttempt[]> {
    if (deliveryTokens.length === 0) return [];
    const rows = await this.db.selectFrom('callback_attempts').selectAll().where('delivery_token', 'in', deliveryTokens).orderBy('seq').execute();
    return rows.map(attemptOf);
  }
}
