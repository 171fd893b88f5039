import type { EventType } from './event-types.js';
import type { TransactionDetails } from './transaction-details.js';

/**
 * A transaction's state (API.md §3, docs/events.md). `processing`: committed before its gateway or
 * receiver call, its outcome not written yet; `pending`: the gateway (3-D Secure, offsite) or an
 * export waits for something; `failed`: refused by Coffer itself, nothing sent;
 * `gateway_processing_failed`: the gateway or receiver declined or faulted;
 * `gateway_processing_result_unknown`: a call whose effect is unknown (timeout, interrupted).
 * Listed outcomes first, as the API's documentation and the portal's search list them.
 */
export const TRANSACTION_STATES = ['succeeded', 'failed', 'gateway_processing_failed', 'gateway_processing_result_unknown', 'pending', 'processing'] as const;
export type TransactionState = (typeof TRANSACTION_STATES)[number];

/** The states by name, for code that sets or tests one (`TransactionState.succeeded`): no state is spelt outside the domain. */
export const TransactionState = {
  processing: 'processing',
  pending: 'pending',
  succeeded: 'succeeded',
  failed: 'failed',
  gatewayProcessingFailed: 'gateway_processing_failed',
  resultUnknown: 'gateway_processing_result_unknown',
} as const satisfies Record<string, TransactionState>;

/** Whether `value` names a transaction state (a filter from a query string). */
export function isTransactionState(value: string): value is TransactionState {
  return (TRANSACTION_STATES as readonly string[]).includes(value);
}

/** The states a transaction is created in: a call about to be made, an export under way, a vault change, a refusal. */
export const INITIAL_STATES: readonly TransactionState[] = ['processing', 'pending', 'succeeded', 'failed'];

/**
 * The one table of allowed moves (from → to). A transaction leaves `processing` with its outcome
 * (abandoned calls become unknown, abandoned-calls.ts); `pending` goes back to `processing` while a
 * 3-D Secure completion is called, or gets an export's outcome, or fails when stale; an unknown
 * result is settled by reconciliation. `succeeded`, `failed` and `gateway_processing_failed` are final.
 */
export const TRANSACTION_TRANSITIONS: Readonly<Record<TransactionState, readonly TransactionState[]>> = {
  processing: ['pending', 'succeeded', 'failed', 'gateway_processing_failed', 'gateway_processing_result_unknown'],
  pending: ['processing', 'succeeded', 'failed', 'gateway_processing_result_unknown'],
  gateway_processing_result_unknown: ['succeeded', 'gateway_processing_failed'],
  succeeded: [],
  failed: [],
  gateway_processing_failed: [],
};

/** Whether a transaction in `from` may move to `to`. */
export function canMove(from: TransactionState, to: TransactionState): boolean {
  return TRANSACTION_TRANSITIONS[from].includes(to);
}

/** Throws when the table does not allow `from` → `to` (a bug: the service decided a move the model forbids). */
export function assertTransition(from: TransactionState, to: TransactionState): void {
  if (!canMove(from, to)) throw new Error(`a transaction cannot move from ${from} to ${to}`);
}

/** Throws when a transaction cannot be created in `state`. */
export function assertInitialState(state: TransactionState): void {
  if (!INITIAL_STATES.includes(state)) throw new Error(`a transaction cannot be created ${state}`);
}

/** States in which a transaction's money may still be taken or is taken (a child holds against its reference). */
export const ACTIVE_STATES: readonly TransactionState[] = ['succeeded', 'processing', 'pending', 'gateway_processing_result_unknown'];

/** Finished and unsuccessful. */
export const FAILED_STATES: readonly TransactionState[] = ['failed', 'gateway_processing_failed', 'gateway_processing_result_unknown'];

/** Outcomes the circuit breaker counts: faults and unknown results, never declines. */
export const FAULT_STATES: readonly TransactionState[] = ['gateway_processing_failed', 'gateway_processing_result_unknown'];

/** The event a transaction entering `state` records (docs/events.md); null for states that are not an outcome. */
export const STATE_EVENTS: Readonly<Record<TransactionState, EventType | null>> = {
  processing: null,
  pending: 'TransactionPending',
  succeeded: 'TransactionSucceeded',
  failed: 'TransactionFailed',
  gateway_processing_failed: 'TransactionFailed',
  gateway_processing_result_unknown: 'TransactionResultUnknown',
};

/** Transaction types that talk to a gateway (and so have the full view and gateway details). */
export const GATEWAY_TRANSACTION_TYPES = ['Purchase', 'Authorization', 'Capture', 'Void', 'Credit', 'GeneralCredit', 'Verification', 'Store', 'OffsitePurchase', 'OffsiteAuthorization'] as const;
/** The vault's own transactions (lean views). */
export const VAULT_TRANSACTION_TYPES = ['AddPaymentMethod', 'ImportPaymentMethod', 'RetainPaymentMethod', 'RedactPaymentMethod', 'RecacheSensitiveData', 'RedactGateway'] as const;
/** Transactions with a receiver. */
export const RECEIVER_TRANSACTION_TYPES = ['DeliverPaymentMethod', 'ExportPaymentMethods', 'RedactReceiver'] as const;
/** Every type a transaction is recorded with, in the portal's order. */
export const TRANSACTION_TYPES = [...GATEWAY_TRANSACTION_TYPES, ...VAULT_TRANSACTION_TYPES, ...RECEIVER_TRANSACTION_TYPES] as const;

export type GatewayTransactionType = (typeof GATEWAY_TRANSACTION_TYPES)[number];
export type TransactionType = (typeof TRANSACTION_TYPES)[number];

const GATEWAY_TYPE_SET: ReadonlySet<string> = new Set(GATEWAY_TRANSACTION_TYPES);

export function isGatewayTransactionType(type: string): type is GatewayTransactionType {
  return GATEWAY_TYPE_SET.has(type);
}

/** The workflow decision that chose a routed transaction's gateway (docs/routing.md); shown as `routed_by`. */
export interface RoutedBy {
  workflow_key: string;
  rule: string | null;
  rule_index: number | null;
  method: 'single' | 'weighted' | 'success_rate' | 'exploration';
  gateway_token: string;
  gateway_tokens: string[];
  reason: string;
}

/**
 * A transaction (API.md §3). Timestamps are ISO-8601 UTC strings, the wire format, so they also
 * sort as text. `details` holds the type's own fields, parsed (transaction-details.ts).
 */
export interface Transaction {
  token: string;
  environmentKey: string;
  /** A TransactionType; stored rows are read as they are. */
  transactionType: string;
  state: TransactionState;
  succeeded: boolean;
  messageKey: string | null;
  message: string | null;
  gatewayToken: string | null;
  paymentMethodToken: string | null;
  referenceToken: string | null;
  /** Minor units. */
  amount: number | null;
  currencyCode: string | null;
  details: TransactionDetails | null;
  /** The scrubbed exchange with the gateway or receiver (GET transactions/<t>/transcript). */
  transcript: string | null;
  receiverToken: string | null;
  /** `details.order_id`, kept searchable. */
  orderId: string | null;
  createdAt: string;
  updatedAt: string;
  /** Where the outcome of an asynchronous finish is POSTed (docs/callbacks.md), and in which format. */
  callbackUrl: string | null;
  callbackFormat: string | null;
  /** Next time the sweep asks the gateway about an unknown result; null: not to ask. */
  reconcileNextAt: string | null;
  reconcileAttempts: number;
  reconciledAt: string | null;
  /** The first attempt of the retry chain this transaction belongs to (itself for the first); null outside a chain. */
  firstAttemptToken: string | null;
  /** The workflow decision that chose the gateway; null when not routed. */
  routedBy: RoutedBy | null;
  /** Where the transaction stands in its environment's order of creation: a paging cursor, nothing more. */
  position: number;
}

/**
 * A transaction about to be recorded. `callbackUrl` / `callbackFormat` left out are stored as
 * null, but the recorder then does not know whether there is one (docs/events.md: a callback is
 * looked for).
 */
export type NewTransaction = Pick<
  Transaction,
  | 'token'
  | 'environmentKey'
  | 'transactionType'
  | 'state'
  | 'succeeded'
  | 'messageKey'
  | 'message'
  | 'gatewayToken'
  | 'paymentMethodToken'
  | 'referenceToken'
  | 'amount'
  | 'currencyCode'
  | 'details'
  | 'createdAt'
  | 'updatedAt'
> &
  Partial<Pick<Transaction, 'receiverToken' | 'callbackUrl' | 'callbackFormat' | 'firstAttemptToken'>>;

/** What a write may change on a recorded transaction; a field left out is kept. */
export type TransactionPatch = Partial<
  Pick<Transaction, 'state' | 'succeeded' | 'messageKey' | 'message' | 'paymentMethodToken' | 'details' | 'transcript' | 'updatedAt' | 'reconcileNextAt' | 'reconciledAt'>
>;

/** The portal's transaction filters; every one optional. */
export interface TransactionSearch {
  token?: string;
  orderId?: string;
  gatewayToken?: string;
  state?: TransactionState;
  type?: string;
  /** ISO bounds on `createdAt`: from inclusive, to exclusive. */
  from?: string;
  to?: string;
  /** Bounds on `amount` (minor units), both inclusive. */
  amountFrom?: number;
  amountTo?: number;
  currency?: string;
  /** Transactions of these payment methods only (a card's last four, resolved to its methods). */
  paymentMethodTokens?: string[];
  /** The `position` of the last transaction of the page before (newest first). */
  beforePosition?: number;
  count: number;
}

/**
 * A page of the portal's search. Type, amount and currency have no index of their own: searched
 * by those alone, the newest TRANSACTION_SEARCH_WINDOW transactions are read at a time, and
 * `scannedTo` says where the next window starts when the page is not full.
 */
export interface TransactionSearchPage {
  transactions: Transaction[];
  scannedTo: number | null;
}

export const TRANSACTION_SEARCH_WINDOW = 10_000;
