import type { NewPaymentMethod, PaymentMethod, PaymentMethodPatch, StorageState } from '../../domain/payment-method.js';
import type { PaymentMethodSearch, PaymentMethodSearchPage } from '../../domain/payment-method-search.js';
import type { PageRequest } from '../repositories/page.js';
import type { PaymentMethodFilter } from '../repositories/payment-methods.repo.js';

/**
 * Single-query primitives over `payment_methods`; reads are scoped to one environment. They hand
 * out and take domain objects (mappers/payment-method.ts) and record no events: the service that
 * decides a change records its event in the same unit of work (docs/events.md).
 */
export interface PaymentMethodsRepository {
  insert(method: NewPaymentMethod): Promise<void>;
  /** Several new methods, a statement per 100 (within SQLite's bound on parameters): a bulk import's. */
  insertMany(methods: readonly NewPaymentMethod[]): Promise<void>;
  find(environmentKey: string, token: string): Promise<PaymentMethod | undefined>;
  /** Where a method sits in its environment's list, for a page that starts after it (`since_token`). */
  position(environmentKey: string, token: string): Promise<{
    seq: number;
  } | undefined>;
  findMany(environmentKey: string, tokens: string[]): Promise<PaymentMethod[]>;
  /**
   * The methods holding any of `tokens`, in whatever environment: tokens are unique across the
   * store, so an import must know a token is taken even when another environment holds it.
   */
  holdersOf(tokens: string[]): Promise<PaymentMethod[]>;
  list(environmentKey: string, filter: PaymentMethodFilter, page: PageRequest): Promise<PaymentMethod[]>;
  /**
   * The portal's card search (migration 024): one key walks its index (fingerprint, last four,
   * first six, email newest first; a name prefix alphabetically; a creation range newest by
   * creation), the others are checked on the rows reached; nothing sealed is read. Metadata alone
   * reads a window of the newest methods at a time (`scannedTo`).
   */
  search(environmentKey: string, search: PaymentMethodSearch): Promise<PaymentMethodSearchPage>;
  /** Updates only when the method is still in one of `fromStates`; false when it was not. Records nothing. */
  updateIfState(environmentKey: string, token: string, fromStates: readonly StorageState[], patch: PaymentMethodPatch): Promise<boolean>;
  /**
   * As `updateIfState`, returning the updated method in the same statement; undefined when it was
   * not in `fromStates`. Records nothing: the caller records the event its change means (the
   * purchase pipeline records UsePaymentMethod when it used a single-use method; dropping a CVV
   * alone records nothing).
   */
  updateIfStateReturning(environmentKey: string, token: string, fromStates: readonly StorageState[], patch: PaymentMethodPatch): Promise<PaymentMethod | undefined>;
  /**
   * Updates only when the method is still in one of `fromStates` and unchanged since it was read
   * (same `updatedAt`): for writes computed from that read, such as redaction's details. Records nothing.
   */
  updateIfUnchanged(method: PaymentMethod, fromStates: readonly StorageState[], patch: PaymentMethodPatch): Promise<boolean>;
  /** Drops one method's CVV if its window has ended (a CVV recached meanwhile is kept). */
  dropCvvIfExpired(environmentKey: string, token: string, now: string): Promise<boolean>;
  /** Cached methods whose caching window has ended (of one environment, or all), oldest first. */
  expiredCached(now: string, limit: number, environmentKey?: string): Promise<PaymentMethod[]>;
  /** Drops every CVV whose window has ended; returns how many. */
  dropExpiredCvvs(now: string): Promise<number>;
}
