/**
 * The portal's people policies (PCI DSS v4.0.1 requirement 8; docs/compliance.md, "People"), as
 * configured (COFFER_PORTAL_*): the configuration refuses values outside what PCI allows.
 */
export interface PeoplePolicy {
  /** 8.3.6: at least 12. */
  passwordMinLength: number;
  /** 8.3.4: at most 10 failed attempts… */
  lockoutFailures: number;
  /** …lock for at least 30 minutes. */
  lockoutMs: number;
  /** 8.2.8: idle sessions end after at most 15 minutes. */
  idleTimeoutMs: number;
  /** 8.2.6: members inactive this many days (at most 90) are disabled. */
  inactiveDays: number;
}

export const DEFAULT_PEOPLE_POLICY: PeoplePolicy = { passwordMinLength: 12, lockoutFailures: 10, lockoutMs: 30 * 60_000, idleTimeoutMs: 15 * 60_000, inactiveDays: 90 };
