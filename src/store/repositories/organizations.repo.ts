import type { Kysely, Selectable } from 'kysely';
import type { Database, OrganizationsTable } from '../schema.js';

export type OrganizationRow = Selectable<OrganizationsTable>;

/** Single-query primitives over `organizations`. */
export class OrganizationsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: OrganizationRow): Promise<void> {
    await this.db.insertInto('organizations').values(row).execute();
  }

  find(token: string): Promise<OrganizationRow | undefined> {
    return this.db.selectFrom('organizations').selectAll().where('token', '=', token).executeTakeFirst();
  }

  list(): Promise<OrganizationRow[]> {
    return this.db.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('token').execute();
  }

  async setActive(token: string, active: boolean, updatedAt: string): Promise<boolean> {
    const result = await this.db
      .updateTable('organizations')
      .set({ active: active ? 1 : 0, updated_at: updatedAt })
      .where('token', '=', token)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async isEmpty(): Promise<boolean> {
    const row = await this.db.selectFrom('organizations').select('token').limit(1).executeTakeFirst();
    return row === undefined;
  }
}
