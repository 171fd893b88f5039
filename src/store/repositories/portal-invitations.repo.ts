import type { Insertable, Kysely, Selectable } from 'kysely';
import type { Database, PortalInvitationsTable } from '../schema.js';

export type PortalInvitationRow = Selectable<PortalInvitationsTable>;

/** Single-query primitives over `portal_invitations`. */
export class PortalInvitationsRepo {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(row: Insertable<PortalInvitationsTable>): Promise<void> {
    await this.db.insertInto('portal_invitations').values(row).execute();
  }

  find(token: string): Promise<PortalInvitationRow | undefined> {
    return this.db.selectFrom('portal_invitations').selectAll().where('token', '=', token).executeTakeFirst();
  }

  /** The invitation whose link secret hashes to this, unless it has expired. */
  findLive(secretHash: string, now: string): Promise<PortalInvitationRow | undefined> {
    return this.db.selectFrom('portal_invitations').selectAll().where('secret_hash', '=', secretHash).where('expires_at', '>', now).executeTakeFirst();
  }

  /** Open invitations of an organization, oldest first. */
  listByOrganization(organizationToken: string): Promise<PortalInvitationRow[]> {
    return this.db.selectFrom('portal_invitations').selectAll().where('organization_token', '=', organizationToken).orderBy('seq', 'asc').execute();
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
