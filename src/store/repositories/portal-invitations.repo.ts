import type { PortalInvitationsRepository } from '../interfaces/portal-invitations.js';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import { portalInvitationOf, portalInvitationRow } from '../mappers/portal-people.js';
import type { PortalInvitation } from '../../domain/portal-people.js';

/** Single-query primitives over `portal_invitations`. */
export class PortalInvitationsRepo implements PortalInvitationsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(invitation: PortalInvitation): Promise<void> {
    await this.db.insertInto('portal_invitations').values(portalInvitationRow(invitation)).execute();
  }

  async find(token: string): Promise<PortalInvitation | undefined> {
    const row = await this.db.selectFrom('portal_invitations').selectAll().where('token', '=', token).executeTakeFirst();
    return row === undefined ? undefined : portalInvitationOf(row);
  }

  /** The invitation whose link secret hashes to this, unless it has expired. */
  async findLive(secretHash: string, now: string): Promise<PortalInvitation | undefined> {
    const row = await this.db.selectFrom('portal_invitations').selectAll().where('secret_hash', '=', secretHash).where('expires_at', '>', now).executeTakeFirst();
    return row === undefined ? undefined : portalInvitationOf(row);
  }

  /** Open invitations of an organization, oldest first. */
  async listByOrganization(organizationToken: string): Promise<PortalInvitation[]> {
    return (await this.db.selectFrom('portal_invitations').selectAll().where('organization_token', '=', organizationToken).orderBy('seq', 'asc').execute()).map(portalInvitationOf);
  }

  /** Removes an invitation; false when it was already gone (used, cancelled, replaced). */
  async delete(token: string): Promise<boolean> {
    const result = await this.db.deleteFrom('portal_invitations').where('token', '=', token).executeTakeFirst();
    return Number(result.numDeletedRows) > 0;
  }

  async deleteFor(organizationToken: string, email: string): Promise<void> {
    await this.db.deleteFrom('portal_invitations').where('organization_token', '=', organizationToken).where('email', '=', email).execute();
  }
}
