import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database } from '../schema.js';
import { applyPage, type PageRequest } from './page.js';

/** Resources that belong to one environment, have a public `token` and list by `seq`. */
export type ScopedTable = 'gateways' | 'receivers' | 'certificates';

/** Scoped resources with a `state` that may be `redacted`. */
export type RedactableTable = 'gateways' | 'receivers';

/**
 * The primitives every environment-scoped resource shares: insert, find by token, list a page.
 * Every read is scoped to one environment, so another environment's token is simply not found.
 */
export abstract class EnvironmentScopedRepo<T extends ScopedTable> {
  protected constructor(
    protected readonly db: Kysely<Database>,
    private readonly table: T,
  ) {}

  async insert(row: Insertable<Database[T]>): Promise<void> {
    await this.db.insertInto(this.table).values(row as never).execute();
  }

  find(environmentKey: string, token: string): Promise<Selectable<Database[T]> | undefined> {
    return this.scoped(environmentKey).where('token', '=', token).executeTakeFirst() as Promise<Selectable<Database[T]> | undefined>;
  }

  list(environmentKey: string, page: PageRequest): Promise<Array<Selectable<Database[T]>>> {
    return applyPage(this.scoped(environmentKey), 'seq', page).execute() as Promise<Array<Selectable<Database[T]>>>;
  }

  private scoped(environmentKey: string) {
    // Kysely cannot narrow a generic table name; the scoped tables share the columns used here.
    return this.db.selectFrom(this.table as ScopedTable as 'gateways').selectAll().where('environment_key', '=', environmentKey);
  }
}

/** Updates a resource that is not redacted; false when there is none (a redact won a race). */
export async function updateUnlessRedacted<T extends RedactableTable>(
  db: Kysely<Database>,
  table: T,
  key: { environmentKey: string; token: string },
  patch: Updateable<Database[T]>,
): Promise<boolean> {
  const result = await db
    .updateTable(table as RedactableTable as 'gateways')
    .set(patch as Updateable<Database['gateways']>)
    .where('environment_key', '=', key.environmentKey)
    .where('token', '=', key.token)
    .where('state', '!=', 'redacted')
    .executeTakeFirst();
  return Number(result.numUpdatedRows) > 0;
}
