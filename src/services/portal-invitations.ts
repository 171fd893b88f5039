import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../domain/digest.js';
import { AppError, fieldError, MESSAGES } from '../domain/errors.js';
import type { Clock } from '../domain/clock.js';
import { isPortalRole } from '../domain/portal-roles.js';
import { randomToken, TOKEN_LENGTH } from '../domain/tokens.js';
import type { Repositories } from '../store/repositories.js';
import { normalizeEmail } from './portal-credentials.js';
import type { PortalInvitation } from '../domain/portal-people.js';

/** An invitation link works for a week, once. */
export const INVITATION_TTL_MS = 7 * 86_400_000;

/** A new invitation and the secret of its link, shown once (only its hash is stored). */
export interface NewInvitation {
  invitation: PortalInvitation;
  secret: string;
}

/** The invitation behind a link, with the name of the organization it opens. */
export interface OpenInvitation {
  invitation: PortalInvitation;
  organizationName: string;
}

function invitationSecretHash(secret: string): string {
  return sha256Hex(secret);
}

export function invitationGone(): AppError {
  return new AppError({ key: 'errors.user_not_found', message: 'This invitation link is not valid any more: it was used, cancelled or replaced, or it expired. Ask for a new one.' });
}

/**
 * Invitations to join an organization (docs/portal.md "Adding a team member"). Inviting answers
 * the same whether the address has a Coffer account in another organization or not: nothing is
 * looked up outside the inviting organization. Accepting is PortalUserService.acceptInvitation.
 */
export class PortalInvitations {
  constructor(
    private readonly repos: Pick<Repositories, 'organizations' | 'portalInvitations' | 'portalMemberships'>,
    private readonly clock: Clock,
  ) {}

  /**
   * Invites an address with a role, replacing an open invitation of the same address. Refused
   * only for an address that is already a member of this organization (its own team).
   */
  async invite(organizationToken: string, input: { email: string; role: string; invitedBy: string }): Promise<NewInvitation> {
    const email = normalizeEmail(input.email);
    if (!isPortalRole(input.role)) throw new AppError(fieldError.inclusion('role'));
    const members = await this.repos.portalMemberships.listByOrganization(organizationToken);
    if (members.some((member) => member.email === email)) {
      throw new AppError({ key: 'errors.invalid', attribute: 'email', message: 'Email is already a member of this organization' });
    }
    const secret = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const invitation: PortalInvitation = {
      token: randomToken(TOKEN_LENGTH.item),
      organizationToken,
      email,
      role: input.role,
      secretHash: invitationSecretHash(secret),
      invitedBy: input.invitedBy,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
    };
    await this.repos.portalInvitations.deleteFor(organizationToken, email);
    await this.repos.portalInvitations.insert(invitation);
    return { invitation: (await this.repos.portalInvitations.find(invitation.token)) as PortalInvitation, secret };
  }

  list(organizationToken: string): Promise<PortalInvitation[]> {
    return this.repos.portalInvitations.listByOrganization(organizationToken);
  }

  /** Cancels an open invitation of this organization; the invitation, or a 404. */
  async cancel(organizationToken: string, token: string): Promise<PortalInvitation> {
    const invitation = await this.repos.portalInvitations.find(token);
    if (invitation === undefined || invitation.organizationToken !== organizationToken || !(await this.repos.portalInvitations.delete(token))) throw invitationGone();
    return invitation;
  }

  /**
   * The live invitation behind a link's secret, or a 404; a 402 with the API's reason while the
   * organization is deactivated (it takes no new members, like every other change).
   */
  async open(secret: string): Promise<OpenInvitation> {
    const invitation = secret.length > 100 ? undefined : await this.repos.portalInvitations.findLive(invitationSecretHash(secret), this.clock.now().toISOString());
    const organization = invitation === undefined ? undefined : await this.repos.organizations.find(invitation.organizationToken);
    if (invitation === undefined || organization === undefined) throw invitationGone();
    if (!organization.active) throw new AppError({ key: 'errors.account_inactive', message: MESSAGES.organizationInactive });
    return { invitation, organizationName: organization.name };
  }
}
