import { randomBytes } from 'node:crypto';
import { Algorithm, hash, verify } from '@node-rs/argon2';
import * as OTPAuth from 'otpauth';
import { AppError, fieldError } from '../domain/errors.js';
import type { Clock } from '../domain/clock.js';
import { isPortalRole } from '../domain/portal-roles.js';
import { randomToken, TOKEN_LENGTH } from '../domain/tokens.js';
import type { StoreHandle } from '../store/database.js';
import { inTransaction, repositories, type Repositories } from '../store/repositories.js';
import type { PortalUserRow } from '../store/repositories/portal-users.repo.js';
import type { PortalSecretBox } from '../vault/portal-secret-box.js';

/** OWASP's argon2id minimum (19 MiB, 2 passes, 1 lane): tens of ms, paid at sign-in only. */
const ARGON2 = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
export const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 256;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;
const TOTP = { issuer: 'Coffer', algorithm: 'SHA1', digits: 6, period: 30 } as const;

/** A user and, when Coffer generated it, the password to hand over once. */
export interface CreatedUser {
  user: PortalUserRow;
  password: string | null;
}

/** A TOTP enrolment in progress: the secret to type or scan, once. */
export interface TotpEnrolment {
  secret: string;
  uri: string;
}

/** A password people can type: 20 base-62 characters (~119 bits). */
export function generatePassword(): string {
  return randomToken(20);
}

/** Portal users: accounts, passwords (argon2id), roles and the optional TOTP second factor. */
export class PortalUserService {
  private readonly repos: Repositories;
  /** Verified against for unknown emails, so a wrong email costs what a wrong password does. */
  private readonly decoy: Promise<string>;

  constructor(
    private readonly store: StoreHandle,
    private readonly box: PortalSecretBox,
    private readonly clock: Clock,
  ) {
    this.repos = repositories(store.db, store.dialect);
    this.decoy = hash(randomBytes(16).toString('hex'), ARGON2);
  }

  /** Creates a user; without a password one is generated and returned once. */
  async create(organizationToken: string, input: { email: string; role: string; password: string | null }): Promise<CreatedUser> {
    const email = normalizeEmail(input.email);
    if (!isPortalRole(input.role)) throw new AppError(fieldError.inclusion('role'));
    const password = input.password ?? generatePassword();
    checkPassword(password);
    const organization = await this.repos.organizations.find(organizationToken);
    if (organization === undefined) throw new AppError({ key: 'errors.invalid', attribute: 'organization', message: 'Organization is invalid' });
    if ((await this.repos.portalUsers.findByEmail(email)) !== undefined) {
      throw new AppError({ key: 'errors.invalid', attribute: 'email', message: 'Email is already taken' });
    }
    const now = this.now();
    const token = randomToken(TOKEN_LENGTH.item);
    await this.repos.portalUsers.insert({
      token,
      organization_token: organizationToken,
      email,
      role: input.role,
      password_hash: await hash(password, ARGON2),
      totp_secret: null,
      totp_enabled: 0,
      disabled_at: null,
      created_at: now,
      updated_at: now,
    });
    return { user: (await this.repos.portalUsers.find(token)) as PortalUserRow, password: input.password === null ? password : null };
  }

  /** The first owner of a fresh installation, unless the organization already has users. */
  async createInitialOwner(organizationToken: string, email: string): Promise<CreatedUser | null> {
    if ((await this.repos.portalUsers.listByOrganization(organizationToken)).length > 0) return null;
    return this.create(organizationToken, { email, role: 'owner', password: null });
  }

  list(organizationToken: string): Promise<PortalUserRow[]> {
    return this.repos.portalUsers.listByOrganization(organizationToken);
  }

  find(token: string): Promise<PortalUserRow | undefined> {
    return this.repos.portalUsers.find(token);
  }

  /** The user with this email (CLI input), or an error naming it. */
  async requireByEmail(email: string): Promise<PortalUserRow> {
    const user = await this.repos.portalUsers.findByEmail(normalizeEmail(email));
    if (user === undefined) throw new AppError({ key: 'errors.user_not_found', message: 'Unable to find the specified user.' });
    return user;
  }

  /**
   * The enabled user whose password this is, or null. The same argon2 work is done whether the
   * email exists or not, so timing does not tell which was wrong.
   */
  async checkPassword(email: string, password: string): Promise<PortalUserRow | null> {
    const user = await this.repos.portalUsers.findByEmail(email.trim().toLowerCase());
    const candidate = password.length > MAX_PASSWORD_LENGTH ? '' : password;
    const matches = await verify(user?.password_hash ?? (await this.decoy), candidate).catch(() => false);
    if (user === undefined || !matches || user.disabled_at !== null) return null;
    return user;
  }

  /** Sets a new password (given, or generated and returned once) and ends the user's sessions. */
  async resetPassword(token: string, password: string | null): Promise<string | null> {
    const next = password ?? generatePassword();
    checkPassword(next);
    const passwordHash = await hash(next, ARGON2);
    await inTransaction(this.store, async (repos) => {
      if (!(await repos.portalUsers.update(token, { password_hash: passwordHash, updated_at: this.now() }))) throw userNotFound();
      await repos.portalSessions.deleteForUser(token);
    });
    return password === null ? next : null;
  }

  async setRole(token: string, role: string): Promise<void> {
    if (!isPortalRole(role)) throw new AppError(fieldError.inclusion('role'));
    await inTransaction(this.store, async (repos) => {
      const user = await repos.portalUsers.find(token);
      if (user === undefined) throw userNotFound();
      if (user.role === 'owner' && role !== 'owner') await refuseLastOwner(repos, user);
      await repos.portalUsers.update(token, { role, updated_at: this.now() });
      await repos.portalSessions.deleteForUser(token);
    });
  }

  /** Disables (or enables again) a user; disabling ends every session at once. */
  async setDisabled(token: string, disabled: boolean): Promise<void> {
    await inTransaction(this.store, async (repos) => {
      const user = await repos.portalUsers.find(token);
      if (user === undefined) throw userNotFound();
      if (disabled && user.role === 'owner' && user.disabled_at === null) await refuseLastOwner(repos, user);
      await repos.portalUsers.update(token, { disabled_at: disabled ? this.now() : null, updated_at: this.now() });
      if (disabled) await repos.portalSessions.deleteForUser(token);
    });
  }

  /** Starts (or restarts) TOTP enrolment: a new secret, not yet required at sign-in. */
  async beginTotp(user: PortalUserRow): Promise<TotpEnrolment> {
    const secret = new OTPAuth.Secret({ size: 20 });
    const sealed = await this.box.seal(secret.base32, `totp:${user.token}`);
    await this.repos.portalUsers.update(user.token, { totp_secret: sealed, totp_enabled: 0, updated_at: this.now() });
    return { secret: secret.base32, uri: totpFor(user.email, secret.base32).toString() };
  }

  /** Turns the second factor on when `code` matches the pending secret. */
  async confirmTotp(user: PortalUserRow, code: string): Promise<boolean> {
    if (user.totp_secret === null || !(await this.codeMatches(user, code))) return false;
    await this.repos.portalUsers.update(user.token, { totp_enabled: 1, updated_at: this.now() });
    return true;
  }

  async disableTotp(user: PortalUserRow): Promise<void> {
    await this.repos.portalUsers.update(user.token, { totp_secret: null, totp_enabled: 0, updated_at: this.now() });
  }

  /** True when `code` is the user's current TOTP code (one step of clock drift either way). */
  async codeMatches(user: PortalUserRow, code: string): Promise<boolean> {
    if (user.totp_secret === null || !/^\d{6}$/.test(code.trim())) return false;
    const secret = await this.box.open(user.totp_secret, `totp:${user.token}`);
    const delta = totpFor(user.email, secret).validate({ token: code.trim(), timestamp: this.clock.now().getTime(), window: 1 });
    return delta !== null;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}

function totpFor(email: string, base32: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ ...TOTP, label: email, secret: OTPAuth.Secret.fromBase32(base32) });
}

function normalizeEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (trimmed === '') throw new AppError(fieldError.blank('email'));
  if (!EMAIL.test(trimmed)) throw new AppError(fieldError.invalid('email'));
  return trimmed;
}

function checkPassword(password: string): void {
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new AppError({ key: 'errors.invalid', attribute: 'password', message: `Password is too short (minimum is ${MIN_PASSWORD_LENGTH} characters)` });
  }
  if (password.length > MAX_PASSWORD_LENGTH) throw new AppError(fieldError.tooLong('password', MAX_PASSWORD_LENGTH));
}

function userNotFound(): AppError {
  return new AppError({ key: 'errors.user_not_found', message: 'Unable to find the specified user.' });
}

async function refuseLastOwner(repos: Repositories, user: PortalUserRow): Promise<void> {
  if ((await repos.portalUsers.countActiveOwners(user.organization_token)) <= 1) {
    throw new AppError({ key: 'errors.invalid', attribute: 'role', message: 'The last owner cannot be demoted or disabled' });
  }
}
