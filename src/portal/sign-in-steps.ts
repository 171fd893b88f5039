import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import { clientKey } from '../http/rate-limit.js';
import type { RateLimitCheck } from '../limits/rate-limiter.js';
import { LOCKOUT } from '../services/portal-lockout.js';
import type { PortalMember } from '../domain/portal-people.js';
import type { PortalDeps } from './context.js';
import { cookieOf, SESSION_COOKIE, SIGN_IN_COOKIE, setCookie } from './cookies.js';
import { html } from './html.js';
import { barePage, sendPage } from './layout.js';

/*
 * The steps every way into the portal shares (sign-in, the second factor, an invitation): the
 * attempt budgets, the sign-in form's CSRF token, and starting the session.
 */


/**
 * API.md §7 "portal sign-in": every credential check (password, code; at sign-in, on an
 * invitation, in "Your account") counts against two budgets, right or wrong, so a guesser gains
 * nothing by alternating: the account's budget *per client address* (`portal_sign_in_account`)
 * and the address's own (`portal_sign_in_ip`). The account budget is per address so that
 * strangers elsewhere cannot spend the owner's: it only slows each source below the lockout
 * (docs/portal.md "Lockout"), which is what stops a guesser spread over many addresses.
 * The account key is a hash: emails never reach Redis. Returns the wait in seconds when refused.
 */
export async function spendSignInAttempt(deps: PortalDeps, request: FastifyRequest, email: string): Promise<number | null> {
  const limits = deps.rateLimiting;
  const checks: RateLimitCheck[] = [];
  const account = limits.rules.portal_sign_in_account;
  const address = limits.rules.portal_sign_in_ip;
  const source = clientKey(request.ip ?? 'unknown');
  const accountHash = createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
  // One hash tag for both keys: a Redis Cluster runs the check in one slot.
  if (account !== null) checks.push({ key: `{portal-sign-in}:account:${accountHash}:${source}`, limit: account.limit, windowMs: account.windowSeconds * 1000 });
  if (address !== null) checks.push({ key: `{portal-sign-in}:ip:${source}`, limit: address.limit, windowMs: address.windowSeconds * 1000 });
  if (checks.length === 0) return null;
  const outcome = await limits.limiter.consume(checks, limits.clock.now().getTime());
  if (outcome.allowed) return null;
  // The verdicts follow the checks: the account's budget first when it is set.
  outcome.verdicts.forEach((verdict, i) => {
    if (verdict.exhausted) limits.onRefused?.(i === 0 && account !== null ? 'portal_sign_in_account' : 'portal_sign_in_ip');
  });
  const waitMs = Math.max(...outcome.verdicts.filter((v) => v.exhausted).map((v) => v.resetMs));
  return Math.max(1, Math.ceil(waitMs / 1000));
}

/** The 429 page of a spent budget, with Retry-After, around the form to try again with. */
export function tooManyAttempts(reply: FastifyReply, seconds: number, title: string, form: ReturnType<typeof html>): FastifyReply {
  reply.header('Retry-After', String(seconds));
  const minutes = Math.ceil(seconds / 60);
  return sendPage(reply, barePage(title, form, { kind: 'error', text: `Too many sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` }), 429);
}

/** For a signed-in page: spends an attempt, or refuses the request with 429 and Retry-After. */
export async function requireSignInAttempt(deps: PortalDeps, request: FastifyRequest, email: string): Promise<void> {
  const wait = await spendSignInAttempt(deps, request, email);
  if (wait !== null) throw new AppError({ key: 'errors.rate_limited', message: 'Too many attempts. Try again later.' }, { 'Retry-After': String(wait) });
}

/**
 * Shown with every refused attempt, whatever the reason (unknown email, wrong password, locked):
 * the same words in every case, so they tell nobody whether an account exists or is locked.
 */
export const LOCKOUT_HINT = lockoutHint(LOCKOUT);

/** The hint for the lockout as configured (COFFER_PORTAL_LOCKOUT_*). */
export function lockoutHint(policy: { failures: number; durationMs: number }) {
  return html`<p class="hint">After ${policy.failures} failed attempts an account is locked for ${Math.round(policy.durationMs / 60_000)} minutes; an owner or admin of your organization can unlock it sooner.</p>`;
}

/** A fresh double-submit token for a form without a session to hold one (sign-in, invitation). */
export function issueSignInToken(reply: FastifyReply): string {
  const token = randomBytes(24).toString('base64url');
  setCookie(reply, SIGN_IN_COOKIE, token, 3600);
  return token;
}

/** The double-submit check: the form's `_csrf` is the cookie's value. */
export function signInTokenMatches(request: FastifyRequest, submitted: unknown): boolean {
  const cookie = cookieOf(request, SIGN_IN_COOKIE);
  if (cookie === null || typeof submitted !== 'string' || cookie.length !== submitted.length) return false;
  return timingSafeEqual(Buffer.from(cookie), Buffer.from(submitted));
}

/** Where a signed-in person goes first: the organization chooser when they have several. */
export function homeFor(members: readonly PortalMember[]): string {
  return members.length > 1 ? '/portal/organizations' : '/portal/';
}

/** Records a sign-in into the member's organization (only that one: the others learn nothing). */
export async function auditSignIn(deps: PortalDeps, request: FastifyRequest, member: PortalMember): Promise<void> {
  await deps.peoplePolicy.signedIn(member.token);
  await deps.audit.record({ type: 'user', id: member.email, address: request.ip ?? null }, { organizationToken: member.organizationToken, action: 'user.sign_in', objectType: 'user', objectId: member.token });
}

/**
 * Starts a session for `member` (fully signed in when `stage` is 'active') in the member's
 * organization, at its first environment, and sets the cookie.
 */
export async function startSession(deps: PortalDeps, request: FastifyRequest, reply: FastifyReply, member: PortalMember, stage: 'password' | 'active'): Promise<void> {
  const environments = await deps.tenancy.listEnvironments(member.organizationToken, { sinceToken: null, order: 'asc', count: 1 });
  // Sessions abandoned without signing out are removed here, past their absolute expiry.
  await deps.portalSessions.sweepExpired();
  const created = await deps.portalSessions.start(member, stage, request.ip ?? 'unknown', environments[0]?.key ?? null);
  setCookie(reply, SESSION_COOKIE, created.cookie, null);
  setCookie(reply, SIGN_IN_COOKIE, '', 0);
  if (stage === 'active') await auditSignIn(deps, request, member);
}

