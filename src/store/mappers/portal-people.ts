import type { Insertable, Selectable, Updateable } from 'kysely';
import type { PortalInvitationsTable, PortalMembershipsTable, PortalPeopleTable, PortalSessionsTable } from '../schema.js';
import type {
  NewPortalPerson,
  PortalInvitation,
  PortalMember,
  PortalMemberOrganization,
  PortalMembership,
  PortalMembershipPatch,
  PortalPerson,
  PortalPersonPatch,
  PortalSession,
  PortalSessionPatch,
  PortalSessionStage,
} from '../../domain/portal-people.js';
import type { PortalRole } from '../../domain/portal-roles.js';

export type PortalPersonRow = Selectable<PortalPeopleTable>;
export type PortalMembershipRow = Selectable<PortalMembershipsTable>;
export type PortalInvitationRow = Selectable<PortalInvitationsTable>;
export type PortalSessionRow = Selectable<PortalSessionsTable>;

/** The columns of a membership joined with its person (and, for the switcher, its organization's name). */
export type PortalMemberRow = Pick<PortalMembershipRow, 'token' | 'person_token' | 'organization_token' | 'role' | 'disabled_at' | 'created_at'> &
  Pick<PortalPersonRow, 'email' | 'totp_enabled' | 'locked_until'>;

export function portalPersonOf(row: PortalPersonRow): PortalPerson {
  return {
    token: row.token,
    email: row.email,
    passwordHash: row.password_hash,
    totpSecret: row.totp_secret,
    totpPendingSecret: row.totp_pending_secret,
    totpEnabled: row.totp_enabled === 1,
    totpLastStep: row.totp_last_step,
    failedSignIns: Number(row.failed_sign_ins),
    lockedUntil: row.locked_until,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

export function newPortalPersonRow(person: NewPortalPerson): Insertable<PortalPeopleTable> {
  return {
    token: person.token,
    email: person.email,
    password_hash: person.passwordHash,
    totp_secret: person.totpSecret,
    totp_pending_secret: person.totpPendingSecret,
    totp_enabled: person.totpEnabled ? 1 : 0,
    totp_last_step: person.totpLastStep,
    locked_until: person.lockedUntil,
    created_at: person.createdAt,
    updated_at: person.updatedAt,
  };
}

export function portalPersonChanges(patch: PortalPersonPatch): Updateable<PortalPeopleTable> {
  const changes: Updateable<PortalPeopleTable> = {};
  if (patch.passwordHash !== undefined) changes.password_hash = patch.passwordHash;
  if (patch.totpSecret !== undefined) changes.totp_secret = patch.totpSecret;
  if (patch.totpPendingSecret !== undefined) changes.totp_pending_secret = patch.totpPendingSecret;
  if (patch.totpEnabled !== undefined) changes.totp_enabled = patch.totpEnabled ? 1 : 0;
  if (patch.lockedUntil !== undefined) changes.locked_until = patch.lockedUntil;
  if (patch.failedSignIns !== undefined) changes.failed_sign_ins = patch.failedSignIns;
  if (patch.updatedAt !== undefined) changes.updated_at = patch.updatedAt;
  return changes;
}

export function newPortalMembershipRow(membership: PortalMembership): Insertable<PortalMembershipsTable> {
  return {
    token: membership.token,
    person_token: membership.personToken,
    organization_token: membership.organizationToken,
    role: membership.role,
    disabled_at: membership.disabledAt,
    created_at: membership.createdAt,
    updated_at: membership.updatedAt,
  };
}

export function portalMembershipChanges(patch: PortalMembershipPatch): Updateable<PortalMembershipsTable> {
  const changes: Updateable<PortalMembershipsTable> = {};
  if (patch.role !== undefined) changes.role = patch.role;
  if (patch.disabledAt !== undefined) changes.disabled_at = patch.disabledAt;
  changes.updated_at = patch.updatedAt;
  return changes;
}

export function portalMemberOf(row: PortalMemberRow): PortalMember {
  return {
    token: row.token,
    personToken: row.person_token,
    organizationToken: row.organization_token,
    role: row.role as PortalRole,
    disabledAt: row.disabled_at,
    createdAt: row.created_at,
    email: row.email,
    totpEnabled: row.totp_enabled === 1,
    lockedUntil: row.locked_until,
  };
}

export function portalMemberOrganizationOf(row: PortalMemberRow & { organization_name: string }): PortalMemberOrganization {
  return { ...portalMemberOf(row), organizationName: row.organization_name };
}

export function portalInvitationOf(row: PortalInvitationRow): PortalInvitation {
  return {
    token: row.token,
    organizationToken: row.organization_token,
    email: row.email,
    role: row.role as PortalRole,
    secretHash: row.secret_hash,
    invitedBy: row.invited_by,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
  };
}

export function portalInvitationRow(invitation: PortalInvitation): Insertable<PortalInvitationsTable> {
  return {
    token: invitation.token,
    organization_token: invitation.organizationToken,
    email: invitation.email,
    role: invitation.role,
    secret_hash: invitation.secretHash,
    invited_by: invitation.invitedBy,
    created_at: invitation.createdAt,
    expires_at: invitation.expiresAt,
  };
}

export function portalSessionOf(row: PortalSessionRow): PortalSession {
  return {
    idHash: row.id_hash,
    personToken: row.person_token,
    organizationToken: row.organization_token,
    csrfToken: row.csrf_token,
    stage: row.stage as PortalSessionStage,
    environmentKey: row.environment_key,
    address: row.address,
    consumedNonce: row.consumed_nonce,
    createdAt: row.created_at,
    lastSeenAt: row.last_seen_at,
    expiresAt: row.expires_at,
  };
}

export function portalSessionRow(session: PortalSession): PortalSessionRow {
  return {
    id_hash: session.idHash,
    person_token: session.personToken,
    organization_token: session.organizationToken,
    csrf_token: session.csrfToken,
    stage: session.stage,
    environment_key: session.environmentKey,
    address: session.address,
    consumed_nonce: session.consumedNonce,
    created_at: session.createdAt,
    last_seen_at: session.lastSeenAt,
    expires_at: session.expiresAt,
  };
}

export function portalSessionChanges(patch: PortalSessionPatch): Updateable<PortalSessionsTable> {
  const changes: Updateable<PortalSessionsTable> = {};
  if (patch.organizationToken !== undefined) changes.organization_token = patch.organizationToken;
  if (patch.csrfToken !== undefined) changes.csrf_token = patch.csrfToken;
  if (patch.environmentKey !== undefined) changes.environment_key = patch.environmentKey;
  if (patch.consumedNonce !== undefined) changes.consumed_nonce = patch.consumedNonce;
  if (patch.lastSeenAt !== undefined) changes.last_seen_at = patch.lastSeenAt;
  return changes;
}
