import { orderedToken, TOKEN_LENGTH } from '../domain/tokens.js';
import type { ChangeEvent } from '../domain/event.js';
import { assertInitialState, assertTransition, STATE_EVENTS, TransactionState, type NewTransaction, type Transaction, type TransactionPatch } from '../domain/transaction.js';
import type { TransactionDetails } from '../domain/transaction-details.js';
import type { Repositories } from '../store/repositories.js';

/** The message a succeeded transaction carries. */
export const SUCCEEDED_MESSAGE = { key: 'messages.transaction_succeeded', text: 'Succeeded!' } as const;

/** The message a pending transaction carries. */
export const PENDING_MESSAGE = { key: 'messages.transaction_pending', text: 'Pending' } as const;

export interface TransactionRecordInput {
  environmentKey: string;
  transactionType: string;
  /**
   * Succeeded; refused by Coffer itself (`failed`) with its message; or `processing`, a gateway
   * transaction committed before its call (its outcome is written after).
   */
  outcome: typeof TransactionState.succeeded | typeof TransactionState.processing | { state: typeof TransactionState.failed; messageKey: string; message: string };
  /** Chosen by the caller when it must know the token before the record exists (gateway idempotency). */
  token?: string;
  gatewayToken?: string | null;
  paymentMethodToken?: string | null;
  referenceToken?: string | null;
  amount?: number | null;
  currencyCode?: string | null;
  details?: TransactionDetails;
  now: string;
}

const PROCESSING = { state: TransactionState.processing, messageKey: null, message: null };
const SUCCEEDED = { state: TransactionState.succeeded, messageKey: SUCCEEDED_MESSAGE.key, message: SUCCEEDED_MESSAGE.text };

/** A new transaction, as it is about to be recorded. */
export function newTransaction(input: TransactionRecordInput): NewTransaction {
  const outcome = input.outcome === TransactionState.succeeded ? SUCCEEDED : input.outcome === TransactionState.processing ? PROCESSING : input.outcome;
  return {
    token: input.token ?? orderedToken(TOKEN_LENGTH.item),
    environmentKey: input.environmentKey,
    transactionType: input.transactionType,
    state: outcome.state,
    succeeded: input.outcome === TransactionState.succeeded,
    messageKey: outcome.messageKey,
    message: outcome.message,
    gatewayToken: input.gatewayToken ?? null,
    paymentMethodToken: input.paymentMethodToken ?? null,
    referenceToken: input.referenceToken ?? null,
    amount: input.amount ?? null,
    currencyCode: input.currencyCode ?? null,
    details: input.details ?? null,
    createdAt: input.now,
    updatedAt: input.now,
  };
}

/** What a unit of work needs to record transactions and their events. */
export type TransactionRecorder = Pick<Repositories, 'transactions' | 'journal'>;

function transactionEvent(transaction: { environmentKey: string; token: string }, eventType: ChangeEvent['eventType'], at: string | undefined, ownCallback?: boolean): ChangeEvent {
  const change: ChangeEvent = { environmentKey: transaction.environmentKey, eventType, objectType: 'transaction', objectKey: transaction.token, at };
  return ownCallback === undefined ? change : { ...change, ownCallback };
}

/**
 * The events of a new transaction (docs/events.md): TransactionCreated; TransactionFailedOver on an
 * attempt a retry chain moved on to; then its outcome when it is born with one. That outcome never
 * calls the transaction's own callback: its callback_url is called only when it settles after
 * having been pending (docs/events.md, "A transaction's own callback_url"), and a transaction born
 * with its outcome never was. Said outright, so the journal does not look for one (a statement per
 * event: two of a tokenization's seventeen).
 */
export function creationEvents(created: NewTransaction, failedOver = false): ChangeEvent[] {
  const outcome = STATE_EVENTS[created.state];
  return [
    transactionEvent(created, 'TransactionCreated', created.createdAt),
    ...(failedOver ? [transactionEvent(created, 'TransactionFailedOver', created.createdAt)] : []),
    ...(outcome === null ? [] : [transactionEvent(created, outcome, created.createdAt, false)]),
  ];
}

/**
 * The events of a write of `patch` on `written` (the transaction as written; undefined when no
 * transaction matched, which records nothing): its outcome when it sets a state;
 * TransactionReconciled alone when it settles an unknown result (the final state is in the
 * transaction the event points at).
 */
export function patchEvents(written: Transaction | undefined, patch: TransactionPatch): ChangeEvent[] {
  if (written === undefined) return [];
  const ownCallback = written.callbackUrl !== null;
  if (typeof patch.reconciledAt === 'string') return [transactionEvent(written, 'TransactionReconciled', patch.reconciledAt, ownCallback)];
  const outcome = patch.state === undefined ? null : STATE_EVENTS[patch.state];
  return outcome === null ? [] : [transactionEvent(written, outcome, patch.updatedAt, ownCallback)];
}

async function recordAll(repos: Pick<Repositories, 'journal'>, changes: ChangeEvent[]): Promise<void> {
  for (const change of changes) await repos.journal.record(change);
}

/** Records `created` and its events in the unit of work `repos`; the transaction as stored. */
export async function recordTransaction(repos: TransactionRecorder, created: NewTransaction, options: { failedOver?: boolean } = {}): Promise<Transaction> {
  assertInitialState(created.state);
  const transaction = await repos.transactions.insert(created);
  await recordAll(repos, creationEvents(created, options.failedOver));
  return transaction;
}

/** Writes `patch` on a transaction in `from` (read by the caller) with its events; the transaction as stored. */
export async function updateTransaction(repos: TransactionRecorder, from: Transaction, patch: TransactionPatch): Promise<Transaction | undefined> {
  if (patch.state !== undefined) assertTransition(from.state, patch.state);
  const written = await repos.transactions.update(from.environmentKey, from.token, patch);
  await recordAll(repos, patchEvents(written, patch));
  return written;
}

/**
 * Writes `patch` only while the transaction is still in `from`, with its events (none when it had
 * moved on); the transaction as written, or undefined.
 */
export async function updateTransactionIfState(repos: TransactionRecorder, environmentKey: string, token: string, from: TransactionState, patch: TransactionPatch): Promise<Transaction | undefined> {
  if (patch.state !== undefined) assertTransition(from, patch.state);
  const written = await repos.transactions.updateIfState(environmentKey, token, from, patch);
  await recordAll(repos, patchEvents(written, patch));
  return written;
}

/** Writes the outcome of a transaction held as stored (`TransactionsRepo.finish`), with its events. */
export async function finishTransactionRecord(repos: TransactionRecorder, current: Transaction, patch: TransactionPatch): Promise<Transaction> {
  if (patch.state !== undefined) assertTransition(current.state, patch.state);
  const written = await repos.transactions.finish(current, patch);
  await recordAll(repos, patchEvents(written, patch));
  return written;
}

/**
 * Fails the transactions of `transactionType` still `pending` last touched before `cutoff` (every
 * environment), each with its TransactionFailed event; how many.
 */
export async function failStaleTransactions(repos: TransactionRecorder, transactionType: string, cutoff: string, outcome: { messageKey: string; message: string; updatedAt: string }): Promise<number> {
  assertTransition(TransactionState.pending, TransactionState.failed);
  const failed = await repos.transactions.failStale(transactionType, cutoff, outcome);
  const event = STATE_EVENTS[TransactionState.failed] as ChangeEvent['eventType'];
  await recordAll(
    repos,
    failed.map((transaction) => transactionEvent(transaction, event, outcome.updatedAt)),
  );
  return failed.length;
}
