import * as OTPAuth from 'otpauth';
import type { Clock } from '../domain/clock.js';
import type { Repositories } from '../store/repositories.js';
import type { PortalSecretBox } from '../vault/portal-secret-box.js';
import type { PortalPerson } from '../domain/portal-people.js';

const TOTP = { issuer: 'Coffer', algorithm: 'SHA1', digits: 6, period: 30 } as const;
/** One step of clock drift either way (RFC 6238 §5.2). */
const WINDOW = 1;

/** A TOTP set-up in progress: the secret to type or scan, once. */
export interface TotpEnrolment {
  secret: string;
  uri: string;
}

function totpFor(email: string, base32: string): OTPAuth.TOTP {
  return new OTPAuth.TOTP({ ...TOTP, label: email, secret: OTPAuth.Secret.fromBase32(base32) });
}

/**
 * A person's TOTP second factor (RFC 6238). The secrets are sealed (vault/portal-secret-box.ts,
 * with the person's token as associated data). A code is accepted once: the step it belongs to
 * must be newer than the last accepted one, which the store keeps (so it holds across nodes and
 * restarts). Setting up a new secret never touches the one in use until a code of the new one
 * is typed (docs/portal.md "Two-step verification").
 */
export class PortalTotp {
  constructor(
    private readonly repos: Pick<Repositories, 'portalPeople'>,
    private readonly box: PortalSecretBox,
    private readonly clock: Clock,
  ) {}

  /** True once: when `code` is a current code of the person's secret, for a step newer than the last accepted. */
  async accept(person: PortalPerson, code: string): Promise<boolean> {
    if (!person.totpEnabled || person.totpSecret === null) return false;
    const step = await this.stepOf(person, person.totpSecret, code);
    return step !== null && this.repos.portalPeople.advanceTotpStep(person.token, person.totpSecret, step);
  }

  /** Starts setting up a new secret, kept pending: the one in use (if any) stays in force. */
  async begin(person: PortalPerson): Promise<TotpEnrolment> {
    const secret = new OTPAuth.Secret({ size: 20 });
    const sealed = await this.box.seal(secret.base32, `totp:${person.token}`);
    await this.repos.portalPeople.update(person.token, { totpPendingSecret: sealed, updatedAt: this.now() });
    return { secret: secret.base32, uri: totpFor(person.email, secret.base32).toString() };
  }

  /** Puts the pending secret in force when `code` is one of its current codes. */
  async confirm(person: PortalPerson, code: string): Promise<boolean> {
    const pending = person.totpPendingSecret;
    if (pending === null) return false;
    const step = await this.stepOf(person, pending, code);
    if (step === null) return false;
    // A code of the old secret for a later step than this one stays refused as well.
    return this.repos.portalPeople.promotePendingTotp(person.token, pending, Math.max(step, person.totpLastStep ?? step), this.now());
  }

  /** Turns the second factor off (the caller checked a current code, or is the operator). */
  async remove(personToken: string): Promise<void> {
    await this.repos.portalPeople.update(personToken, { totpSecret: null, totpPendingSecret: null, totpEnabled: false, updatedAt: this.now() });
  }

  /** The time step `code` belongs to under the sealed secret, or null when it is no current code. */
  private async stepOf(person: PortalPerson, sealed: string, code: string): Promise<number | null> {
    const typed = code.trim();
    if (!/^\d{6}$/.test(typed)) return null;
    const secret = await this.box.open(sealed, `totp:${person.token}`);
    const now = this.clock.now().getTime();
    const delta = totpFor(person.email, secret).validate({ token: typed, timestamp: now, window: WINDOW });
    return delta === null ? null : Math.floor(now / 1000 / TOTP.period) + delta;
  }

  private now(): string {
    return this.clock.now().toISOString();
  }
}
