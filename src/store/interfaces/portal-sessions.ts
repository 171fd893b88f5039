import type { PortalSession, PortalSessionPatch } from '../../domain/portal-people.js';

/** Single-query primitives over `portal_sessions`. */
export interface PortalSessionsRepository {
  insert(session: PortalSession): Promise<void>;
  find(idHash: string): Promise<PortalSession | undefined>;
  update(idHash: string, patch: PortalSessionPatch): Promise<void>;
  delete(idHash: string): Promise<void>;
  /** Ends every session of a person, in every organization (new password, second factor reset). */
  deleteForPerson(personToken: string): Promise<void>;
  /** Ends a person's sessions in one organization (membership disabled, removed, new role). */
  deleteForMember(personToken: string, organizationToken: string): Promise<void>;
  /** Removes sessions past their absolute expiry. */
  deleteExpired(now: string): Promise<void>;
}
