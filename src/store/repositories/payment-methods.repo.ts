import { sql, type Insertable, type Kysely, type Selectable, type Updateable } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Database, PaymentMethodsTable } from '../schema.js';
import { applyPage, readInGroups, readPage, type PageRequest } from './page.js';
import { SEALED_COLUMNS, type SealedColumn } from './sealed-blobs.repo.js';
import { changeIf, journaled, type Change } from '../change-journal.js';
import { paymentMethodPatchEvent } from '../../domain/event-types.js';
import { columnsOf, Precompiled, recordOf, recordShape } from './precompiled.js';

/** The event a patch of one payment method records, if any (docs/events.md, "Event types"). */
function patchChanges(changed: boolean, environmentKey: string, token: string, patch: PaymentMethodPatch): Change[] {
  const eventType = paymentMethodPatchEvent(patch as Record<string, unknown>);
  if (eventType === null) return [];
  return changeIf(changed, { environmentKey, eventType, objectType: 'payment_method', objectKey: token, at: patch.updated_at as string | undefined });
}

export type PaymentMethodRow = Selectable<PaymentMethodsTable>;
export type PaymentMethodPatch = Omit<Updateable<PaymentMethodsTable>, 'seq' | 'token' | 'environment_key' | 'payment_method_type' | 'created_at'>;

/** What a list may filter on besides its page. */
export interface PaymentMethodFilter {
  states: string[];
  /** Metadata key → value (compared as text). */
  metadata: Record<string, string>;
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
    .set(recordOf(columns, values) as PaymentMethodPatch)
    .where('environment_key', '=', values[columns.length] as string)
    .where('token', '=', values[columns.length + 1] as string)
    .where('storage_state', 'in', values.slice(columns.length + 2, columns.length + 2 + Number(stateCount)) as string[])
    .returningAll();
});

/** Single-query primitives over `payment_methods`; reads are scoped to one environment. */
export class PaymentMethodsRepo {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {}

  async insert(row: Insertable<PaymentMethodsTable>): Promise<void> {
    await journaled(this.db, async (db) => {
      await db.insertInto('payment_methods').values(row).execute();
      return { result: undefined, changes: [{ environmentKey: row.environment_key, eventType: 'AddPaymentMethod', objectType: 'payment_method', objectKey: row.token, at: row.created_at }] };
    });
  }

  find(environmentKey: string, token: string): Promise<PaymentMethodRow | undefined> {
    return FIND.first(this.db, '', [environmentKey, token]);
  }

  async findMany(environmentKey: string, tokens: string[]): Promise<PaymentMethodRow[]> {
    if (tokens.length === 0) return [];
    // By token alone (unique), then scoped to the environment here: with the environment in the
    // WHERE clause, SQLite's planner walks the environment's whole index from three tokens on,
    // which made every list page cost O(payment methods in the environment). A page's methods
    // may be large (free-form data): read a group at a time (page.ts).
    const rows = await readInGroups(tokens, (group) => FIND_MANY.rows(this.db, String(group.length), group));
    return rows.filter((row) => row.environment_key === environmentKey);
  }

  list(environmentKey: string, filter: PaymentMethodFilter, page: PageRequest): Promise<PaymentMethodRow[]> {
    let query = this.db.selectFrom('payment_methods').selectAll().where('environment_key', '=', environmentKey);
    if (filter.states.length > 0) query = query.where('storage_state', 'in', filter.states);
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
    return readPage(page, (part) => applyPage(query, 'seq', part).execute());
  }

  /** Updates only when the row is still in one of `fromStates`; false when it was not. */
  async updateIfState(environmentKey: string, token: string, fromStates: readonly string[], patch: PaymentMethodPatch): Promise<boolean> {
    return (await this.updateIfStateReturning(environmentKey, token, fromStates, patch)) !== undefined;
  }

  /** As `updateIfState`, returning the updated row in the same statement; undefined when it was not in `fromStates`. */
  updateIfStateReturning(environmentKey: string, token: string, fromStates: readonly string[], patch: PaymentMethodPatch): Promise<PaymentMethodRow | undefined> {
    return journaled(this.db, async (db) => {
      const record = recordShape(patch);
      const row =
        record === null || fromStates.length === 0
          ? await db
              .updateTable('payment_methods')
              .set(patch)
              .where('environment_key', '=', environmentKey)
              .where('token', '=', token)
              .where('storage_state', 'in', [...fromStates])
              .returningAll()
              .executeTakeFirst()
          : await UPDATE_IF_STATE.first(db, `${record.shape}|${fromStates.length}`, [...record.values, environmentKey, token, ...fromStates]);
      return { result: row, changes: patchChanges(row !== undefined, environmentKey, token, patch) };
    });
  }

  /**
   * Updates only when the row is still in one of `fromStates` and unchanged since it was read
   * (same `updated_at`): for writes computed from that read, such as redaction's details.
   */
  async updateIfUnchanged(row: PaymentMethodRow, fromStates: readonly string[], patch: PaymentMethodPatch): Promise<boolean> {
    return journaled(this.db, async (db) => {
      const result = await db
        .updateTable('payment_methods')
        .set(patch)
        .where('environment_key', '=', row.environment_key)
        .where('token', '=', row.token)
        .where('storage_state', 'in', [...fromStates])
        .where('updated_at', '=', row.updated_at)
        .executeTakeFirst();
      const changed = Number(result.numUpdatedRows) > 0;
      return { result: changed, changes: patchChanges(changed, row.environment_key, row.token, patch) };
    });
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
  expiredCached(now: string, limit: number, environmentKey?: string): Promise<PaymentMethodRow[]> {
    let query = this.db.selectFrom('payment_methods').selectAll().where('storage_state', '=', 'cached').where('cache_expires_at', '<=', now);
    if (environmentKey !== undefined) query = query.where('environment_key', '=', environmentKey);
    return query.orderBy('cache_expires_at').limit(limit).execute();
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
