import type { Clock } from '../domain/clock.js';
import type { Repositories } from '../store/repositories.js';
import type { AuditService } from './audit.service.js';
import type { PortalPerson } from '../domain/portal-people.js';
import { DEFAULT_PEOPLE_POLICY } from '../domain/people-policy.js';

/**
 * PCI DSS 8.3.4: a person is locked out after at most 10 failed attempts (wrong password or
 * wrong code), for at least 30 minutes. docs/portal.md "Lockout" explains the trade-off against
 * lockout as a denial of service (the per-address budget before it, unlock by people and the CLI).
 */
export const LOCKOUT = { failures: DEFAULT_PEOPLE_POLICY.lockoutFailures, durationMs: DEFAULT_PEOPLE_POLICY.lockoutMs } as const;

/** Counts failures per person in the store (every node sees the same count) and locks. */
export class PortalLockout {
  constructor(
    private readonly repos: Pick<Repositories, 'portalMemberships' | 'portalPeople'>,
    private readonly audit: AuditService,
    private readonly clock: Clock,
    /** COFFER_PORTAL_LOCKOUT_FAILURES and COFFER_PORTAL_LOCKOUT_DURATION (at most 10, at least 30 minutes). */
    readonly policy: { failures: number; durationMs: number } = LOCKOUT,
  ) {}

  /** True while the lock of a person (or of a member's person) lasts. */
  isLocked(person: { lockedUntil: string | null }): boolean {
    return person.lockedUntil !== null && Date.parse(person.lockedUntil) > this.clock.now().getTime();
  }

  /**
   * One more failure; the one that reaches the limit locks the person and records `user.lock` in
   * each of their organizations (their owners see who was attacked, and from where).
   */
  async fail(person: PortalPerson, address: string | null): Promise<void> {
    const failures = await this.repos.portalPeople.addFailure(person.token);
    if (failures < this.policy.failures) return;
    const until = new Date(this.clock.now().getTime() + this.policy.durationMs).toISOString();
    if (!(await this.repos.portalPeople.lockAt(person.token, this.policy.failures, until))) return;
    for (const member of await this.repos.portalMemberships.listByPerson(person.token)) {
      await this.audit.record(
        { type: 'user', id: person.email, address },
        { organizationToken: member.organizationToken, action: 'user.lock', objectType: 'user', objectId: member.token, details: { email: person.email, failures: this.policy.failures, until } },
      );
    }
  }

  /** A refused attempt that counts nothing (unknown email, locked person), at the cost of one that does. */
  async failWithoutCount(): Promise<void> {
    await this.repos.portalPeople.decoyFailure();
  }

  /** A complete sign-in (or a right code): the failures start again from zero. */
  async succeed(person: PortalPerson): Promise<void> {
    await this.repos.portalPeople.clearFailures(person.token);
  }

  /** Lifts a lock and forgets the failures (an owner, an admin or the operator decided). */
  async unlock(personToken: string): Promise<void> {
    await this.repos.portalPeople.update(personToken, { lockedUntil: null, failedSignIns: 0, updatedAt: this.clock.now().toISOString() });
  }
}
