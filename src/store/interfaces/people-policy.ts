/** What the PCI 8 people policies read and write (docs/compliance.md, "People"). */
export interface PeoplePolicyRepository {
  /** The organization's two-step setting as it set it; null when it never did. */
  twoStepSetting(organizationToken: string): Promise<boolean | null>;
  setTwoStepSetting(organizationToken: string, required: boolean | null, at: string): Promise<void>;
  hasProductionEnvironment(organizationToken: string): Promise<boolean>;
  /** The member signed in now. */
  touchMember(membershipToken: string, at: string): Promise<void>;
  /**
   * Enabled memberships whose last sign-in (or creation, when they never signed in) is before
   * `cutoff`: membership, person, organization, email.
   */
  inactiveMembers(cutoff: string): Promise<Array<{ token: string; personToken: string; organizationToken: string; email: string; lastActiveAt: string | null }>>;
  /** Disables the membership if it is still enabled; false when something else came first. */
  disableIfEnabled(membershipToken: string, at: string): Promise<boolean>;
}
