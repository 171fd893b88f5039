import type { PortalSessionsRepository } from '../interfaces/portal-sessions.js';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { portalSessionChanges, portalSessionOf, portalSessionRow } from '../mappers/portal-people.js';
import type { PortalSession, PortalSessionPatch } from '../../domain/portal-people.js';

/** Single-query primitives over `portal_sessions`. */
export class PortalSessionsRepo implements PortalSessionsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(session: PortalSession): Promise<void> {
    await this.db.insertInto('portal_sessions').values(portalSessionRow(session)).execute();
  }

  async find(idHash: string): Promise<PortalSession | undefined> {
    const row = await this.db.selectFrom('portal_sessions').selectAll().where('id_hash', '=', idHash).executeTakeFirst();
    return row === undefined ? undefined : portalSessionOf(row);
  }

  async update(idHash: string, patch: PortalSessionPatch): Promise<void> {
    await this.db.updateTable('portal_sessions').set(portalSessionChanges(patch)).where('id_hash', '=', idHash).execute();
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
