import type { NewPortalPerson, PortalMember, PortalMemberOrganization, PortalMembership, PortalMembershipPatch, PortalPerson, PortalPersonPatch } from '../../domain/portal-people.js';

/** Single-query primitives over `portal_people`. */
export interface PortalPeopleRepository {
  insert(person: NewPortalPerson): Promise<void>;
  find(token: string): Promise<PortalPerson | undefined>;
  findByEmail(email: string): Promise<PortalPerson | undefined>;
  update(token: string, patch: PortalPersonPatch): Promise<boolean>;
  delete(token: string): Promise<void>;
  /** Counts one failed sign-in, in one statement (several nodes may count at once); the new count. */
  addFailure(token: string): Promise<number>;
  /**
   * The write of a counted failure, changing nothing (one row's count set to itself): a refused
   * sign-in of an unknown email or a locked person costs the same write as a wrong password, so
   * its time does not tell which it was (docs/portal.md "Lockout").
   */
  decoyFailure(): Promise<void>;
  /**
   * Locks the person when the failures reached `limit`, restarting the count. True for the one
   * caller that locked (of several nodes counting the same failures), which records it.
   */
  lockAt(token: string, limit: number, until: string): Promise<boolean>;
  /** A success: the failures start again from zero (no write when there were none). */
  clearFailures(token: string): Promise<void>;
  /**
   * Records `step` as the last accepted TOTP step when it is newer than the last one and the
   * secret is still `secret`: one statement, so two nodes given the same code accept it once.
   */
  advanceTotpStep(token: string, secret: string, step: number): Promise<boolean>;
  /**
   * Makes the pending secret the one in use, if it is still `pending` (not replaced meanwhile);
   * `lastStep` is the step of the code that proved it.
   */
  promotePendingTotp(token: string, pending: string, lastStep: number, updatedAt: string): Promise<boolean>;
}

/** Single-query primitives over `portal_memberships` (joined with their people). */
export interface PortalMembershipsRepository {
  insert(membership: PortalMembership): Promise<void>;
  find(token: string): Promise<PortalMember | undefined>;
  /** The person's membership in the organization, if any. */
  of(personToken: string, organizationToken: string): Promise<PortalMember | undefined>;
  /** Every member of an organization, oldest first (teams are small). */
  listByOrganization(organizationToken: string): Promise<PortalMember[]>;
  /** Every membership of a person, oldest first, with the organization's name. */
  listByPerson(personToken: string): Promise<PortalMemberOrganization[]>;
  /** Active owners of an organization: the last one may not be demoted, disabled or removed. */
  countActiveOwners(organizationToken: string): Promise<number>;
  update(token: string, patch: PortalMembershipPatch): Promise<boolean>;
  delete(token: string): Promise<void>;
  countForPerson(personToken: string): Promise<number>;
}
