import { randomBytes } from 'node:crypto';
import { Algorithm, hash, verify } from '@node-rs/argon2';
import { AppError, fieldError } from '../domain/errors.js';
import { randomToken } from '../domain/tokens.js';

/** OWASP's argon2id minimum (19 MiB, 2 passes, 1 lane): tens of ms, paid at sign-in only. */
const ARGON2 = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;
export const MIN_PASSWORD_LENGTH = 12;
const MAX_PASSWORD_LENGTH = 256;
const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,255}$/;

/** A password people can type: 20 base-62 characters (~119 bits). */
export function generatePassword(): string {
  return randomToken(20);
}

export function hashPassword(password: string): Promise<string> {
  return hash(password, ARGON2);
}

/**
 * Verifies a password against a hash, or against a decoy hash when there is no person (or the
 * person is locked), so the time taken does not tell which it was.
 */
export class PasswordVerifier {
  private readonly decoy = hash(randomBytes(16).toString('hex'), ARGON2);

  async matches(passwordHash: string | null, password: string): Promise<boolean> {
    const candidate = password.length > MAX_PASSWORD_LENGTH ? '' : password;
    const matched = await verify(passwordHash ?? (await this.decoy), candidate).catch(() => false);
    return passwordHash !== null && matched;
  }
}

/** An email as stored (lower case), or a field error. */
export function normalizeEmail(email: string): string {
  const trimmed = email.trim().toLowerCase();
  if (trimmed === '') throw new AppError(fieldError.blank('email'));
  if (!EMAIL.test(trimmed)) throw new AppError(fieldError.invalid('email'));
  return trimmed;
}

/** Refuses a new password that is too short (`minLength`, COFFER_PORTAL_PASSWORD_MIN_LENGTH) or too long. */
export function checkNewPassword(password: string, minLength: number = MIN_PASSWORD_LENGTH): void {
  if (password.length < minLength) {
    throw new AppError({ key: 'errors.invalid', attribute: 'password', message: `Password is too short (minimum is ${minLength} characters)` });
  }
  if (password.length > MAX_PASSWORD_LENGTH) throw new AppError(fieldError.tooLong('password', MAX_PASSWORD_LENGTH));
}
