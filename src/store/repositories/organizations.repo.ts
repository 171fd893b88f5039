import type { OrganizationsRepository } from '../interfaces/organizations.js';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { organizationOf, organizationRow } from '../mappers/organization.js';
import type { Organization } from '../../domain/organization.js';

/** Single-query primitives over `organizations`. */
export class OrganizationsRepo implements OrganizationsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(organization: Organization): Promise<void> {
    await this.db.insertInto('organizations').values(organizationRow(organization)).execute();
  }

  async find(token: string): Promise<Organization | undefined> {
    const row = await this.db.selectFrom('organizations').selectAll().where('token', '=', token).executeTakeFirst();
    return row === undefined ? undefined : organizationOf(row);
  }

  async list(): Promise<Organization[]> {
    return (await this.db.selectFrom('organizations').selectAll().orderBy('created_at').orderBy('token').execute()).map(organizationOf);
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
