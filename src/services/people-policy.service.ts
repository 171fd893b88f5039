import type { Clock } from '../domain/clock.js';
import { DEFAULT_PEOPLE_POLICY, type PeoplePolicy } from '../domain/people-policy.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import { AuditService, type AuditActor } from './audit.service.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'auditEvents' | 'peoplePolicy' | 'portalSessions';

/** How an organization's two-step requirement stands: as it set it, or by default. */
export interface TwoStepRequirement {
  required: boolean;
  /** 'organization': set by an owner or admin; 'default': on when the organization has a production environment. */
  source: 'organization' | 'default';
}

/**
 * The PCI 8 policies that are not about one sign-in (docs/compliance.md, "People"): the
 * organization's two-step requirement (8.4.2: on by default once it has a production environment)
 * and disabling members inactive past COFFER_PORTAL_INACTIVE_DAYS (8.2.6). Every change is audited.
 */
export class PeoplePolicyService {
  private readonly repos: Pick<Repositories, Uses>;
  private readonly audit: AuditService;

  constructor(
    store: StoreAccess<Uses>,
    private readonly clock: Clock,
    readonly policy: PeoplePolicy = DEFAULT_PEOPLE_POLICY,
  ) {
    this.repos = store.repos;
    this.audit = new AuditService(store, clock);
  }

  async twoStep(organizationToken: string): Promise<TwoStepRequirement> {
    const setting = await this.repos.peoplePolicy.twoStepSetting(organizationToken);
    if (setting !== null) return { required: setting, source: 'organization' };
    return { required: await this.repos.peoplePolicy.hasProductionEnvironment(organizationToken), source: 'default' };
  }

  /** Sets (or, with null, returns to the default) the requirement; audited as `organization.two_step_policy`. */
  async setTwoStep(actor: AuditActor, organizationToken: string, required: boolean | null): Promise<TwoStepRequirement> {
    await this.repos.peoplePolicy.setTwoStepSetting(organizationToken, required, this.clock.now().toISOString());
    const now = await this.twoStep(organizationToken);
    await this.audit.record(actor, { organizationToken, action: 'organization.two_step_policy', objectType: 'organization', objectId: organizationToken, details: { required: now.required, source: now.source } });
    return now;
  }

  /** The member signed in into this organization now (their inactivity counts from here). */
  async signedIn(membershipToken: string): Promise<void> {
    await this.repos.peoplePolicy.touchMember(membershipToken, this.clock.now().toISOString());
  }

  /**
   * Disables every member not signed in for `inactiveDays` (or never, since being added that long
   * ago), ends their sessions, and records `user.disable` (reason `inactive`) in their organization.
   * How many were disabled.
   */
  async disableInactive(): Promise<number> {
    const now = this.clock.now();
    const cutoff = new Date(now.getTime() - this.policy.inactiveDays * 86_400_000).toISOString();
    let disabled = 0;
    for (const member of await this.repos.peoplePolicy.inactiveMembers(cutoff)) {
      if (!(await this.repos.peoplePolicy.disableIfEnabled(member.token, now.toISOString()))) continue;
      await this.repos.portalSessions.deleteForMember(member.personToken, member.organizationToken);
      await this.audit.record(
        { type: 'operator', id: 'coffer', address: null },
        { organizationToken: member.organizationToken, action: 'user.disable', objectType: 'user', objectId: member.token, details: { email: member.email, reason: 'inactive', last_active_at: member.lastActiveAt, inactive_days: this.policy.inactiveDays } },
      );
      disabled += 1;
    }
    return disabled;
  }
}
