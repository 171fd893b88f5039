import { sql, type Kysely, type Selectable } from 'kysely';
import type { CallbackDelivery } from '../../domain/callback.js';
import type { CallbackDeliveriesTable, Database } from '../schema.js';
import { deliveryOf } from '../mappers/callback.js';

/** What the dispatcher may claim now (docs/events.md, "Delivery"). */
export interface DueClaim {
  now: string;
  /** The claim holds each row until then (the attempt's timeout and a margin). */
  leaseUntil: string;
  claimId: string;
  /** Free attempts on the claiming node (its global cap less what it runs). */
  slots: number;
  /** Attempts of one environment at once, counting every node's leases. */
  perEnvironment: number;
}

/** The rows claimed, in the order to start them, and how many due rows were set aside instead. */
export interface ClaimResult {
  claimed: CallbackDelivery[];
  /** Abandoned (their 24 hours are over) or deferred (their destination is blocked): claim again. */
  setAside: number;
}

/** A due delivery at the head of its environment's queue, with its destination's block. */
type Head = Selectable<CallbackDeliveriesTable> & { destination_blocked_until: string | null };

const unleased = (now: string) => sql`(c.claimed_until is null or c.claimed_until <= ${now})`;

/** Rows held right now by some node's claim, per environment (the small partial index of migration 018). */
async function leasedPerEnvironment(trx: Kysely<Database>, now: string): Promise<Map<string, number>> {
  const rows = await trx
    .selectFrom('callback_deliveries')
    .select(['environment_key', (eb) => eb.fn.countAll<number>().as('n')])
    // claimed_until alone: only a queued row holds a lease (recording an attempt, abandoning and
    // requeueing clear it), and a filter on state would lead the planners to the queue's index.
    .where('claimed_until', '>', now)
    .groupBy('environment_key')
    .execute();
  return new Map(rows.map((row) => [row.environment_key, Number(row.n)]));
}

/**
 * Every environment with queued deliveries and when its oldest unleased one is due: a loose index
 * scan (one seek per environment on `state, environment_key, next_attempt_at`), so the cost grows
 * with the number of environments that have a queue, never with the length of a queue.
 */
async function environmentsDue(trx: Kysely<Database>, now: string): Promise<Array<{ environment_key: string; next_due: string | null }>> {
  const result = await sql<{ environment_key: string; next_due: string | null }>`
    with recursive queued(environment_key) as (
      select min(environment_key) from callback_deliveries where state = 'queued'
      union all
      select (select min(c.environment_key) from callback_deliveries c where c.state = 'queued' and c.environment_key > q.environment_key)
      from queued q where q.environment_key is not null
    )
    select q.environment_key,
      (select c.next_attempt_at from callback_deliveries c
        where c.state = 'queued' and c.environment_key = q.environment_key and ${unleased(now)}
        order by c.next_attempt_at limit 1) as next_due
    from queued q where q.environment_key is not null`.execute(trx);
  return result.rows;
}

/** The first `room` due, unleased deliveries of each environment, oldest first (one bounded seek each). */
async function headsOf(trx: Kysely<Database>, now: string, rooms: Array<{ environmentKey: string; room: number }>): Promise<Head[]> {
  const parts = rooms.map(
    ({ environmentKey, room }, index) => sql`select * from (
      select c.*, d.blocked_until as destination_blocked_until from callback_deliveries c
      left join callback_destinations d on d.environment_key = c.environment_key and d.destination = c.destination
      where c.state = 'queued' and c.environment_key = ${environmentKey} and c.next_attempt_at <= ${now} and ${unleased(now)}
      order by c.next_attempt_at, c.seq limit ${room}) ${sql.raw(`head_${index}`)}`,
  );
  return (await sql<Head>`${sql.join(parts, sql` union all `)}`.execute(trx)).rows;
}

/** Takes one delivery of each environment in turn (environments in the given order) until `slots` are taken. */
function interleave(queues: Head[][], slots: number): Head[] {
  const taken: Head[] = [];
  for (let turn = 0; taken.length < slots && queues.some((queue) => queue.length > turn); turn += 1) {
    for (const queue of queues) {
      const next = queue[turn];
      if (next !== undefined && taken.length < slots) taken.push(next);
    }
  }
  return taken;
}

/** Sets aside due rows that must not be sent: abandoned past their give-up time, or deferred to the end of their destination's block. */
async function setAside(trx: Kysely<Database>, now: string, expired: Head[], blocked: Head[]): Promise<void> {
  if (expired.length > 0) {
    await trx
      .updateTable('callback_deliveries')
      .set({ state: 'abandoned', claim_id: null, claimed_until: null, updated_at: now })
      .where('token', 'in', expired.map((row) => row.token))
      .where('state', '=', 'queued')
      .execute();
  }
  for (const until of new Set(blocked.map((row) => row.destination_blocked_until as string))) {
    await trx
      .updateTable('callback_deliveries')
      .set({ next_attempt_at: deferredTo(until) })
      .where('token', 'in', blocked.filter((row) => row.destination_blocked_until === until).map((row) => row.token))
      .execute();
  }
}

/** The end of a destination's block, or the delivery's give-up time if that comes first (the delivery is then abandoned). */
export function deferredTo(blockedUntil: string) {
  return sql<string>`case when give_up_at < ${blockedUntil} then give_up_at else ${blockedUntil} end`;
}

/**
 * Claims fairly, in the caller's transaction (which serializes every node's claims): environments
 * at their cap are left out, the others are served oldest head first, each one's first due
 * delivery before anyone's second, up to `slots`. Reads one seek per environment with a queue and
 * at most `perEnvironment` rows for each of `slots` environments, whatever the backlogs.
 */
export async function claimFairly(trx: Kysely<Database>, claim: DueClaim): Promise<ClaimResult> {
  const { now, perEnvironment, slots } = claim;
  const leased = await leasedPerEnvironment(trx, now);
  const roomOf = (environmentKey: string) => perEnvironment - (leased.get(environmentKey) ?? 0);
  const due = (await environmentsDue(trx, now))
    .filter((environment) => environment.next_due !== null && environment.next_due <= now && roomOf(environment.environment_key) > 0)
    .sort((a, b) => (a.next_due as string).localeCompare(b.next_due as string) || a.environment_key.localeCompare(b.environment_key))
    .slice(0, slots);
  if (due.length === 0) return { claimed: [], setAside: 0 };

  const heads = await headsOf(
    trx,
    now,
    due.map((environment) => ({ environmentKey: environment.environment_key, room: roomOf(environment.environment_key) })),
  );
  const expired = heads.filter((row) => row.give_up_at <= now);
  const blocked = heads.filter((row) => row.give_up_at > now && row.destination_blocked_until !== null && row.destination_blocked_until > now);
  await setAside(trx, now, expired, blocked);
  const aside = new Set([...expired, ...blocked]);
  const queues = due.map((environment) => heads.filter((row) => row.environment_key === environment.environment_key && !aside.has(row)));
  const tokens = interleave(queues, slots).map((row) => row.token);
  if (tokens.length === 0) return { claimed: [], setAside: aside.size };

  const claimed = await trx
    .updateTable('callback_deliveries')
    .set({ claim_id: claim.claimId, claimed_until: claim.leaseUntil })
    .where('token', 'in', tokens)
    .where('state', '=', 'queued')
    .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<=', now)]))
    .returningAll()
    .execute();
  // RETURNING follows no order: the attempts start in the fair order chosen above.
  claimed.sort((a, b) => tokens.indexOf(a.token) - tokens.indexOf(b.token));
  return { claimed: claimed.map(deliveryOf), setAside: aside.size };
}
