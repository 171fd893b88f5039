import type { Insertable, Kysely, Selectable, Updateable } from 'kysely';
import type { Database, PortalSessionsTable } from '../schema.js';

export type PortalSessionRow = Selectable<PortalSessionsTable>;

/** Single-query primitives over `portal_sessions`. */
export class PortalSessionsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Insertable<PortalSessionsTable>): Promise<void> {
    await this.db.insertInto('portal_sessions').values(row).execute();
  }

  find(idHash: string): Promise<PortalSessionRow | undefined> {
    return this.db.selectFrom('portal_sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
  }

  async update(idHash: string, changes: Updateable<PortalSessionsTable>): Promise<void> {
    await this.db.updateTable('portal_sessions').set(changes).where('id_hash', '=', idHash).execute();
  }

  async delete(idHash: string): Promise<void> {
    await this.db.deleteFrom('portal_sessions').where('id_hash', '=', idHash).execute();
  }

  /** Ends every session of a person, in every organization (new password, second factor reset). */
  async deleteForPerson(personToken: string): Promise<void> {
    await this.db.deleteFrom('portal_sessions').where('person_token', '=', personToken).execute();
  }

  /** Ends a person's sessions in one organization (membership disabled, removed, new role). */
  async deleteForMember(personToken: string, organizationToken: string): Promise<void> {
    await this.db.deleteFrom('portal_sessions').where('person_token', '=', personToken).where('organization_token', '=', organizationToken).execute();
  }

  /** Removes sessions past their absolute expiry. */
  async deleteExpired(now: string): Promise<void> {
    await this.db.deleteFrom('portal_sessions').where('expires_at', '<=', now).execute();
  }
}
