import type { PortalInvitation } from '../../domain/portal-people.js';

/** Single-query primitives over `portal_invitations`. */
export interface PortalInvitationsRepository {
  insert(invitation: PortalInvitation): Promise<void>;
  find(token: string): Promise<PortalInvitation | undefined>;
  /** The invitation whose link secret hashes to this, unless it has expired. */
  findLive(secretHash: string, now: string): Promise<PortalInvitation | undefined>;
  /** Open invitations of an organization, oldest first. */
  listByOrganization(organizationToken: string): Promise<PortalInvitation[]>;
  /** Removes an invitation; false when it was already gone (used, cancelled, replaced). */
  delete(token: string): Promise<boolean>;
  deleteFor(organizationToken: string, email: string): Promise<void>;
}
