import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import type { PeoplePolicyRepository } from '../interfaces/people-policy.js';

/** What the PCI 8 people policies read and write (docs/compliance.md, "People"). */
export class PeoplePolicyRepo implements PeoplePolicyRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async twoStepSetting(organizationToken: string): Promise<boolean | null> {
    const row = await this.db.selectFrom('organizations').select('require_two_step').where('token', '=', organizationToken).executeTakeFirst();
    return row === undefined || row.require_two_step === null ? null : row.require_two_step === 1;
  }

  async setTwoStepSetting(organizationToken: string, required: boolean | null, at: string): Promise<void> {
    await this.db
      .updateTable('organizations')
      .set({ require_two_step: required === null ? null : required ? 1 : 0, updated_at: at })
      .where('token', '=', organizationToken)
      .execute();
  }

  async hasProductionEnvironment(organizationToken: string): Promise<boolean> {
    const row = await this.db.selectFrom('environments').select('key').where('organization_token', '=', organizationToken).where('production', '=', 1).limit(1).executeTakeFirst();
    return row !== undefined;
  }

  async touchMember(membershipToken: string, at: string): Promise<void> {
    await this.db.updateTable('portal_memberships').set({ last_active_at: at }).where('token', '=', membershipToken).execute();
  }

  async inactiveMembers(cutoff: string): Promise<Array<{ token: string; personToken: string; organizationToken: string; email: string; lastActiveAt: string | null }>> {
    const rows = await this.db
      .selectFrom('portal_memberships as m')
      .innerJoin('portal_people as p', 'p.token', 'm.person_token')
      .select(['m.token', 'm.person_token', 'm.organization_token', 'p.email', 'm.last_active_at'])
      .where('m.disabled_at', 'is', null)
      .where((eb) => eb.or([eb('m.last_active_at', '<', cutoff), eb.and([eb('m.last_active_at', 'is', null), eb('m.created_at', '<', cutoff)])]))
      .orderBy('m.seq')
      .execute();
    return rows.map((row) => ({ token: row.token, personToken: row.person_token, organizationToken: row.organization_token, email: row.email, lastActiveAt: row.last_active_at }));
  }

  async disableIfEnabled(membershipToken: string, at: string): Promise<boolean> {
    const result = await this.db.updateTable('portal_memberships').set({ disabled_at: at, updated_at: at }).where('token', '=', membershipToken).where('disabled_at', 'is', null).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}
