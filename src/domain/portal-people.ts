import type { PortalPersonRow } from '../store/repositories/portal-users.repo.js';
import type { PortalMembershipRow } from '../store/repositories/portal-users.repo.js';
import type { PortalInvitationRow } from '../store/repositories/portal-invitations.repo.js';
import type { PortalSessionRow } from '../store/repositories/portal-sessions.repo.js';

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type PortalPerson = PortalPersonRow;

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type PortalMembership = PortalMembershipRow;

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type PortalInvitation = PortalInvitationRow;

/** TRANSITIONAL: still the stored row; being replaced by a domain type (camelCase, real booleans, parsed JSON). */
export type PortalSession = PortalSessionRow;
