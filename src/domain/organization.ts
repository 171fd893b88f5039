/** An organization: the tenant that owns environments, access secrets and portal members. */
export interface Organization {
  token: string;
  name: string;
  /** A deactivated organization may still read, but changes nothing (API.md §2). */
  active: boolean;
  /** ISO-8601 UTC, as the wire shows them (they sort as text). */
  createdAt: string;
  updatedAt: string;
}
