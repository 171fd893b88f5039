import type { PaymentMethodsRepository } from '../interfaces/payment-methods.js';
import { sql, type Kysely } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Database } from '../schema.js';
import { applyPage, readInGroups, readPage, type PageRequest } from './page.js';
import { SEALED_COLUMNS, type SealedColumn } from './sealed-blobs.repo.js';
import { columnsOf, Precompiled, recordOf, recordShape } from './precompiled.js';
import { insertRows } from './bulk-insert.js';
import { newPaymentMethodRow, paymentMethodOf, paymentMethodRowPatch, type PaymentMethodRow, type PaymentMethodRowPatch } from '../mappers/payment-method.js';
import { PaymentMethodSearchQuery } from './payment-method-search.js';
import type { PaymentMethodSearch, PaymentMethodSearchPage } from '../../domain/payment-method-search.js';
import type { NewPaymentMethod, PaymentMethod, PaymentMethodPatch, StorageState } from '../../domain/payment-method.js';

/** What a list may filter on besides its page. */
export interface PaymentMethodFilter {
  states: string[];
  /** Metadata key → value (compared as text). */
  metadata: Record<string, string>;
  /** ISO-8601 bounds on `created_at` (from inclusive, to exclusive): an export's range. */
  createdFrom?: string | null;
  createdTo?: string | null;
}

/** Columns holding sealed blobs (re-encrypted by data-key rotation). */
export const SEALED_PAYMENT_METHOD_COLUMNS = SEALED_COLUMNS.payment_methods;
export type SealedPaymentMethodColumn = SealedColumn<'payment_methods'>;

/** A payment method by environment and token (every transaction on a stored method). */
const FIND = new Precompiled<PaymentMethodRow>((db, [environmentKey, token]) =>
  db
    .selectFrom('payment_methods')
    .selectAll()
    .where('environment_key', '=', environmentKey as string)
    .where('token', '=', token as string),
);

/** Payment methods by token; its shape is how many (the methods a page of transactions nests). */
const FIND_MANY = new Precompiled<PaymentMethodRow>((db, tokens) =>
  db
    .selectFrom('payment_methods')
    .selectAll()
    .where('token', 'in', tokens as string[]),
);

/**
 * The conditional update of one payment method; its shape is the columns it sets and how many
 * states it may be in. Values: the columns', then environment, token and the states.
 */
const UPDATE_IF_STATE = new Precompiled<PaymentMethodRow>((db, values, shape) => {
  const [columnList = '', stateCount] = shape.split('|');
  const columns = columnsOf(columnList);
  return db
    .updateTable('payment_methods')
    .set(recordOf(columns, values) as PaymentMethodRowPatch)
    .where('environment_key', '=', values[columns.length] as string)
    .where('token', '=', values[columns.length + 1] as string)
    .where('storage_state', 'in', values.slice(columns.length + 2, columns.length + 2 + Number(stateCount)) as string[])
    .returningAll();
});

/**
 * Single-query primitives over `payment_methods`; reads are scoped to one environment. They hand
 * out and take domain objects (mappers/payment-method.ts) and record no events: the service that
 * decides a change records its event in the same unit of work (docs/events.md).
 */
export class PaymentMethodsRepo implements PaymentMethodsRepository {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async insert(method: NewPaymentMethod): Promise<void> {
    await this.db.insertInto('payment_methods').values(newPaymentMethodRow(method)).execute();
  }

  /** Several new methods, a statement per 100 (within SQLite's bound on parameters): a bulk import's. */
  async insertMany(methods: readonly NewPaymentMethod[]): Promise<void> {
    for (let start = 0; start < methods.length; start += 100) {
      await insertRows(this.db, 'payment_methods', methods.slice(start, start + 100).map(newPaymentMethodRow));
    }
  }

  async find(environmentKey: string, token: string): Promise<PaymentMethod | undefined> {
    const row = await FIND.first(this.db, '', [environmentKey, token]);
    return row === undefined ? undefined : paymentMethodOf(row);
  }

  /** Where a method sits in its environment's list, for a page that starts after it (`since_token`). */
  position(environmentKey: string, token: string): Promise<{ seq: number } | undefined> {
    return this.db.selectFrom('payment_methods').select('seq').where('environment_key', '=', environmentKey).where('token', '=', token).executeTakeFirst();
  }

  async findMany(environmentKey: string, tokens: string[]): Promise<PaymentMethod[]> {
    if (tokens.length === 0) return [];
    // By token alone (unique), then scoped to the environment here: with the environment in the
    // WHERE clause, SQLite's planner walks the environment's whole index from three tokens on,
    // which made every list page cost O(payment methods in the environment). A page's methods
    // may be large (free-form data): read a group at a time (page.ts).
    const rows = await readInGroups(tokens, (group) => FIND_MANY.rows(this.db, String(group.length), group));
    return rows.filter((row) => row.environment_key === environmentKey).map(paymentMethodOf);
  }

  /**
   * The methods holding any of `tokens`, in whatever environment: tokens are unique across the
   * store, so an import must know a token is taken even when another environment holds it.
   */
  async holdersOf(tokens: string[]): Promise<PaymentMethod[]> {
    if (tokens.length === 0) return [];
    return (await readInGroups(tokens, (group) => FIND_MANY.rows(this.db, String(group.length), group))).map(paymentMethodOf);
  }

  async list(environmentKey: string, filter: PaymentMethodFilter, page: PageRequest): Promise<PaymentMethod[]> {
    let query = this.db.selectFrom('payment_methods').selectAll().where('environment_key', '=', environmentKey);
    if (filter.states.length > 0) query = query.where('storage_state', 'in', filter.states);
    if (filter.createdFrom !== undefined && filter.createdFrom !== null) query = query.where('created_at', '>=', filter.createdFrom);
    if (filter.createdTo !== undefined && filter.createdTo !== null) query = query.where('created_at', '<', filter.createdTo);
    for (const [key, value] of Object.entries(filter.metadata)) {
      // Key and value are bound parameters. Both dialects compare the JSON value as its text
      // (booleans as true/false), so a filter means the same on SQLite and PostgreSQL.
      const matches =
        this.dialect === 'postgres'
          ? sql<boolean>`(metadata::jsonb ->> ${key}) = ${value}`
          : sql<boolean>`exists (select 1 from json_each(payment_methods.metadata) where json_each.key = ${key} and (case json_each.type when 'true' then 'true' when 'false' then 'false' else cast(json_each.value as text) end) = ${value})`;
      query = query.where(matches);
    }
    // Rows hold free-form data up to the input caps: read a part of the page at a time (page.ts).
    return (await readPage(page, (part) => applyPage(query, 'seq', part).execute())).map(paymentMethodOf);
  }

  /** The portal's card search (payment-method-search.ts). */
  search(environmentKey: string, search: PaymentMethodSearch): Promise<PaymentMethodSearchPage> {
    return new PaymentMethodSearchQuery(this.db, this.dialect).run(environmentKey, search);
  }

  /** Updates only when the method is still in one of `fromStates`; false when it was not. Records nothing. */
  async updateIfState(environmentKey: string, token: string, fromStates: readonly StorageState[], patch: PaymentMethodPatch): Promise<boolean> {
    return (await this.updateIfStateReturning(environmentKey, token, fromStates, patch)) !== undefined;
  }

  /**
   * As `updateIfState`, returning the updated method in the same statement; undefined when it was
   * not in `fromStates`. Records nothing: the caller records the event its change means (the
   * purchase pipeline records UsePaymentMethod when it used a single-use method; dropping a CVV
   * alone records nothing).
   */
  async updateIfStateReturning(environmentKey: string, token: string, fromStates: readonly StorageState[], patch: PaymentMethodPatch): Promise<PaymentMethod | undefined> {
    const set = paymentMethodRowPatch(patch);
    const record = recordShape(set);
    const row =
      record === null || fromStates.length === 0
        ? await this.db
            .updateTable('payment_methods')
            .set(set)
            .where('environment_key', '=', environmentKey)
            .where('token', '=', token)
            .where('storage_state', 'in', [...fromStates])
            .returningAll()
            .executeTakeFirst()
        : await UPDATE_IF_STATE.first(this.db, `${record.shape}|${fromStates.length}`, [...record.values, environmentKey, token, ...fromStates]);
    return row === undefined ? undefined : paymentMethodOf(row);
  }

  /**
   * Updates only when the method is still in one of `fromStates` and unchanged since it was read
   * (same `updatedAt`): for writes computed from that read, such as redaction's details. Records nothing.
   */
  async updateIfUnchanged(method: PaymentMethod, fromStates: readonly StorageState[], patch: PaymentMethodPatch): Promise<boolean> {
    const result = await this.db
      .updateTable('payment_methods')
      .set(paymentMethodRowPatch(patch))
      .where('environment_key', '=', method.environmentKey)
      .where('token', '=', method.token)
      .where('storage_state', 'in', [...fromStates])
      .where('updated_at', '=', method.updatedAt)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Drops one method's CVV if its window has ended (a CVV recached meanwhile is kept). */
  async dropCvvIfExpired(environmentKey: string, token: string, now: string): Promise<boolean> {
    const result = await this.db
      .updateTable('payment_methods')
      .set({ sealed_cvv: null, cvv_length: null, cvv_expires_at: null })
      .where('environment_key', '=', environmentKey)
      .where('token', '=', token)
      .where('cvv_expires_at', '<=', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** Cached methods whose caching window has ended (of one environment, or all), oldest first. */
  async expiredCached(now: string, limit: number, environmentKey?: string): Promise<PaymentMethod[]> {
    let query = this.db.selectFrom('payment_methods').selectAll().where('storage_state', '=', 'cached').where('cache_expires_at', '<=', now);
    if (environmentKey !== undefined) query = query.where('environment_key', '=', environmentKey);
    return (await query.orderBy('cache_expires_at').limit(limit).execute()).map(paymentMethodOf);
  }

  /** Drops every CVV whose window has ended; returns how many. */
  async dropExpiredCvvs(now: string): Promise<number> {
    const result = await this.db
      .updateTable('payment_methods')
      .set({ sealed_cvv: null, cvv_length: null, cvv_expires_at: null })
      .where('cvv_expires_at', '<=', now)
      .executeTakeFirst();
    return Number(result.numUpdatedRows);
  }
}
