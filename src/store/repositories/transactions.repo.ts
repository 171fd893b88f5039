import type { TransactionsRepository } from '../interfaces/transactions.js';
import { sql, type Insertable, type Kysely, type SelectQueryBuilder, type Updateable, type UpdateResult } from 'kysely';
import type { Database, TransactionsTable } from '../schema.js';
import { applyPage, readInGroups, readPage, type PageRequest } from './page.js';
import { columnsOf, Precompiled, recordOf, recordShape } from './precompiled.js';
import { insertRows } from './bulk-insert.js';
import { newTransactionRow, patchedTransaction, transactionOf, transactionPatchRow, type TransactionRow } from '../mappers/transaction.js';
import { TransactionState, type NewTransaction, type RoutedBy, type Transaction, type TransactionPatch, type TransactionSearch, TRANSACTION_SEARCH_WINDOW, type TransactionSearchPage } from '../../domain/transaction.js';

export type { TransactionRow } from '../mappers/transaction.js';

/**
 * The predicate of the partial index `transactions_in_flight`, as literal SQL: the planners (SQLite
 * above all) use a partial index only when the query states its predicate, and cannot see through
 * bound parameters.
 */
const IN_FLIGHT = sql<boolean>`state in ('processing', 'pending')`;

/** A transaction by environment and token (every show, every follow-up transaction). */
const FIND = new Precompiled<TransactionRow>((db, [environmentKey, token]) =>
  db
    .selectFrom('transactions')
    .selectAll()
    .where('environment_key', '=', environmentKey as string)
    .where('token', '=', token as string),
);

/**
 * A page of an environment's transactions (GET /v1/transactions, a gateway's transactions), the
 * API's most read list. Its shape names the filters present (`g` a gateway, the number of states,
 * `s` a cursor) and the order; the values follow in that order, the page size last.
 */
const LIST = new Precompiled<TransactionRow>((db, values, shape) => {
  const [gateway, stateCount, since, order] = shape.split('|') as [string, string, string, 'asc' | 'desc'];
  let next = 0;
  const value = () => values[next++] as never;
  let query = db.selectFrom('transactions').selectAll().where('environment_key', '=', value() as string);
  if (gateway === 'g') query = query.where('gateway_token', '=', value() as string);
  const states = Number(stateCount);
  if (states > 0) query = query.where('state', 'in', Array.from({ length: states }, value) as TransactionState[]);
  if (since === 's') query = query.where('seq', order === 'asc' ? '>' : '<', value() as number);
  return query.orderBy('seq', order).limit(value() as number);
});

/** The values and shape of a LIST statement for one part of a page. */
function listStatement(environmentKey: string, filter: { states?: readonly TransactionState[]; gatewayToken?: string }, part: PageRequest): { shape: string; values: unknown[] } {
  const states = filter.states ?? [];
  const values: unknown[] = [environmentKey];
  if (filter.gatewayToken !== undefined) values.push(filter.gatewayToken);
  values.push(...states);
  if (part.sinceSeq !== null) values.push(part.sinceSeq);
  values.push(part.count);
  return { shape: `${filter.gatewayToken === undefined ? '' : 'g'}|${states.length}|${part.sinceSeq === null ? '' : 's'}|${part.order}`, values };
}

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

/**
 * A gateway transaction that becomes `gateway_processing_result_unknown` is due for
 * reconciliation at once (docs/events.md; the reconciler decides whether its gateway can be asked).
 */
function markUnknown(patch: TransactionPatch): TransactionPatch {
  return patch.state === TransactionState.resultUnknown && patch.reconcileNextAt === undefined ? { ...patch, reconcileNextAt: patch.updatedAt ?? new Date().toISOString() } : patch;
}

/** Single-query primitives over `transactions`; every read is scoped to one environment. Events are the services' (docs/events.md). */
export class TransactionsRepo implements TransactionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  /** Inserts `transaction` and returns it as stored (with its position), in one statement. */
  async insert(transaction: NewTransaction): Promise<Transaction> {
    const inserted = await insertRow(this.db, newTransactionRow(transaction));
    // The details were just written from this object: not parsed back.
    return transactionOf(inserted, transaction.details);
  }

  /** Several new transactions, a statement per 100 (a bulk import's); as `insert` for each, in order. */
  async insertMany(transactions: readonly NewTransaction[]): Promise<Transaction[]> {
    const inserted: Transaction[] = [];
    for (let start = 0; start < transactions.length; start += 100) {
      const part = transactions.slice(start, start + 100);
      const rows = await insertRows<TransactionRow>(this.db, 'transactions', part.map(newTransactionRow), true);
      const byToken = new Map(rows.map((row) => [row.token, row]));
      for (const transaction of part) inserted.push(transactionOf(byToken.get(transaction.token) as TransactionRow, transaction.details));
    }
    return inserted;
  }

  /** As `insertMany` without reading the rows back: a million-card import allocated 4 KB a card for rows it never used. */
  async writeMany(transactions: readonly NewTransaction[]): Promise<void> {
    for (let start = 0; start < transactions.length; start += 100) {
      await insertRows(this.db, 'transactions', transactions.slice(start, start + 100).map(newTransactionRow));
    }
  }

  /** The attempts of the retry chains that began with `firstTokens`, each chain oldest first. */
  async attemptsOf(environmentKey: string, firstTokens: readonly string[]): Promise<Transaction[]> {
    // A group of chains a statement (page.ts); each chain is in one group, so its attempts stay in order.
    const rows = await readInGroups(firstTokens, (group) =>
      this.db.selectFrom('transactions').selectAll().where('environment_key', '=', environmentKey).where('first_attempt_token', 'in', group).orderBy('seq').execute(),
    );
    return rows.map((row) => transactionOf(row));
  }

  /**
   * The newest gateway transactions in `states`, at most `count` of each, newest first. Each state
   * walks `transactions_by_env_state` newest first (no time bound, which would steer the planner
   * onto the time index and a sort of a month); the walks are merged here, newest first.
   */
  async newestInStates(environmentKey: string, states: readonly TransactionState[], types: readonly string[], count: number): Promise<Transaction[]> {
    const walks = await Promise.all(
      states.map((state) =>
        this.db
          .selectFrom('transactions')
          .selectAll()
          .where('environment_key', '=', environmentKey)
          .where('state', '=', state)
          .where('transaction_type', 'in', [...types])
          .orderBy('seq', 'desc')
          .limit(count)
          .execute(),
      ),
    );
    return walks
      .flat()
      .sort((a, b) => b.seq - a.seq)
      .map((row) => transactionOf(row));
  }

  /**
   * The portal's search, newest first, `count` rows older than `beforePosition`. Token, order id,
   * payment methods (`transactions_by_payment_method`), gateway and state use their indexes; a
   * date range walks `transactions_by_env_created_seq` newest first; type, amount and currency are
   * checked on the rows reached. Searched by those alone, a window of the newest
   * TRANSACTION_SEARCH_WINDOW rows is read at a time (`scannedTo`).
   */
  async search(environmentKey: string, filter: TransactionSearch): Promise<TransactionSearchPage> {
    const indexed =
      filter.token !== undefined || filter.orderId !== undefined || filter.paymentMethodTokens !== undefined || filter.gatewayToken !== undefined ||
      filter.state !== undefined || filter.from !== undefined || filter.to !== undefined;
    const unindexed = filter.type !== undefined || filter.amountFrom !== undefined || filter.amountTo !== undefined || filter.currency !== undefined;
    if (!indexed && unindexed) return this.searchWindow(environmentKey, filter);
    return { transactions: (await this.searchRows(environmentKey, filter)).map((row) => transactionOf(row)), scannedTo: null };
  }

  private async searchRows(environmentKey: string, filter: TransactionSearch): Promise<TransactionRow[]> {
    const tokens = filter.paymentMethodTokens;
    if (tokens !== undefined && tokens.length === 0) return [];
    // With payment methods, the environment is checked on the rows transactions_by_payment_method
    // finds: written as an expression, so SQLite's planner (no statistics) does not walk the
    // environment's whole index newest first instead, looking for them.
    const environment = tokens === undefined ? sql<string>`environment_key` : sql<string>`(environment_key || '')`;
    let query = this.narrowed(this.db.selectFrom('transactions').selectAll().where(environment, '=', environmentKey), filter);
    if (tokens !== undefined) query = query.where('payment_method_token', 'in', tokens);
    if (filter.from !== undefined) query = query.where('created_at', '>=', filter.from);
    if (filter.to !== undefined) query = query.where('created_at', '<', filter.to);
    if (filter.from === undefined && filter.to === undefined) {
      if (filter.beforePosition !== undefined) query = query.where('seq', '<', filter.beforePosition);
      return query.orderBy('seq', 'desc').limit(filter.count).execute();
    }
    // A date range: newest first by (created_at, seq), the order of transactions_by_env_created_seq,
    // so a page reads `count` index entries instead of sorting the whole range by seq. The page
    // cursor stays a seq; its created_at is looked up to continue after it.
    if (filter.beforePosition !== undefined) {
      const cursor = await this.db
        .selectFrom('transactions')
        .select('created_at')
        .where('environment_key', '=', environmentKey)
        .where('seq', '=', filter.beforePosition)
        .executeTakeFirst();
      query = cursor === undefined ? query.where('seq', '<', filter.beforePosition) : query.where(sql<boolean>`(created_at, seq) < (${cursor.created_at}, ${filter.beforePosition})`);
    }
    return query.orderBy('created_at', 'desc').orderBy('seq', 'desc').limit(filter.count).execute();
  }

  /** The equality and amount filters, on whatever the query reads. */
  private narrowed<Q extends SelectQueryBuilder<Database, 'transactions', TransactionRow>>(query: Q, filter: TransactionSearch): Q {
    let q = query;
    if (filter.token !== undefined) q = q.where('token', '=', filter.token) as Q;
    if (filter.orderId !== undefined) q = q.where('order_id', '=', filter.orderId) as Q;
    if (filter.gatewayToken !== undefined) q = q.where('gateway_token', '=', filter.gatewayToken) as Q;
    if (filter.state !== undefined) q = q.where('state', '=', filter.state) as Q;
    if (filter.type !== undefined) q = q.where('transaction_type', '=', filter.type) as Q;
    if (filter.amountFrom !== undefined) q = q.where('amount', '>=', filter.amountFrom) as Q;
    if (filter.amountTo !== undefined) q = q.where('amount', '<=', filter.amountTo) as Q;
    if (filter.currency !== undefined) q = q.where('currency_code', '=', filter.currency) as Q;
    return q;
  }

  /** Type, amount or currency alone: the newest window below the cursor, walked down `transactions_by_env`. */
  private async searchWindow(environmentKey: string, filter: TransactionSearch): Promise<TransactionSearchPage> {
    let window = this.db.selectFrom('transactions').selectAll().where('environment_key', '=', environmentKey);
    if (filter.beforePosition !== undefined) window = window.where('seq', '<', filter.beforePosition);
    const windowed = window.orderBy('seq', 'desc').limit(TRANSACTION_SEARCH_WINDOW).as('transactions');
    const rows = await this.narrowed(this.db.selectFrom(windowed).selectAll(), filter).orderBy('seq', 'desc').limit(filter.count).execute();
    const transactions = rows.map((row) => transactionOf(row as TransactionRow));
    if (transactions.length === filter.count) return { transactions, scannedTo: null };
    let edge = this.db.selectFrom('transactions').select('seq').where('environment_key', '=', environmentKey);
    if (filter.beforePosition !== undefined) edge = edge.where('seq', '<', filter.beforePosition);
    const last = await edge.orderBy('seq', 'desc').limit(1).offset(TRANSACTION_SEARCH_WINDOW - 1).executeTakeFirst();
    return { transactions, scannedTo: last === undefined ? null : Number(last.seq) };
  }

  async find(environmentKey: string, token: string): Promise<Transaction | undefined> {
    const row = await FIND.first(this.db, '', [environmentKey, token]);
    return row === undefined ? undefined : transactionOf(row);
  }

  async listForPaymentMethod(environmentKey: string, paymentMethodToken: string, page: PageRequest, states: TransactionState[] = []): Promise<Transaction[]> {
    let query = this.db
      .selectFrom('transactions')
      .selectAll()
      .where('environment_key', '=', environmentKey)
      .where('payment_method_token', '=', paymentMethodToken);
    if (states.length > 0) query = query.where('state', 'in', states);
    return (await readPage(page, (part) => applyPage(query, 'seq', part).execute())).map((row) => transactionOf(row));
  }

  /** Every transaction that refers to `referenceToken` (captures, voids, credits). */
  async children(environmentKey: string, referenceToken: string): Promise<Transaction[]> {
    const rows = await this.db
      .selectFrom('transactions')
      .selectAll()
      .where('environment_key', '=', environmentKey)
      .where('reference_token', '=', referenceToken)
      .orderBy('seq')
      .execute();
    return rows.map((row) => transactionOf(row));
  }

  /** Updates and returns the transaction as stored, in one statement; undefined when there is none. */
  async update(environmentKey: string, token: string, patch: TransactionPatch): Promise<Transaction | undefined> {
    const row = await updateRow(this.db, environmentKey, token, transactionPatchRow(markUnknown(patch)));
    return row === undefined ? undefined : transactionOf(row);
  }

  /**
   * Writes the outcome of a transaction the caller holds as stored, because nothing else writes a
   * transaction while its gateway call runs, and returns it: `current` with `patch` applied, not
   * read back. On PostgreSQL the update is then sent without waiting for its answer and the
   * outcome's transaction costs one round trip, its `COMMIT`; a failure of the update still fails
   * that commit (postgres-pipeline.ts).
   */
  async finish(current: Transaction, patch: TransactionPatch): Promise<Transaction> {
    const applied = markUnknown(patch);
    await setRow(this.db, current.environmentKey, current.token, transactionPatchRow(applied));
    return patchedTransaction(current, applied);
  }

  /** Updates only while the transaction is still in `fromState`; the updated transaction, or undefined when it had moved on. */
  async updateIfState(environmentKey: string, token: string, fromState: TransactionState, patch: TransactionPatch): Promise<Transaction | undefined> {
    const row = await this.db
      .updateTable('transactions')
      .set(transactionPatchRow(markUnknown(patch)))
      .where('environment_key', '=', environmentKey)
      .where('token', '=', token)
      .where('state', '=', fromState)
      .returningAll()
      .executeTakeFirst();
    return row === undefined ? undefined : transactionOf(row);
  }

  /** Transactions still `processing` last touched before `before` (every environment), oldest first. */
  async processingSince(before: string, limit: number): Promise<Transaction[]> {
    const rows = await this.db.selectFrom('transactions').selectAll().where(IN_FLIGHT).where('state', '=', 'processing').where('updated_at', '<', before).orderBy('updated_at').limit(limit).execute();
    return rows.map((row) => transactionOf(row));
  }

  /**
   * Marks `pending` transactions of a type last touched before `cutoff` as failed (every
   * environment); the transactions it failed, for their events.
   */
  async failStale(transactionType: string, cutoff: string, patch: { messageKey: string; message: string; updatedAt: string }): Promise<Array<{ environmentKey: string; token: string }>> {
    const failed = await this.db
      .updateTable('transactions')
      .set({ message_key: patch.messageKey, message: patch.message, updated_at: patch.updatedAt, state: 'failed', succeeded: 0 })
      .where(IN_FLIGHT)
      .where('transaction_type', '=', transactionType)
      .where('state', '=', 'pending')
      .where('updated_at', '<', cutoff)
      .returning(['environment_key', 'token'])
      .execute();
    return failed.map((row) => ({ environmentKey: row.environment_key, token: row.token }));
  }

  /** Unknown results whose next lookup is due (every environment), oldest first (docs/events.md). */
  async dueForReconciliation(now: string, limit: number): Promise<Transaction[]> {
    const rows = await this.db
      .selectFrom('transactions')
      .selectAll()
      .where('reconcile_next_at', '<=', now)
      .where('state', '=', 'gateway_processing_result_unknown')
      .orderBy('reconcile_next_at')
      .limit(limit)
      .execute();
    return rows.map((row) => transactionOf(row));
  }

  /**
   * Claims the lookup of `transaction` by moving its next lookup to `next` (null: never ask
   * again), only if nobody moved it since it was read; false when another node did.
   */
  async claimReconciliation(transaction: Transaction, next: string | null): Promise<boolean> {
    const result = await this.db
      .updateTable('transactions')
      .set({ reconcile_next_at: next, reconcile_attempts: transaction.reconcileAttempts + (next === null ? 0 : 1) })
      .where('environment_key', '=', transaction.environmentKey)
      .where('token', '=', transaction.token)
      .where('state', '=', 'gateway_processing_result_unknown')
      .where('reconcile_next_at', '=', transaction.reconcileNextAt as string)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Records a workflow's routing decision on the answering transaction and on every attempt of its
   * retry chain (those whose first attempt is `firstAttemptToken`); false when the answer is not found.
   */
  async recordRouting(environmentKey: string, answer: { token: string; firstAttemptToken: string | null }, routedBy: RoutedBy): Promise<boolean> {
    let update = this.db.updateTable('transactions').set({ routed_by: JSON.stringify(routedBy) }).where('environment_key', '=', environmentKey);
    const { firstAttemptToken } = answer;
    update =
      firstAttemptToken === null
        ? update.where('token', '=', answer.token)
        : update.where((eb) => eb.or([eb('token', '=', answer.token), eb('first_attempt_token', '=', firstAttemptToken)]));
    const result = await update.executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** The environment's transactions, optionally of one gateway and in some states. */
  async list(environmentKey: string, page: PageRequest, filter: { states?: TransactionState[]; gatewayToken?: string } = {}): Promise<Transaction[]> {
    // Rows hold gateway details and the transcript: read a part of the page at a time (page.ts).
    const rows = await readPage(page, (part) => {
      const statement = listStatement(environmentKey, filter, part);
      return LIST.rows(this.db, statement.shape, statement.values);
    });
    return rows.map((row) => transactionOf(row));
  }
}
