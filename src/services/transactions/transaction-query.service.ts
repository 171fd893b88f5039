import { AppError, fieldError } from '../../domain/errors.js';
import { systemClock, type Clock } from '../../domain/clock.js';
import type { StoreAccess } from '../../store/store-access.js';
import type { Repositories } from '../../store/repositories.js';
import type { GatewayService } from '../gateway.service.js';
import { pageAfter, type ListQuery } from '../list-query.js';
import { ABANDONED_CALL_GRACE_MS, abandonedPatch, isAbandoned } from './abandoned-calls.js';
import { detailsOf } from './transaction-details.js';
import { transactionNotFound } from './transaction-rules.js';
import type { Environment } from '../../domain/environment.js';
import type { PaymentMethod } from '../../domain/payment-method.js';
import { isTransactionState, TransactionState, type Transaction, type TransactionSearch } from '../../domain/transaction.js';
import { updateTransactionIfState } from '../transaction-records.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'journal' | 'paymentMethods' | 'transactions';

/** Transactions with the payment methods their views nest, fetched in one query. */
export interface TransactionPage {
  transactions: Transaction[];
  paymentMethods: Map<string, PaymentMethod>;
  /** The attempts of the retry chains on the page, by first attempt token, oldest first. */
  chains?: Map<string, Transaction[]>;
}

/** How many of the newest methods of one last four a transaction search covers. */
export const LAST_FOUR_METHODS = 1000;

/** A page of the portal's search: a window's end (`scannedTo`), and whether a last four matched more methods than searched. */
export interface TransactionSearchResult extends TransactionPage {
  scannedTo: number | null;
  lastFourCapped: boolean;
}

/**
 * Reading transactions: lists, one, its transcript. A gateway call abandoned mid-way (the process
 * died between its two commits) is settled as `gateway_processing_result_unknown` when it is read
 * (see abandoned-calls.ts), as payment methods' caching windows are applied when they are read.
 */
export class TransactionQueryService {
  private readonly repos: Pick<Repositories, Uses>;

  constructor(
    private readonly store: StoreAccess<Uses>,
    private readonly gateways: GatewayService,
    private readonly clock: Clock = systemClock,
  ) {
    this.repos = store.repos;
  }

  async list(environment: Environment, query: ListQuery, filter: { state?: string; gatewayToken?: string }): Promise<TransactionPage> {
    const states = filter.state === undefined || filter.state === '' ? [] : filter.state.split(',').map((state) => state.trim());
    if (!states.every(isTransactionState)) throw new AppError(fieldError.inclusion('state'));
    if (filter.gatewayToken !== undefined) await this.gateways.show(environment, filter.gatewayToken);
    const page = await pageAfter(query, (since) => this.positionOf(environment, since));
    const listed = await this.repos.transactions.list(
      environment.key,
      page,
      { states, ...(filter.gatewayToken === undefined ? {} : { gatewayToken: filter.gatewayToken }) },
    );
    const transactions = await this.settledAll(listed);
    return { transactions, paymentMethods: await this.paymentMethodsOf(environment, transactions) };
  }

  /** The paging cursor of the transaction `token` (list-query.ts), when there is one. */
  async positionOf(environment: Environment, token: string): Promise<{ seq: number } | undefined> {
    const found = await this.repos.transactions.find(environment.key, token);
    return found === undefined ? undefined : { seq: found.position };
  }

  /**
   * The portal's search (newest first, keyset paging); see TransactionsRepo.search. A card's last
   * four is resolved to its payment methods first (their index, nothing opened): the newest
   * LAST_FOUR_METHODS of them (`lastFourCapped` when there are more).
   */
  async search(environment: Environment, filter: TransactionSearch, card: { lastFour?: string } = {}): Promise<TransactionSearchResult> {
    let lastFourCapped = false;
    let narrowed = filter;
    if (card.lastFour !== undefined) {
      const methods = await this.repos.paymentMethods.search(environment.key, { lastFour: card.lastFour, count: LAST_FOUR_METHODS + 1 });
      lastFourCapped = methods.hits.length > LAST_FOUR_METHODS;
      narrowed = { ...filter, paymentMethodTokens: methods.hits.slice(0, LAST_FOUR_METHODS).map((hit) => hit.paymentMethod.token) };
    }
    const found = await this.repos.transactions.search(environment.key, narrowed);
    const transactions = await this.settledAll(found.transactions);
    return { transactions, paymentMethods: await this.paymentMethodsOf(environment, transactions), scannedTo: found.scannedTo, lastFourCapped };
  }

  async show(environment: Environment, token: string): Promise<TransactionPage> {
    const found = await this.repos.transactions.find(environment.key, token);
    if (found === undefined) throw transactionNotFound(token);
    const now = this.clock.now();
    const transaction = isAbandoned(found, now) ? await this.settleIfAbandoned(found, now) : found;
    return { transactions: [transaction], paymentMethods: await this.paymentMethodsOf(environment, [transaction]) };
  }

  /** The scrubbed exchange with the gateway, as plain text. */
  async transcript(environment: Environment, token: string): Promise<string> {
    const page = await this.show(environment, token);
    return (page.transactions[0] as Transaction).transcript ?? '';
  }

  /**
   * One transaction in hand, with its payment method: `known` (the row as the transaction's own
   * writes left it) when that is the only one its view nests, otherwise read.
   */
  async withPaymentMethod(environment: Environment, transaction: Transaction, known: PaymentMethod | undefined): Promise<TransactionPage> {
    const basis = detailsOf(transaction)?.basis_payment_method_token;
    if (known === undefined || known.token !== transaction.paymentMethodToken || (basis !== undefined && basis !== null)) return this.withPaymentMethods(environment, [transaction]);
    return { transactions: [transaction], paymentMethods: new Map([[known.token, known]]) };
  }

  /** Transactions already in hand, with the payment methods their views nest. */
  async withPaymentMethods(environment: Environment, transactions: Transaction[]): Promise<TransactionPage> {
    return { transactions, paymentMethods: await this.paymentMethodsOf(environment, transactions) };
  }

  /**
   * Settles every abandoned gateway call (the sweep runs this on every node), so a transaction
   * cut off mid-call leaves `processing` even if nobody reads it. Returns how many it settled.
   */
  async settleAbandoned(): Promise<number> {
    const now = this.clock.now();
    // No call outlives its timeout plus the grace; rows younger than the shortest grace cannot be abandoned.
    const candidates = await this.repos.transactions.processingSince(new Date(now.getTime() - ABANDONED_CALL_GRACE_MS).toISOString(), 500);
    let settled = 0;
    for (const row of candidates) {
      if (isAbandoned(row, now) && (await this.settle(row, now)) !== undefined) settled += 1;
    }
    return settled;
  }

  /** Records an abandoned call's outcome as unknown, while the transaction is still `processing`. */
  private settle(row: Transaction, now: Date): Promise<Transaction | undefined> {
    return this.store.unitOfWork((repos) => updateTransactionIfState(repos, row.environmentKey, row.token, TransactionState.processing, abandonedPatch(row, now)));
  }

  /**
   * The rows with every abandoned call settled. Nearly every page has none: it is then returned as
   * it is, without a promise per row (a read's cost is mostly such overhead, docs/benchmarks.md).
   */
  private settledAll(rows: Transaction[]): Promise<Transaction[]> | Transaction[] {
    const now = this.clock.now();
    if (!rows.some((row) => isAbandoned(row, now))) return rows;
    return Promise.all(rows.map((row) => this.settleIfAbandoned(row, now)));
  }

  /** The row, or, when its call was abandoned, the row as settled (someone else may have settled it first). */
  private async settleIfAbandoned(row: Transaction, now: Date): Promise<Transaction> {
    if (!isAbandoned(row, now)) return row;
    const settled = await this.settle(row, now);
    return settled ?? (await this.repos.transactions.find(row.environmentKey, row.token)) ?? row;
  }

  /** The page with the attempts of its retry chains, in one query; none when no row is in a chain. */
  async withChains(environment: Environment, page: TransactionPage): Promise<TransactionPage> {
    const firsts = [...new Set(page.transactions.map((row) => row.firstAttemptToken).filter((token): token is string => token !== null))];
    const chains = new Map<string, Transaction[]>();
    if (firsts.length === 0) return { ...page, chains };
    for (const attempt of await this.repos.transactions.attemptsOf(environment.key, firsts)) {
      const first = attempt.firstAttemptToken as string;
      chains.set(first, [...(chains.get(first) ?? []), attempt]);
    }
    return { ...page, chains };
  }

  private async paymentMethodsOf(environment: Environment, transactions: Transaction[]): Promise<Map<string, PaymentMethod>> {
    const tokens = new Set<string>();
    for (const transaction of transactions) {
      if (transaction.paymentMethodToken !== null) tokens.add(transaction.paymentMethodToken);
      const basis = detailsOf(transaction)?.basis_payment_method_token;
      if (basis !== undefined && basis !== null) tokens.add(basis);
    }
    const rows = await this.repos.paymentMethods.findMany(environment.key, [...tokens]);
    return new Map(rows.map((row) => [row.token, row]));
  }
}
