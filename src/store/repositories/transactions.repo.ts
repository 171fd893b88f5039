import type { Insertable, Kysely, Selectable } from 'kysely';
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

  list(environmentKey: string, page: PageRequest): Promise<TransactionRow[]> {
    const query = this.db.selectFrom('transactions').selectAll().where('environment_key', '=', environmentKey);
    return applyPage(query, 'seq', page).execute();
  }
}
