import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database, PortalUsersTable } from '../schema.js';

export type PortalUserRow = Selectable<PortalUsersTable>;

/** Single-query primitives over `portal_users`. */
export class PortalUsersRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Insertable<PortalUsersTable>): Promise<void> {
    await this.db.insertInto('portal_users').values(row).execute();
  }

  find(token: string): Promise<PortalUserRow | undefined> {
    return this.db.selectFrom('portal_users').selectAll().where('token', '=', token).executeTakeFirst();
  }

  findByEmail(email: string): Promise<PortalUserRow | undefined> {
    return this.db.selectFrom('portal_users').selectAll().where('email', '=', email).executeTakeFirst();
  }

  /** Every user of an organization, oldest first (teams are small). */
  listByOrganization(organizationToken: string): Promise<PortalUserRow[]> {
    return this.db.selectFrom('portal_users').selectAll().where('organization_token', '=', organizationToken).orderBy('seq', 'asc').execute();
  }

  /** Active owners of an organization: the last one may not be demoted or disabled. */
  async countActiveOwners(organizationToken: string): Promise<number> {
    const row = await this.db
      .selectFrom('portal_users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_token', '=', organizationToken)
      .where('role', '=', 'owner')
      .where('disabled_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async update(token: string, changes: Updateable<PortalUsersTable>): Promise<boolean> {
    const result = await this.db.updateTable('portal_users').set(changes).where('token', '=', token).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
