import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database, TransactionsTable } from '../schema.js';
import { applyPage, type PageRequest } from './page.js';

export type TransactionRow = Selectable<TransactionsTable>;

/** Single-query primitives over `transactions`; every read is scoped to one environment. */
export class TransactionsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Insertable<TransactionsTable>): Promise<void> {
    await this.db.insertInto('transactions').values(row).execute();
  }

  find(environmentKey: string, token: string): Promise<TransactionRow | undefined> {
    return this.db
      .selectFrom('transactions')
      .selectAll()
      .where('environment_key', '=', environmentKey)
      .where('token', '=', token)
      .executeTakeFirst();
  }

  listForPaymentMethod(environmentKey: string, paymentMethodToken: string, page: PageRequest): Promise<TransactionRow[]> {
    const query = this.db
      .selectFrom('transactions')
      .selectAll()
      .where('environment_key', '=', environmentKey)
      .where('payment_method_token', '=', paymentMethodToken);
    return applyPage(query, 'seq', page).execute();
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
    await this.db.updateTable('transactions').set(patch).where('environment_key', '=', environmentKey).where('token', '=', token).execute();
  }

  /** The environment's transactions, optionally of one gateway and in some states. */
  list(environmentKey: string, page: PageRequest, filter: { states?: string[]; gatewayToken?: string } = {}): Promise<TransactionRow[]> {
    let query = this.db.selectFrom('transactions').selectAll().where('environment_key', '=', environmentKey);
    if (filter.gatewayToken !== undefined) query = query.where('gateway_token', '=', filter.gatewayToken);
    if (filter.states !== undefined && filter.states.length > 0) query = query.where('state', 'in', filter.states);
    return applyPage(query, 'seq', page).execute();
  }
}
