import { sql, type Insertable, type Kysely, type Selectable, type Updateable, type UpdateResult } from 'kysely';
import type { Database, TransactionsTable } from '../schema.js';
import { applyPage, readInGroups, readPage, type PageRequest } from './page.js';
import { journaled, type Change } from '../change-journal.js';
import { transactionStateEvent } from '../../domain/event-types.js';
import { columnsOf, Precompiled, recordOf, recordShape } from './precompiled.js';

/** The events of a transaction row written with `state` (docs/events.md, "Event types"). */
function stateChanges(environmentKey: string, token: string, state: string | undefined, at: string | undefined, reconciled = false, ownCallback?: boolean): Change[] {
  const eventType = reconciled ? 'TransactionReconciled' : transactionStateEvent(state);
  if (eventType === null) return [];
  const change: Change = { environmentKey, eventType, objectType: 'transaction', objectKey: token, at };
  return [ownCallback === undefined ? change : { ...change, ownCallback }];
}

/** A new transaction: TransactionCreated, then its outcome when it is born with one. */
function creationChanges(row: Insertable<TransactionsTable>): Change[] {
  return [
    { environmentKey: row.environment_key, eventType: 'TransactionCreated', objectType: 'transaction', objectKey: row.token, at: row.created_at },
    ...stateChanges(row.environment_key, row.token, row.state, row.created_at, false, hasCallback(row.callback_url)),
  ];
}

/**
 * The events of a patch: its outcome when it sets a state; TransactionReconciled alone when it
 * settles an unknown result (the final state is in the transaction the event points at).
 */
function patchChanges(row: TransactionRow | undefined, patch: Updateable<TransactionsTable>): Change[] {
  if (row === undefined) return [];
  const ownCallback = row.callback_url !== null;
  if (typeof patch.reconciled_at === 'string') return stateChanges(row.environment_key, row.token, undefined, patch.reconciled_at, true, ownCallback);
  return stateChanges(row.environment_key, row.token, patch.state as string | undefined, patch.updated_at as string | undefined, false, ownCallback);
}

/** Whether an inserted row names a callback destination; undefined when the insert leaves it out. */
function hasCallback(callbackUrl: string | null | undefined): boolean | undefined {
  return callbackUrl === undefined ? undefined : callbackUrl !== null;
}

/**
 * The predicate of the partial index `transactions_in_flight`, as literal SQL: the planners (SQLite
 * above all) use a partial index only when the query states its predicate, and cannot see through
 * bound parameters.
 */
const IN_FLIGHT = sql<boolean>`state in ('processing', 'pending')`;

export type TransactionRow = Selectable<TransactionsTable>;

/** A transaction by environment and token (every show, every follow-up transaction). */
const FIND = new Precompiled<TransactionRow>((db, [environmentKey, token]) =>
  db
    .selectFrom('transactions')
    .selectAll()
    .where('environment_key', '=', environmentKey as string)
    .where('token', '=', token as string),
);

/** The insert of every transaction; its shape is the columns the row sets. */
const INSERT = new Precompiled<TransactionRow>((db, values, shape) =>
  db
    .insertInto('transactions')
    .values(recordOf(columnsOf(shape), values) as Insertable<TransactionsTable>)
    .returningAll(),
);

/** The update of one transaction by environment and token; its shape is the columns it sets, then the two keys follow. */
function updateByKeys(db: Kysely<Database>, values: readonly unknown[], shape: string) {
  const columns = columnsOf(shape);
  return db
    .updateTable('transactions')
    .set(recordOf(columns, values) as Updateable<TransactionsTable>)
    .where('environment_key', '=', values[columns.length] as string)
    .where('token', '=', values[columns.length + 1] as string);
}

const UPDATE = new Precompiled<TransactionRow>((db, values, shape) => updateByKeys(db, values, shape).returningAll());

/**
 * The same update for a caller that knows the row already (`TransactionsRepo.finish`): nothing is
 * read back, so inside a PostgreSQL transaction it leaves with the commit (postgres-pipeline.ts).
 */
const SET = new Precompiled<UpdateResult>(updateByKeys, { deferrable: true });

async function insertRow(db: Kysely<Database>, row: Insertable<TransactionsTable>): Promise<TransactionRow> {
  const record = recordShape(row);
  if (record === null) return db.insertInto('transactions').values(row).returningAll().executeTakeFirstOrThrow();
  const inserted = await INSERT.first(db, record.shape, record.values);
  if (inserted === undefined) throw new Error('the transaction insert returned no row');
  return inserted;
}

function updateRow(db: Kysely<Database>, environmentKey: string, token: string, patch: Updateable<TransactionsTable>): Promise<TransactionRow | undefined> {
  const record = recordShape(patch);
  if (record === null) return db.updateTable('transactions').set(patch).where('environment_key', '=', environmentKey).where('token', '=', token).returningAll().executeTakeFirst();
  return UPDATE.first(db, record.shape, [...record.values, environmentKey, token]);
}

async function setRow(db: Kysely<Database>, environmentKey: string, token: string, patch: Updateable<TransactionsTable>): Promise<void> {
  const record = recordShape(patch);
  if (record === null) await db.updateTable('transactions').set(patch).where('environment_key', '=', environmentKey).where('token', '=', token).execute();
  else await SET.rows(db, record.shape, [...record.values, environmentKey, token]);
}

/** `row` with the columns `patch` sets (an undefined value sets nothing, as in Kysely). */
function patched(row: TransactionRow, patch: Updateable<TransactionsTable>): TransactionRow {
  const result: Record<string, unknown> = { ...row };
  for (const [column, value] of Object.entries(patch)) if (value !== undefined) result[column] = value;
  return result as TransactionRow;
}

/**
 * A gateway transaction that becomes `gateway_processing_result_unknown` is due for
 * reconciliation at once (the reconciler decides whether its gateway can be asked).
 */
function markUnknown<P extends Updateable<TransactionsTable>>(patch: P): P {
  return patch.state === 'gateway_processing_result_unknown' && patch.reconcile_next_at === undefined ? { ...patch, reconcile_next_at: patch.updated_at ?? new Date().toISOString() } : patch;
}

/** Single-query primitives over `transactions`; every read is scoped to one environment. */
export class TransactionsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Insertable<TransactionsTable>): Promise<void> {
    await this.insertReturning(row);
  }

  /**
   * Inserts and returns the stored row (with its `seq`) in one statement, with its events.
   * `failedOver`: the row is an attempt a retry chain moved on to (docs/routing-retry.md), which records
   * TransactionFailedOver after TransactionCreated.
   */
  insertReturning(row: Insertable<TransactionsTable>, failedOver = false): Promise<TransactionRow> {
    const [created, ...outcome] = creationChanges(row);
    const failover: Change[] = failedOver ? [{ environmentKey: row.environment_key, eventType: 'TransactionFailedOver', objectType: 'transaction', objectKey: row.token, at: row.created_at }] : [];
    return journaled(this.db, async (db) => ({
      result: await insertRow(db, withOrderId(row)),
      changes: [...(created === undefined ? [] : [created]), ...failover, ...outcome],
    }));
  }

  /** The attempts of the retry chains that began with `firstTokens`, each chain oldest first. */
  attemptsOf(environmentKey: string, firstTokens: readonly string[]): Promise<TransactionRow[]> {
    // A group of chains a statement (page.ts); each chain is in one group, so its attempts stay in order.
    return readInGroups(firstTokens, (group) =>
      this.db.selectFrom('transactions').selectAll().where('environment_key', '=', environmentKey).where('first_attempt_token', 'in', group).orderBy('seq').execute(),
    );
  }

  /**
   * Counts of gateway transactions since `since`, by gateway, time bucket (the first
   * `bucketChars` characters of `created_at`: 13 for hours, 10 for days) and outcome.
   */
  async volume(environmentKey: string, since: string, until: string | null, bucketChars: 10 | 13, types: readonly string[]): Promise<VolumeRow[]> {
    const bucket = sql<string>`substr(created_at, 1, ${sql.lit(bucketChars)})`;
    let query = this.db
      .selectFrom('transactions')
      .select((eb) => ['gateway_token', bucket.as('bucket'), 'succeeded', eb.fn.countAll<number>().as('n')])
      .where('environment_key', '=', environmentKey)
      .where('created_at', '>=', since);
    if (until !== null) query = query.where('created_at', '<', until);
    const rows = await query
      .where('transaction_type', 'in', [...types])
      .where('gateway_token', 'is not', null)
      .groupBy(['gateway_token', bucket, 'succeeded'])
      .execute();
    return rows.map((row) => ({ gatewayToken: row.gateway_token as string, bucket: row.bucket, succeeded: row.succeeded === 1, count: Number(row.n) }));
  }

  /**
   * The newest gateway transactions in one state (walks `transactions_by_env_state` newest first;
   * no time bound, which would steer the planner onto the time index and a sort of a month).
   */
  newestInState(environmentKey: string, state: string, types: readonly string[], count: number): Promise<TransactionRow[]> {
    return this.db
      .selectFrom('transactions')
      .selectAll()
      .where('environment_key', '=', environmentKey)
      .where('state', '=', state)
      .where('transaction_type', 'in', [...types])
      .orderBy('seq', 'desc')
      .limit(count)
      .execute();
  }

  /** A gateway's newest gateway transactions (states and times), newest first. */
  lastOutcomes(gatewayToken: string, types: readonly string[], count: number): Promise<Array<{ state: string; updated_at: string }>> {
    return this.db
      .selectFrom('transactions')
      .select(['state', 'updated_at'])
      .where('gateway_token', '=', gatewayToken)
      .where('transaction_type', 'in', [...types])
      .orderBy('seq', 'desc')
      .limit(count)
      .execute();
  }

  /**
   * The portal's search, newest first, `count` rows older than `beforeSeq`. Token and order id
   * use their indexes; a date range walks `transactions_by_env_created_seq` newest first; the
   * other filters narrow the walk down `transactions_by_env`.
   */
  async search(environmentKey: string, filter: TransactionSearch): Promise<TransactionRow[]> {
    let query = this.db.selectFrom('transactions').selectAll().where('environment_key', '=', environmentKey);
    if (filter.token !== undefined) query = query.where('token', '=', filter.token);
    if (filter.orderId !== undefined) query = query.where('order_id', '=', filter.orderId);
    if (filter.gatewayToken !== undefined) query = query.where('gateway_token', '=', filter.gatewayToken);
    if (filter.state !== undefined) query = query.where('state', '=', filter.state);
    if (filter.type !== undefined) query = query.where('transaction_type', '=', filter.type);
    if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
    if (filter.to !== undefined) query = query.where('created_at', '<', filter.to);
    if (filter.from === undefined && filter.to === undefined) {
      if (filter.beforeSeq !== undefined) query = query.where('seq', '<', filter.beforeSeq);
      return query.orderBy('seq', 'desc').limit(filter.count).execute();
    }
    // A date range: newest first by (created_at, seq), the order of transactions_by_env_created_seq,
    // so a page reads `count` index entries instead of sorting the whole range by seq. The page
    // cursor stays a seq; its created_at is looked up to continue after it.
    if (filter.beforeSeq !== undefined) {
      const cursor = await this.db
        .selectFrom('transactions')
        .select('created_at')
        .where('environment_key', '=', environmentKey)
        .where('seq', '=', filter.beforeSeq)
        .executeTakeFirst();
      query = cursor === undefined ? query.where('seq', '<', filter.beforeSeq) : query.where(sql<boolean>`(created_at, seq) < (${cursor.created_at}, ${filter.beforeSeq})`);
    }
    return query.orderBy('created_at', 'desc').orderBy('seq', 'desc').limit(filter.count).execute();
  }

  find(environmentKey: string, token: string): Promise<TransactionRow | undefined> {
    return FIND.first(this.db, '', [environmentKey, token]);
  }

  listForPaymentMethod(environmentKey: string, paymentMethodToken: string, page: PageRequest): Promise<TransactionRow[]> {
    const query = this.db
      .selectFrom('transactions')
      .selectAll()
      .where('environment_key', '=', environmentKey)
      .where('payment_method_token', '=', paymentMethodToken);
    return readPage(page, (part) => applyPage(query, 'seq', part).execute());
  }

  /** Every transaction that refers to `referenceToken` (captures, voids, credits). */
  children(environmentKey: string, referenceToken: string): Promise<TransactionRow[]> {
    return this.db
      .selectFrom('transactions')
      .selectAll()
      .where('environment_key', '=', environmentKey)
      .where('reference_token', '=', referenceToken)
      .orderBy('seq')
      .execute();
  }

  async update(environmentKey: string, token: string, patch: Updateable<TransactionsTable>): Promise<void> {
    await this.updateReturning(environmentKey, token, patch);
  }

  /** Updates and returns the row as stored, in one statement (with its events); undefined when there is none. */
  updateReturning(environmentKey: string, token: string, patch: Updateable<TransactionsTable>): Promise<TransactionRow | undefined> {
    return journaled(this.db, async (db) => {
      const row = await updateRow(db, environmentKey, token, markUnknown(patch));
      return { result: row, changes: patchChanges(row, patch) };
    });
  }

  /**
   * Writes the outcome of a transaction whose row the caller holds as stored, because nothing
   * else writes a transaction while its gateway call runs (finishTransaction), and returns it:
   * `current` with `patch` applied, not read back. On PostgreSQL the update is then
   * sent without waiting for its answer and the outcome's transaction costs one round trip, its
   * `COMMIT`; a failure of the update still fails that commit (postgres-pipeline.ts).
   */
  finish(current: TransactionRow, patch: Updateable<TransactionsTable>): Promise<TransactionRow> {
    const applied = markUnknown(patch);
    return journaled(this.db, async (db) => {
      await setRow(db, current.environment_key, current.token, applied);
      const row = patched(current, applied);
      return { result: row, changes: patchChanges(row, patch) };
    });
  }

  /** Updates only while the row is still in `fromState`; the updated row, or undefined when it had moved on. */
  updateIfState(environmentKey: string, token: string, fromState: string, patch: Updateable<TransactionsTable>): Promise<TransactionRow | undefined> {
    return journaled(this.db, async (db) => {
      const row = await db
        .updateTable('transactions')
        .set(markUnknown(patch))
        .where('environment_key', '=', environmentKey)
        .where('token', '=', token)
        .where('state', '=', fromState)
        .returningAll()
        .executeTakeFirst();
      return { result: row, changes: patchChanges(row, patch) };
    });
  }

  /** Transactions still `processing` last touched before `before` (every environment), oldest first. */
  processingSince(before: string, limit: number): Promise<TransactionRow[]> {
    return this.db.selectFrom('transactions').selectAll().where(IN_FLIGHT).where('state', '=', 'processing').where('updated_at', '<', before).orderBy('updated_at').limit(limit).execute();
  }

  /** Marks `pending` transactions of a type last touched before `cutoff` as failed (every environment); how many. */
  async failStale(transactionType: string, cutoff: string, patch: { message_key: string; message: string; updated_at: string }): Promise<number> {
    return journaled(this.db, async (db) => {
      const failed = await db
        .updateTable('transactions')
        .set({ ...patch, state: 'failed', succeeded: 0 })
        .where(IN_FLIGHT)
        .where('transaction_type', '=', transactionType)
        .where('state', '=', 'pending')
        .where('updated_at', '<', cutoff)
        .returning(['environment_key', 'token'])
        .execute();
      return { result: failed.length, changes: failed.flatMap((row) => stateChanges(row.environment_key, row.token, 'failed', patch.updated_at)) };
    });
  }

  /** Unknown results whose next lookup is due (every environment), oldest first (docs/events.md). */
  dueForReconciliation(now: string, limit: number): Promise<TransactionRow[]> {
    return this.db
      .selectFrom('transactions')
      .selectAll()
      .where('reconcile_next_at', '<=', now)
      .where('state', '=', 'gateway_processing_result_unknown')
      .orderBy('reconcile_next_at')
      .limit(limit)
      .execute();
  }

  /**
   * Claims the lookup of `row` by moving its next lookup to `next` (null: never ask again), only if
   * nobody moved it since it was read; false when another node did.
   */
  async claimReconciliation(row: TransactionRow, next: string | null): Promise<boolean> {
    const result = await this.db
      .updateTable('transactions')
      .set({ reconcile_next_at: next, reconcile_attempts: row.reconcile_attempts + (next === null ? 0 : 1) })
      .where('environment_key', '=', row.environment_key)
      .where('token', '=', row.token)
      .where('state', '=', 'gateway_processing_result_unknown')
      .where('reconcile_next_at', '=', row.reconcile_next_at as string)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** The environment's transactions, optionally of one gateway and in some states. */
  list(environmentKey: string, page: PageRequest, filter: { states?: string[]; gatewayToken?: string } = {}): Promise<TransactionRow[]> {
    let query = this.db.selectFrom('transactions').selectAll().where('environment_key', '=', environmentKey);
    if (filter.gatewayToken !== undefined) query = query.where('gateway_token', '=', filter.gatewayToken);
    if (filter.states !== undefined && filter.states.length > 0) query = query.where('state', 'in', filter.states);
    // Rows hold gateway details and the transcript: read a part of the page at a time (page.ts).
    return readPage(page, (part) => applyPage(query, 'seq', part).execute());
  }
}

/** The portal's transaction filters; every one optional. */
export interface TransactionSearch {
  token?: string;
  orderId?: string;
  gatewayToken?: string;
  state?: string;
  type?: string;
  /** ISO bounds on `created_at`: from inclusive, to exclusive. */
  from?: string;
  to?: string;
  beforeSeq?: number;
  count: number;
}

/** Copies `details.order_id` into its own column (indexed for search). */
function withOrderId(row: Insertable<TransactionsTable>): Insertable<TransactionsTable> {
  if (row.order_id !== undefined || typeof row.details !== 'string') return row;
  const orderId = (JSON.parse(row.details) as { order_id?: unknown }).order_id;
  return typeof orderId === 'string' ? { ...row, order_id: orderId } : row;
}

/** One cell of the overview's aggregates. */
export interface VolumeRow {
  gatewayToken: string;
  bucket: string;
  succeeded: boolean;
  count: number;
}
