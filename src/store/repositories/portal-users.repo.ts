import type { PortalPeopleRepository, PortalMembershipsRepository } from '../interfaces/portal-users.js';
import type { Kysely } from 'kysely';
import type { Database } from '../schema.js';
import {
  newPortalMembershipRow,
  newPortalPersonRow,
  portalMemberOf,
  portalMemberOrganizationOf,
  portalMembershipChanges,
  portalPersonChanges,
  portalPersonOf,
} from '../mappers/portal-people.js';
import type {
  NewPortalPerson,
  PortalMember,
  PortalMemberOrganization,
  PortalMembership,
  PortalMembershipPatch,
  PortalPerson,
  PortalPersonPatch,
} from '../../domain/portal-people.js';

/** Single-query primitives over `portal_people`. */
export class PortalPeopleRepo implements PortalPeopleRepository {
  constructor(private readonly db: Kysely<Database>) {}

  async insert(person: NewPortalPerson): Promise<void> {
    await this.db.insertInto('portal_people').values(newPortalPersonRow(person)).execute();
  }

  async find(token: string): Promise<PortalPerson | undefined> {
    const row = await this.db.selectFrom('portal_people').selectAll().where('token', '=', token).executeTakeFirst();
    return row === undefined ? undefined : portalPersonOf(row);
  }

  async findByEmail(email: string): Promise<PortalPerson | undefined> {
    const row = await this.db.selectFrom('portal_people').selectAll().where('email', '=', email).executeTakeFirst();
    return row === undefined ? undefined : portalPersonOf(row);
  }

  async update(token: string, patch: PortalPersonPatch): Promise<boolean> {
    const result = await this.db.updateTable('portal_people').set(portalPersonChanges(patch)).where('token', '=', token).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(token: string): Promise<void> {
    await this.db.deleteFrom('portal_people').where('token', '=', token).execute();
  }

  /** Counts one failed sign-in, in one statement (several nodes may count at once); the new count. */
  async addFailure(token: string): Promise<number> {
    const row = await this.db
      .updateTable('portal_people')
      .set((eb) => ({ failed_sign_ins: eb('failed_sign_ins', '+', 1) }))
      .where('token', '=', token)
      .returning('failed_sign_ins')
      .executeTakeFirst();
    return Number(row?.failed_sign_ins ?? 0);
  }

  /**
   * The write of a counted failure, changing nothing (one row's count set to itself): a refused
   * sign-in of an unknown email or a locked person costs the same write as a wrong password, so
   * its time does not tell which it was (docs/portal.md "Lockout").
   */
  async decoyFailure(): Promise<void> {
    const first = this.db.selectFrom('portal_people').select((eb) => eb.fn.min('seq').as('seq'));
    await this.db
      .updateTable('portal_people')
      .set((eb) => ({ failed_sign_ins: eb.ref('failed_sign_ins') }))
      .where('seq', '=', first)
      .returning('failed_sign_ins')
      .executeTakeFirst();
  }

  /**
   * Locks the person when the failures reached `limit`, restarting the count. True for the one
   * caller that locked (of several nodes counting the same failures), which records it.
   */
  async lockAt(token: string, limit: number, until: string): Promise<boolean> {
    const result = await this.db
      .updateTable('portal_people')
      .set({ locked_until: until, failed_sign_ins: 0 })
      .where('token', '=', token)
      .where('failed_sign_ins', '>=', limit)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /** A success: the failures start again from zero (no write when there were none). */
  async clearFailures(token: string): Promise<void> {
    await this.db.updateTable('portal_people').set({ failed_sign_ins: 0 }).where('token', '=', token).where('failed_sign_ins', '>', 0).execute();
  }

  /**
   * Records `step` as the last accepted TOTP step when it is newer than the last one and the
   * secret is still `secret`: one statement, so two nodes given the same code accept it once.
   */
  async advanceTotpStep(token: string, secret: string, step: number): Promise<boolean> {
    const result = await this.db
      .updateTable('portal_people')
      .set({ totp_last_step: step })
      .where('token', '=', token)
      .where('totp_secret', '=', secret)
      .where((eb) => eb.or([eb('totp_last_step', 'is', null), eb('totp_last_step', '<', step)]))
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  /**
   * Makes the pending secret the one in use, if it is still `pending` (not replaced meanwhile);
   * `lastStep` is the step of the code that proved it.
   */
  async promotePendingTotp(token: string, pending: string, lastStep: number, updatedAt: string): Promise<boolean> {
    const result = await this.db
      .updateTable('portal_people')
      .set({ totp_secret: pending, totp_pending_secret: null, totp_enabled: 1, totp_last_step: lastStep, updated_at: updatedAt })
      .where('token', '=', token)
      .where('totp_pending_secret', '=', pending)
      .executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }
}

/** Single-query primitives over `portal_memberships` (joined with their people). */
export class PortalMembershipsRepo implements PortalMembershipsRepository {
  constructor(private readonly db: Kysely<Database>) {}

  private members() {
    return this.db
      .selectFrom('portal_memberships as m')
      .innerJoin('portal_people as p', 'p.token', 'm.person_token')
      .select(['m.token', 'm.person_token', 'm.organization_token', 'm.role', 'm.disabled_at', 'm.created_at', 'p.email', 'p.totp_enabled', 'p.locked_until']);
  }

  async insert(membership: PortalMembership): Promise<void> {
    await this.db.insertInto('portal_memberships').values(newPortalMembershipRow(membership)).execute();
  }

  async find(token: string): Promise<PortalMember | undefined> {
    const row = await this.members().where('m.token', '=', token).executeTakeFirst();
    return row === undefined ? undefined : portalMemberOf(row);
  }

  /** The person's membership in the organization, if any. */
  async of(personToken: string, organizationToken: string): Promise<PortalMember | undefined> {
    const row = await this.members().where('m.person_token', '=', personToken).where('m.organization_token', '=', organizationToken).executeTakeFirst();
    return row === undefined ? undefined : portalMemberOf(row);
  }

  /** Every member of an organization, oldest first (teams are small). */
  async listByOrganization(organizationToken: string): Promise<PortalMember[]> {
    return (await this.members().where('m.organization_token', '=', organizationToken).orderBy('m.seq', 'asc').execute()).map(portalMemberOf);
  }

  /** Every membership of a person, oldest first, with the organization's name. */
  async listByPerson(personToken: string): Promise<PortalMemberOrganization[]> {
    const rows = await this.members()
      .innerJoin('organizations as o', 'o.token', 'm.organization_token')
      .select('o.name as organization_name')
      .where('m.person_token', '=', personToken)
      .orderBy('m.seq', 'asc')
      .execute();
    return rows.map(portalMemberOrganizationOf);
  }

  /** Active owners of an organization: the last one may not be demoted, disabled or removed. */
  async countActiveOwners(organizationToken: string): Promise<number> {
    const row = await this.db
      .selectFrom('portal_memberships')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('organization_token', '=', organizationToken)
      .where('role', '=', 'owner')
      .where('disabled_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async update(token: string, patch: PortalMembershipPatch): Promise<boolean> {
    const result = await this.db.updateTable('portal_memberships').set(portalMembershipChanges(patch)).where('token', '=', token).executeTakeFirst();
    return Number(result.numUpdatedRows) > 0;
  }

  async delete(token: string): Promise<void> {
    await this.db.deleteFrom('portal_memberships').where('token', '=', token).execute();
  }

  async countForPerson(personToken: string): Promise<number> {
    const row = await this.db
      .selectFrom('portal_memberships')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('person_token', '=', personToken)
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }
}
