import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { ComplianceFactsRepository } from '../interfaces/compliance-facts.js';

/** What the compliance report reads of the store (docs/compliance.md). */
export class ComplianceFactsRepo implements ComplianceFactsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async dataKeys(): Promise<Array<{ id: string; environmentKey: string | null; createdAt: string; masterKeyId: string }>> {
    const rows = await this.db.selectFrom('wrapped_keys').select(['id', 'environment_key', 'created_at', 'master_key_id']).where('purpose', '=', 'data').orderBy('created_at').execute();
    return rows.map((row) => ({ id: row.id, environmentKey: row.environment_key, createdAt: row.created_at, masterKeyId: row.master_key_id }));
  }

  async members(): Promise<Array<{ organizationToken: string; email: string; role: string; totpEnabled: boolean; disabled: boolean; lastActiveAt: string | null }>> {
    const rows = await this.db
      .selectFrom('portal_memberships as m')
      .innerJoin('portal_people as p', 'p.token', 'm.person_token')
      .select(['m.organization_token', 'p.email', 'm.role', 'p.totp_enabled', 'm.disabled_at', 'm.last_active_at'])
      .orderBy('m.seq')
      .execute();
    return rows.map((row) => ({ organizationToken: row.organization_token, email: row.email, role: row.role, totpEnabled: row.totp_enabled === 1, disabled: row.disabled_at !== null, lastActiveAt: row.last_active_at }));
  }

  async organizations(): Promise<Array<{ token: string; name: string }>> {
    return this.db.selectFrom('organizations').select(['token', 'name']).orderBy('created_at').execute();
  }
}
