import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { Dialect } from '../dialect.js';
import type { Database } from '../schema.js';
import { PAYMENT_METHOD_SEARCH_KEYS } from '../migrations/024-portal-search.js';
import { paymentMethodOf, type PaymentMethodRow } from '../mappers/payment-method.js';
import type { PaymentMethodSearch, PaymentMethodSearchPage } from '../../domain/payment-method-search.js';

/** How many of the newest methods a search by metadata alone reads at a time (no index holds metadata). */
export const METADATA_WINDOW = 10_000;

/**
 * The index a search walks and the order it lists in. Exactly one key drives the search (the
 * first of: fingerprint, last four, first six, email, name, a single state, the creation range);
 * the others are checked on the rows it reaches. On SQLite those checks are written `+expr`, which
 * keeps its planner (which has no statistics) on the driving index.
 */
type Driver =
  | { kind: 'equal'; expression: string; value: string }
  | { kind: 'name'; expression: string; from: string; below: string }
  | { kind: 'created' }
  | { kind: 'environment' };

/** The least string greater than every string starting with `prefix` (its last character, one up). */
export function prefixUpperBound(prefix: string): string {
  const chars = Array.from(prefix);
  const last = chars.pop() as string;
  return chars.join('') + String.fromCodePoint((last.codePointAt(0) as number) + 1);
}

/** The portal's card search over `payment_methods` (migration 024); see PaymentMethodsRepository.search. */
export class PaymentMethodSearchQuery {
  private readonly keys;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly dialect: Dialect,
  ) {
    this.keys = PAYMENT_METHOD_SEARCH_KEYS[dialect];
  }

  async run(environmentKey: string, search: PaymentMethodSearch): Promise<PaymentMethodSearchPage> {
    const driver = this.driverOf(search);
    const conditions = [sql`environment_key = ${environmentKey}`, ...this.checks(search, driver)];
    if (driver.kind === 'environment' && search.metadata !== undefined) return this.metadataWindow(environmentKey, search, conditions);
    let order: RawBuilder<unknown>;
    if (driver.kind === 'equal') {
      conditions.push(sql`${sql.raw(driver.expression)} = ${driver.value}`);
      if (search.beforePosition !== undefined) conditions.push(sql`seq < ${search.beforePosition}`);
      order = sql`seq desc`;
    } else if (driver.kind === 'name') {
      // Alphabetical, then oldest first: the order of the name index, read forwards.
      const name = sql.raw(driver.expression);
      conditions.push(sql`${name} >= ${driver.from}`, sql`${name} < ${driver.below}`);
      const cursor = search.beforePosition === undefined ? undefined : await this.valueAt(environmentKey, driver.expression, search.beforePosition);
      if (cursor !== undefined) conditions.push(sql`(${name}, seq) > (${cursor}, ${search.beforePosition})`);
      order = sql`${name} asc, seq asc`;
    } else if (driver.kind === 'created') {
      // Newest first by (created_at, seq): the order of payment_methods_by_created.
      if (search.createdFrom !== undefined) conditions.push(sql`created_at >= ${search.createdFrom}`);
      if (search.createdTo !== undefined) conditions.push(sql`created_at < ${search.createdTo}`);
      const cursor = search.beforePosition === undefined ? undefined : await this.valueAt(environmentKey, 'created_at', search.beforePosition);
      if (cursor !== undefined) conditions.push(sql`(created_at, seq) < (${cursor}, ${search.beforePosition})`);
      order = sql`created_at desc, seq desc`;
    } else {
      if (search.beforePosition !== undefined) conditions.push(sql`seq < ${search.beforePosition}`);
      order = sql`seq desc`;
    }
    const rows = await sql<PaymentMethodRow>`select * from payment_methods where ${sql.join(conditions, sql` and `)} order by ${order} limit ${search.count}`.execute(this.db);
    return { hits: rows.rows.map((row) => ({ position: Number(row.seq), paymentMethod: paymentMethodOf(row) })), scannedTo: null };
  }

  private driverOf(search: PaymentMethodSearch): Driver {
    const keys = this.keys;
    if (search.fingerprint !== undefined) return { kind: 'equal', expression: 'fingerprint', value: search.fingerprint };
    if (search.lastFour !== undefined) return { kind: 'equal', expression: keys.lastFour, value: search.lastFour };
    if (search.firstSix !== undefined) return { kind: 'equal', expression: keys.firstSix, value: search.firstSix };
    if (search.email !== undefined) return { kind: 'equal', expression: keys.email, value: search.email.toLowerCase() };
    if (search.namePrefix !== undefined) {
      const from = search.namePrefix.toLowerCase();
      return { kind: 'name', expression: keys.name, from, below: prefixUpperBound(from) };
    }
    if (search.states?.length === 1) return { kind: 'equal', expression: 'storage_state', value: search.states[0] as string };
    if (search.createdFrom !== undefined || search.createdTo !== undefined) return { kind: 'created' };
    return { kind: 'environment' };
  }

  /** The conditions the driving index does not answer, checked on the rows it reaches. */
  private checks(search: PaymentMethodSearch, driver: Driver): RawBuilder<unknown>[] {
    const keys = this.keys;
    const driving = driver.kind === 'equal' || driver.kind === 'name' ? driver.expression : driver.kind === 'created' ? 'created_at' : '';
    const off = (expression: string) => sql.raw(this.dialect === 'sqlite' ? `+(${expression})` : `(${expression})`);
    const out: RawBuilder<unknown>[] = [];
    const equal = (expression: string, value: string | undefined) => {
      if (value !== undefined && expression !== driving) out.push(sql`${off(expression)} = ${value}`);
    };
    equal('fingerprint', search.fingerprint);
    equal(keys.lastFour, search.lastFour);
    equal(keys.firstSix, search.firstSix);
    equal(keys.email, search.email?.toLowerCase());
    if (search.namePrefix !== undefined && driving !== keys.name) {
      const from = search.namePrefix.toLowerCase();
      out.push(sql`${off(keys.name)} >= ${from}`, sql`${off(keys.name)} < ${prefixUpperBound(from)}`);
    }
    if (search.states !== undefined && search.states.length > 0 && driving !== 'storage_state') {
      out.push(sql`${off('storage_state')} in (${sql.join(search.states)})`);
    }
    if (driving !== 'created_at') {
      if (search.createdFrom !== undefined) out.push(sql`${off('created_at')} >= ${search.createdFrom}`);
      if (search.createdTo !== undefined) out.push(sql`${off('created_at')} < ${search.createdTo}`);
    }
    if (search.metadata !== undefined) out.push(this.metadataMatches(search.metadata.key, search.metadata.value));
    return out;
  }

  /** Key and value are bound parameters; both dialects compare the JSON value as its text (as the API's list filter). */
  private metadataMatches(key: string, value: string): RawBuilder<unknown> {
    return this.dialect === 'postgres'
      ? sql`(metadata::jsonb ->> ${key}) = ${value}`
      : sql`exists (select 1 from json_each(payment_methods.metadata) where json_each.key = ${key} and (case json_each.type when 'true' then 'true' when 'false' then 'false' else cast(json_each.value as text) end) = ${value})`;
  }

  /**
   * Metadata alone: the newest METADATA_WINDOW methods below the cursor are read from
   * payment_methods_by_env and checked; when the page is not full and older methods remain,
   * `scannedTo` says where the next window starts.
   */
  private async metadataWindow(environmentKey: string, search: PaymentMethodSearch, conditions: RawBuilder<unknown>[]): Promise<PaymentMethodSearchPage> {
    const below = search.beforePosition === undefined ? sql`` : sql` and seq < ${search.beforePosition}`;
    const windowed = sql`(select * from payment_methods where environment_key = ${environmentKey}${below} order by seq desc limit ${METADATA_WINDOW})`;
    const rows = await sql<PaymentMethodRow>`select * from ${windowed} as payment_methods where ${sql.join(conditions, sql` and `)} order by seq desc limit ${search.count}`.execute(this.db);
    const hits = rows.rows.map((row) => ({ position: Number(row.seq), paymentMethod: paymentMethodOf(row) }));
    if (hits.length === search.count) return { hits, scannedTo: null };
    const edge = await sql<{ seq: number }>`select seq from payment_methods where environment_key = ${environmentKey}${below} order by seq desc limit 1 offset ${METADATA_WINDOW - 1}`.execute(this.db);
    const last = edge.rows[0];
    return { hits, scannedTo: last === undefined ? null : Number(last.seq) };
  }

  /** The value of `expression` on the method at `seq` (a page cursor), if it is still there. */
  private async valueAt(environmentKey: string, expression: string, seq: number): Promise<string | undefined> {
    const found = await sql<{ value: string }>`select ${sql.raw(expression)} as value from payment_methods where environment_key = ${environmentKey} and seq = ${seq}`.execute(this.db);
    return found.rows[0]?.value;
  }
}
