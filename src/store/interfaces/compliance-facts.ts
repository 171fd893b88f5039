/** What the compliance report reads of the store (docs/compliance.md). */
export interface ComplianceFactsRepository {
  /** Every data key: its environment, id, when it was made, and which master key wraps it. */
  dataKeys(): Promise<Array<{ id: string; environmentKey: string | null; createdAt: string; masterKeyId: string }>>;
  /** Every membership with its person's two-step state. */
  members(): Promise<Array<{ organizationToken: string; email: string; role: string; totpEnabled: boolean; disabled: boolean; lastActiveAt: string | null }>>;
  /** Every organization: token and name. */
  organizations(): Promise<Array<{ token: string; name: string }>>;
}
