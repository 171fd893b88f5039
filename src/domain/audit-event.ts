/** Who did something: a portal user, an API access secret or the operator's CLI. */
export type AuditActorType = 'user' | 'access_secret' | 'operator';

/** Non-secret facts of an audited change (a new name, a role); never a secret or a card. */
export type AuditDetails = Record<string, string | number | boolean | null>;

/**
 * One entry of an organization's append-only audit log (docs/portal.md "Audit log"). Timestamps
 * are ISO-8601 UTC strings (they sort as text).
 */
export interface AuditEvent {
  token: string;
  organizationToken: string;
  actorType: AuditActorType;
  /** The user's email, the secret's key, or 'cli'. */
  actor: string;
  action: string;
  objectType: string;
  objectId: string | null;
  environmentKey: string | null;
  address: string | null;
  details: AuditDetails | null;
  createdAt: string;
  /** Where the log reads on from, newest first: a page's `before` cursor. */
  cursor: number;
}

export type NewAuditEvent = Omit<AuditEvent, 'cursor'>;

/** Filters of the audit log; every one optional. Dates are ISO-8601 bounds on `createdAt`. */
export interface AuditFilter {
  actor?: string;
  action?: string;
  from?: string;
  to?: string;
  /** Keyset paging: events older than this cursor (newest first). */
  before?: number;
  count: number;
}
