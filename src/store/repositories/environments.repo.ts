import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, EnvironmentsTable } from '../schema.js';
import { applyPage, type PageRequest } from './page.js';

export type EnvironmentRow = Selectable<EnvironmentsTable>;

/** Single-query primitives over `environments`. */
export class EnvironmentsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Insertable<EnvironmentsTable>): Promise<void> {
    await this.db.insertInto('environments').values(row).execute();
  }

  find(key: string): Promise<EnvironmentRow | undefined> {
    return this.db.selectFrom('environments').selectAll().where('key', '=', key).executeTakeFirst();
  }

  listByOrganization(organizationToken: string, page: PageRequest): Promise<EnvironmentRow[]> {
    const query = this.db.selectFrom('environments').selectAll().where('organization_token', '=', organizationToken);
    return applyPage(query, 'seq', page).execute();
  }

  async update(key: string, patch: { name?: string; production?: number; allowed_origins?: string | null; enhanced_iframe_security?: number; updated_at: string }): Promise<void> {
    await this.db.updateTable('environments').set(patch).where('key', '=', key).execute();
  }
}
