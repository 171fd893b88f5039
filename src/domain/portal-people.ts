import type { PortalRole } from './portal-roles.js';

/*
 * The portal's people, memberships, invitations and sessions (docs/portal.md "Accounts and
 * organizations"). Timestamps are ISO-8601 UTC strings (they sort as text); sealed values
 * (TOTP secrets) are opaque strings opened by vault/portal-secret-box.ts.
 */

/** A person who signs in: one email and password, whatever organizations they belong to. */
export interface PortalPerson {
  token: string;
  /** Lower case. */
  email: string;
  /** argon2id PHC string. */
  passwordHash: string;
  /** Sealed: the TOTP secret in use; null when two-step is off. */
  totpSecret: string | null;
  /** Sealed: a new TOTP secret being set up; it replaces `totpSecret` once a code of it is typed. */
  totpPendingSecret: string | null;
  totpEnabled: boolean;
  /** The RFC 6238 time step of the last code accepted: a code is accepted only for a newer step. */
  totpLastStep: number | null;
  /** Failed sign-ins (password or code) since the last success, unlock or lock. */
  failedSignIns: number;
  /** Sign-in is refused until then, whatever the password. */
  lockedUntil: string | null;
  createdAt: string;
  updatedAt: string;
}

/** What creating a person stores (no failures yet). */
export type NewPortalPerson = Omit<PortalPerson, 'failedSignIns'>;

/** A change of a person's credentials or lock; `updatedAt` moves with it. */
export type PortalPersonPatch = Partial<Pick<PortalPerson, 'passwordHash' | 'totpSecret' | 'totpPendingSecret' | 'totpEnabled' | 'lockedUntil' | 'failedSignIns' | 'updatedAt'>>;

/** A person's membership of one organization, with its role there. */
export interface PortalMembership {
  token: string;
  personToken: string;
  organizationToken: string;
  role: PortalRole;
  disabledAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export type PortalMembershipPatch = Partial<Pick<PortalMembership, 'role' | 'disabledAt'>> & Pick<PortalMembership, 'updatedAt'>;

/**
 * A membership with the facts of its person a page shows or a check needs: what a portal session
 * acts as (`sessionOf(request).user`). `token` is the membership's.
 */
export type PortalMember = Pick<PortalMembership, 'token' | 'personToken' | 'organizationToken' | 'role' | 'disabledAt' | 'createdAt'> &
  Pick<PortalPerson, 'email' | 'totpEnabled' | 'lockedUntil'>;

/** A membership with its organization's name, for the organization switcher. */
export type PortalMemberOrganization = PortalMember & { organizationName: string };

/** An invitation to join an organization; its link's secret is shown once, only its hash is kept. */
export interface PortalInvitation {
  token: string;
  organizationToken: string;
  /** Lower case. */
  email: string;
  role: PortalRole;
  /** SHA-256 (hex) of the secret in the link. */
  secretHash: string;
  /** The email of who invited. */
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

/** 'password': the second factor is still to be given; 'active': signed in. */
export type PortalSessionStage = 'password' | 'active';

/** A server-side portal session: one person acting in one organization. */
export interface PortalSession {
  /** SHA-256 of the cookie value; the value itself is never stored. */
  idHash: string;
  personToken: string;
  /** The organization the session acts in; switching changes it (and the CSRF token). */
  organizationToken: string;
  csrfToken: string;
  stage: PortalSessionStage;
  /** The environment the user is looking at. */
  environmentKey: string | null;
  address: string;
  /** The one-time value of the last secret-creating form this session submitted. */
  consumedNonce: string | null;
  createdAt: string;
  lastSeenAt: string;
  /** Absolute expiry. */
  expiresAt: string;
}

export type PortalSessionPatch = Partial<Pick<PortalSession, 'organizationToken' | 'csrfToken' | 'environmentKey' | 'consumedNonce' | 'lastSeenAt'>>;
