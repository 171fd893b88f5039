import { AppError, fieldError } from '../domain/errors.js';
import type { Clock } from '../domain/clock.js';
import { isPortalRole, type PortalRole } from '../domain/portal-roles.js';
import { randomToken, TOKEN_LENGTH } from '../domain/tokens.js';
import type { StoreAccess } from '../store/store-access.js';
import type { Repositories } from '../store/repositories.js';
import type { PortalSecretBox } from '../vault/portal-secret-box.js';
import { AuditService } from './audit.service.js';
import { checkNewPassword, generatePassword, hashPassword, normalizeEmail, PasswordVerifier } from './portal-credentials.js';
import { invitationGone, PortalInvitations } from './portal-invitations.js';
import { PortalLockout } from './portal-lockout.js';
import { PortalTotp } from './portal-totp.js';
import type { PortalMember, PortalMemberOrganization, PortalPerson } from '../domain/portal-people.js';
import { DEFAULT_PEOPLE_POLICY, type PeoplePolicy } from '../domain/people-policy.js';

/** The repositories this module reads and writes (docs/architecture.md, "Dependencies"). */
type Uses = 'auditEvents' | 'organizations' | 'peoplePolicy' | 'portalInvitations' | 'portalMemberships' | 'portalPeople' | 'portalSessions';

export { generatePassword, MIN_PASSWORD_LENGTH } from './portal-credentials.js';

/** A membership and, when Coffer generated the new person's password, that password, once. */
export interface CreatedUser {
  user: PortalMember;
  password: string | null;
  /** The person had an account already (in another organization): their password stays theirs. */
  existing: boolean;
}

/** What the invitation form submits: the person's password (or the one they choose) and code. */
export interface InvitationAnswer {
  password: string;
  passwordAgain: string;
  code: string;
}

/**
 * Portal people and their memberships (docs/portal.md "Accounts and organizations"): a person
 * (email, password, second factor, lockout) signs in once and acts in one organization at a time
 * through a membership (role, disabled). Organizations see only their own members.
 */
export class PortalUserService {
  readonly totp: PortalTotp;
  readonly lockout: PortalLockout;
  readonly invitations: PortalInvitations;
  private readonly repos: Pick<Repositories, Uses>;
  private readonly passwords = new PasswordVerifier();

  constructor(
    private readonly store: StoreAccess<Uses>,
    box: PortalSecretBox,
    private readonly clock: Clock,
    /** The PCI 8 policies as configured (COFFER_PORTAL_*). */
    readonly policy: PeoplePolicy = DEFAULT_PEOPLE_POLICY,
  ) {
    this.repos = store.repos;
    this.totp = new PortalTotp(this.repos, box, clock);
    this.lockout = new PortalLockout(this.repos, new AuditService(store, clock), clock, { failures: policy.lockoutFailures, durationMs: policy.lockoutMs });
    this.invitations = new PortalInvitations(this.repos, clock);
  }

  /**
   * The operator's way in (CLI, first start): a membership of the organization, and the person
   * when the email has none yet (with the given password, or a generated one returned once). An
   * existing person keeps their password: giving one for them is refused.
   */
  async create(organizationToken: string, input: { email: string; role: string; password: string | null }): Promise<CreatedUser> {
    const email = normalizeEmail(input.email);
    const role = input.role;
    if (!isPortalRole(role)) throw new AppError(fieldError.inclusion('role'));
    const existing = await this.repos.portalPeople.findByEmail(email);
    const password = existing === undefined ? (input.password ?? generatePassword()) : null;
    if (existing !== undefined && input.password !== null) {
      throw new AppError({ key: 'errors.invalid', attribute: 'password', message: 'Email already has a portal account: its password stays its own (leave the password out)' });
    }
    if (password !== null) checkNewPassword(password, this.policy.passwordMinLength);
    const organization = await this.repos.organizations.find(organizationToken);
    if (organization === undefined) throw new AppError({ key: 'errors.invalid', attribute: 'organization', message: 'Organization is invalid' });
    const passwordHash = password === null ? null : await hashPassword(password);
    const token = await this.store.unitOfWork(async (repos) => {
      const personToken = existing?.token ?? (await this.insertPerson(repos, email, passwordHash as string));
      if ((await repos.portalMemberships.of(personToken, organizationToken)) !== undefined) {
        throw new AppError({ key: 'errors.invalid', attribute: 'email', message: 'Email is already a member of this organization' });
      }
      return this.insertMembership(repos, personToken, organizationToken, role);
    });
    return { user: (await this.repos.portalMemberships.find(token)) as PortalMember, password: input.password === null ? password : null, existing: existing !== undefined };
  }

  /** The first owner of a fresh installation, unless the organization already has members. */
  async createInitialOwner(organizationToken: string, email: string): Promise<CreatedUser | null> {
    if ((await this.repos.portalMemberships.listByOrganization(organizationToken)).length > 0) return null;
    return this.create(organizationToken, { email, role: 'owner', password: null });
  }

  /** Members of an organization, oldest first. */
  list(organizationToken: string): Promise<PortalMember[]> {
    return this.repos.portalMemberships.listByOrganization(organizationToken);
  }

  /** A membership by its token. */
  find(token: string): Promise<PortalMember | undefined> {
    return this.repos.portalMemberships.find(token);
  }

  person(token: string): Promise<PortalPerson | undefined> {
    return this.repos.portalPeople.find(token);
  }

  /** The person with this email (CLI input), or an error naming none. */
  async requireByEmail(email: string): Promise<PortalPerson> {
    const person = await this.repos.portalPeople.findByEmail(normalizeEmail(email));
    if (person === undefined) throw userNotFound();
    return person;
  }

  /** Every membership of a person, with the organizations' names. */
  membershipsOf(personToken: string): Promise<PortalMemberOrganization[]> {
    return this.repos.portalMemberships.listByPerson(personToken);
  }

  /** The memberships a person may act through now (not disabled). */
  async activeMembershipsOf(personToken: string): Promise<PortalMemberOrganization[]> {
    return (await this.membershipsOf(personToken)).filter((member) => member.disabledAt === null);
  }

  /**
   * The person whose password this is, or null: unknown email, wrong password (counted towards
   * the lockout) or locked. The same argon2 work and one write are done in every case, so timing
   * does not tell which.
   */
  async authenticate(email: string, password: string, address: string | null): Promise<PortalPerson | null> {
    const person = await this.repos.portalPeople.findByEmail(email.trim().toLowerCase());
    if (person !== undefined) return this.checkPassword(person, password, address);
    await this.passwords.matches(null, password);
    await this.lockout.failWithoutCount();
    return null;
  }

  /** True when `password` is the person's and they are not locked; a wrong one counts as a failure. */
  async checkPassword(person: PortalPerson, password: string, address: string | null): Promise<PortalPerson | null> {
    const locked = this.lockout.isLocked(person);
    const matches = await this.passwords.matches(locked ? null : person.passwordHash, password);
    if (locked) {
      await this.lockout.failWithoutCount();
      return null;
    }
    if (!matches) {
      await this.lockout.fail(person, address);
      return null;
    }
    return person;
  }

  /** True once for a current code of the person's second factor; a wrong one counts as a failure. */
  async checkCode(person: PortalPerson, code: string, address: string | null): Promise<boolean> {
    const fresh = await this.repos.portalPeople.find(person.token);
    if (fresh === undefined || this.lockout.isLocked(fresh)) return false;
    if (await this.totp.accept(fresh, code)) return true;
    await this.lockout.fail(fresh, address);
    return false;
  }

  /**
   * Accepts an invitation: the invited email's person (their password, and code when two-step is
   * on) or, for an email without one, a new person with the password chosen here. Null when the
   * credentials were wrong; the membership joined otherwise. The link works once.
   */
  async acceptInvitation(secret: string, answer: InvitationAnswer, address: string | null): Promise<PortalMember | null> {
    const { invitation } = await this.invitations.open(secret);
    const existing = await this.repos.portalPeople.findByEmail(invitation.email);
    let passwordHash: string | null = null;
    if (existing !== undefined) {
      if ((await this.checkPassword(existing, answer.password, address)) === null) return null;
      if (existing.totpEnabled && !(await this.checkCode(existing, answer.code, address))) return null;
      await this.lockout.succeed(existing);
    } else {
      checkNewPassword(answer.password, this.policy.passwordMinLength);
      if (answer.password !== answer.passwordAgain) throw new AppError({ key: 'errors.invalid', attribute: 'password_again', message: 'The two passwords differ' });
      passwordHash = await hashPassword(answer.password);
    }
    const token = await this.store.unitOfWork(async (repos) => {
      if (!(await repos.portalInvitations.delete(invitation.token))) throw invitationGone();
      // The person checked above, or a new one (a person created meanwhile fails on the unique email).
      const person = existing?.token ?? (await this.insertPerson(repos, invitation.email, passwordHash as string));
      const member = await repos.portalMemberships.of(person, invitation.organizationToken);
      return member?.token ?? (await this.insertMembership(repos, person, invitation.organizationToken, invitation.role));
    });
    return (await this.repos.portalMemberships.find(token)) as PortalMember;
  }

  /** Sets a new password (given, or generated and returned once) and ends the person's sessions. */
  async resetPassword(personToken: string, password: string | null): Promise<string | null> {
    const next = password ?? generatePassword();
    checkNewPassword(next, this.policy.passwordMinLength);
    const passwordHash = await hashPassword(next);
    await this.store.unitOfWork(async (repos) => {
      if (!(await repos.portalPeople.update(personToken, { passwordHash, updatedAt: this.now() }))) throw userNotFound();
      await repos.portalSessions.deleteForPerson(personToken);
    });
    return password === null ? next : null;
  }

  /** Turns a person's second factor off and ends their sessions (the operator, for a lost device). */
  async resetTwoStep(personToken: string): Promise<void> {
    await this.totp.remove(personToken);
    await this.repos.portalSessions.deleteForPerson(personToken);
  }

  async setRole(token: string, role: string): Promise<void> {
    if (!isPortalRole(role)) throw new AppError(fieldError.inclusion('role'));
    await this.store.unitOfWork(async (repos) => {
      const member = await requireMember(repos, token);
      if (member.role === 'owner' && role !== 'owner') await refuseLastOwner(repos, member);
      await repos.portalMemberships.update(token, { role, updatedAt: this.now() });
      await repos.portalSessions.deleteForMember(member.personToken, member.organizationToken);
    });
  }

  /** Disables (or enables again) a membership; disabling ends its sessions at once. */
  async setDisabled(token: string, disabled: boolean): Promise<void> {
    await this.store.unitOfWork(async (repos) => {
      const member = await requireMember(repos, token);
      if (disabled && member.role === 'owner' && member.disabledAt === null) await refuseLastOwner(repos, member);
      await repos.portalMemberships.update(token, { disabledAt: disabled ? this.now() : null, updatedAt: this.now() });
      if (disabled) await repos.portalSessions.deleteForMember(member.personToken, member.organizationToken);
      // Enabled again: inactivity counts from now, or the next sweep would disable it at once.
      else await repos.peoplePolicy.touchMember(token, this.now());
    });
  }

  /**
   * Removes a membership: the person loses this organization only. A person left without any
   * membership is deleted too (no password hash kept for nothing).
   */
  async remove(token: string): Promise<PortalMember> {
    return this.store.unitOfWork(async (repos) => {
      const member = await requireMember(repos, token);
      if (member.role === 'owner' && member.disabledAt === null) await refuseLastOwner(repos, member);
      await repos.portalSessions.deleteForMember(member.personToken, member.organizationToken);
      await repos.portalMemberships.delete(token);
      if ((await repos.portalMemberships.countForPerson(member.personToken)) === 0) {
        await repos.portalSessions.deleteForPerson(member.personToken);
        await repos.portalPeople.delete(member.personToken);
      }
      return member;
    });
  }

  private async insertPerson(repos: Pick<Repositories, Uses>, email: string, passwordHash: string): Promise<string> {
    const now = this.now();
    const token = randomToken(TOKEN_LENGTH.item);
    await repos.portalPeople.insert({ token, email, passwordHash, totpSecret: null, totpPendingSecret: null, totpEnabled: false, totpLastStep: null, lockedUntil: null, createdAt: now, updatedAt: now });
    return token;
  }

  private async insertMembership(repos: Pick<Repositories, Uses>, personToken: string, organizationToken: string, role: PortalRole): Promise<string> {
    const now = this.now();
    const token = randomToken(TOKEN_LENGTH.item);
    await repos.portalMemberships.insert({ token, personToken, organizationToken, role, disabledAt: null, createdAt: now, updatedAt: now });
    return token;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}

function userNotFound(): AppError {
  return new AppError({ key: 'errors.user_not_found', message: 'Unable to find the specified user.' });
}

async function requireMember(repos: Pick<Repositories, Uses>, token: string): Promise<PortalMember> {
  const member = await repos.portalMemberships.find(token);
  if (member === undefined) throw userNotFound();
  return member;
}

async function refuseLastOwner(repos: Pick<Repositories, Uses>, member: PortalMember): Promise<void> {
  if ((await repos.portalMemberships.countActiveOwners(member.organizationToken)) <= 1) {
    throw new AppError({ key: 'errors.invalid', attribute: 'role', message: 'The last owner cannot be demoted, disabled or removed' });
  }
}
