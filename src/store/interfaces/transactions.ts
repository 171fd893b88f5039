import type { NewTransaction, RoutedBy, Transaction, TransactionPatch, TransactionSearch, TransactionSearchPage, TransactionState } from '../../domain/transaction.js';
import type { PageRequest } from '../repositories/page.js';

/** Single-query primitives over `transactions`; every read is scoped to one environment. Events are the services' (docs/events.md). */
export interface TransactionsRepository {
  /** Inserts `transaction` and returns it as stored (with its position), in one statement. */
  insert(transaction: NewTransaction): Promise<Transaction>;
  /** Several new transactions, a statement per 100 (a bulk import's); as `insert` for each, in order. */
  insertMany(transactions: readonly NewTransaction[]): Promise<Transaction[]>;
  /** As `insertMany` without reading the rows back (no RETURNING): a bulk import that needs only the write. */
  writeMany(transactions: readonly NewTransaction[]): Promise<void>;
  /** The attempts of the retry chains that began with `firstTokens`, each chain oldest first. */
  attemptsOf(environmentKey: string, firstTokens: readonly string[]): Promise<Transaction[]>;
  /**
   * The newest gateway transactions in `states`, at most `count` of each, newest first. Each state
   * walks `transactions_by_env_state` newest first (no time bound, which would steer the planner
   * onto the time index and a sort of a month); the walks are merged here, newest first.
   */
  newestInStates(environmentKey: string, states: readonly TransactionState[], types: readonly string[], count: number): Promise<Transaction[]>;
  /**
   * The portal's search, newest first, `count` rows older than `beforePosition`. Token, order id,
   * payment methods, gateway and state use their indexes; a date range walks
   * `transactions_by_env_created_seq` newest first; type, amount and currency alone read a window
   * of the newest rows at a time (`scannedTo`).
   */
  search(environmentKey: string, filter: TransactionSearch): Promise<TransactionSearchPage>;
  find(environmentKey: string, token: string): Promise<Transaction | undefined>;
  listForPaymentMethod(environmentKey: string, paymentMethodToken: string, page: PageRequest, states?: TransactionState[]): Promise<Transaction[]>;
  /** Every transaction that refers to `referenceToken` (captures, voids, credits). */
  children(environmentKey: string, referenceToken: string): Promise<Transaction[]>;
  /** Updates and returns the transaction as stored, in one statement; undefined when there is none. */
  update(environmentKey: string, token: string, patch: TransactionPatch): Promise<Transaction | undefined>;
  /**
   * Writes the outcome of a transaction the caller holds as stored, because nothing else writes a
   * transaction while its gateway call runs, and returns it: `current` with `patch` applied, not
   * read back. On PostgreSQL the update is then sent without waiting for its answer and the
   * outcome's transaction costs one round trip, its `COMMIT`; a failure of the update still fails
   * that commit (postgres-pipeline.ts).
   */
  finish(current: Transaction, patch: TransactionPatch): Promise<Transaction>;
  /** Updates only while the transaction is still in `fromState`; the updated transaction, or undefined when it had moved on. */
  updateIfState(environmentKey: string, token: string, fromState: TransactionState, patch: TransactionPatch): Promise<Transaction | undefined>;
  /** Transactions still `processing` last touched before `before` (every environment), oldest first. */
  processingSince(before: string, limit: number): Promise<Transaction[]>;
  /**
   * Marks `pending` transactions of a type last touched before `cutoff` as failed (every
   * environment); the transactions it failed, for their events.
   */
  failStale(transactionType: string, cutoff: string, patch: {
    messageKey: string;
    message: string;
    updatedAt: string;
  }): Promise<Array<{
    environmentKey: string;
    token: string;
  }>>;
  /** Unknown results whose next lookup is due (every environment), oldest first (docs/events.md). */
  dueForReconciliation(now: string, limit: number): Promise<Transaction[]>;
  /**
   * Claims the lookup of `transaction` by moving its next lookup to `next` (null: never ask
   * again), only if nobody moved it since it was read; false when another node did.
   */
  claimReconciliation(transaction: Transaction, next: string | null): Promise<boolean>;
  /**
   * Records a workflow's routing decision on the answering transaction and on every attempt of its
   * retry chain (those whose first attempt is `firstAttemptToken`); false when the answer is not found.
   */
  recordRouting(environmentKey: string, answer: {
    token: string;
    firstAttemptToken: string | null;
  }, routedBy: RoutedBy): Promise<boolean>;
  /** The environment's transactions, optionally of one gateway and in some states. */
  list(environmentKey: string, page: PageRequest, filter?: {
    states?: TransactionState[];
    gatewayToken?: string;
  }): Promise<Transaction[]>;
}
