import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { clientKey } from '../../http/rate-limit.js';
import type { RateLimitCheck } from '../../limits/rate-limiter.js';
import type { PortalUserRow } from '../../store/repositories/portal-users.repo.js';
import { formOf, sessionOf, type PortalDeps } from '../context.js';
import { cookieOf, SESSION_COOKIE, SIGN_IN_COOKIE, setCookie } from '../cookies.js';
import { html } from '../html.js';
import { barePage, csrfField, sendPage } from '../layout.js';

export const INVALID_CREDENTIALS = 'Invalid email or password';

function signInForm(token: string, email: string): ReturnType<typeof html> {
  return html`<form class="stack" method="post" action="/portal/sign-in">
  <input type="hidden" name="_csrf" value="${token}">
  <div class="field"><label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${email}"></div>
  <div class="field"><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required></div>
  <button class="primary" type="submit">Sign in</button>
</form>`;
}

function codeForm(request: FastifyRequest): ReturnType<typeof html> {
  return html`<form class="stack" method="post" action="/portal/sign-in/code">
  ${csrfField(request)}
  <div class="field"><label for="code">Authentication code <span class="hint">(6 digits from your authenticator app)</span></label>
  <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required></div>
  <button class="primary" type="submit">Verify</button>
</form>
<form method="post" action="/portal/sign-out">${csrfField(request)}<button type="submit">Cancel</button></form>`;
}

/** A fresh double-submit token for the sign-in form (it has no session to hold one). */
function issueSignInToken(reply: FastifyReply): string {
  const token = randomBytes(24).toString('base64url');
  setCookie(reply, SIGN_IN_COOKIE, token, 3600);
  return token;
}

function sameToken(a: string | null, b: unknown): boolean {
  if (a === null || typeof b !== 'string' || a.length !== b.length) return false;
  return timingSafeEqual(Buffer.from(a), Buffer.from(b));
}

/**
 * API.md §7 "portal sign-in": every attempt counts against the account's budget and the client
 * address's budget (right or wrong, so a guesser gains nothing by alternating). The account key
 * is a hash: emails never reach Redis. Returns the wait in seconds when refused.
 */
async function spendAttempt(deps: PortalDeps, request: FastifyRequest, email: string): Promise<number | null> {
  const limits = deps.rateLimiting;
  const checks: RateLimitCheck[] = [];
  const account = limits.rules.portal_sign_in_account;
  const address = limits.rules.portal_sign_in_ip;
  const accountHash = createHash('sha256').update(email.trim().toLowerCase()).digest('hex').slice(0, 32);
  // One hash tag for both keys: a Redis Cluster runs the check in one slot.
  if (account !== null) checks.push({ key: `{portal-sign-in}:account:${accountHash}`, limit: account.limit, windowMs: account.windowSeconds * 1000 });
  if (address !== null) checks.push({ key: `{portal-sign-in}:ip:${clientKey(request.ip ?? 'unknown')}`, limit: address.limit, windowMs: address.windowSeconds * 1000 });
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

function tooMany(reply: FastifyReply, seconds: number, form: ReturnType<typeof html>): FastifyReply {
  reply.header('Retry-After', String(seconds));
  const minutes = Math.ceil(seconds / 60);
  return sendPage(reply, barePage('Sign in to Coffer', form, { kind: 'error', text: `Too many sign-in attempts. Try again in ${minutes} minute${minutes === 1 ? '' : 's'}.` }), 429);
}

async function startSession(deps: PortalDeps, request: FastifyRequest, reply: FastifyReply, user: PortalUserRow): Promise<FastifyReply> {
  const stage = user.totp_enabled === 1 ? 'password' : 'active';
  const environments = await deps.tenancy.listEnvironments(user.organization_token, { sinceToken: null, order: 'asc', count: 1 });
  // Sessions abandoned without signing out are removed here, past their absolute expiry.
  await deps.portalSessions.sweepExpired();
  const created = await deps.portalSessions.start(user, stage, request.ip ?? 'unknown', environments[0]?.key ?? null);
  setCookie(reply, SESSION_COOKIE, created.cookie, null);
  setCookie(reply, SIGN_IN_COOKIE, '', 0);
  if (stage === 'active') await deps.audit.record({ type: 'user', id: user.email, address: request.ip ?? null }, { organizationToken: user.organization_token, action: 'user.sign_in', objectType: 'user', objectId: user.token });
  return reply.code(303).header('Location', stage === 'active' ? '/portal/' : '/portal/sign-in/code').send();
}

/** Sign-in (email and password, then the TOTP code when enrolled) and sign-out. */
export function signInRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get('/sign-in', { config: { portal: 'public' } }, async (request, reply) => {
    if (request.portalSession?.row.stage === 'active') return reply.code(303).header('Location', '/portal/').send();
    return sendPage(reply, barePage('Sign in to Coffer', signInForm(issueSignInToken(reply), '')));
  });

  portal.post('/sign-in', { config: { portal: 'public' } }, async (request, reply) => {
    const form = formOf(request);
    if (!sameToken(cookieOf(request, SIGN_IN_COOKIE), form._csrf)) {
      const notice = { kind: 'error' as const, text: 'The form has expired. Please try again.' };
      return sendPage(reply, barePage('Sign in to Coffer', signInForm(issueSignInToken(reply), form.email ?? ''), notice), 403);
    }
    const email = (form.email ?? '').slice(0, 320);
    const wait = await spendAttempt(deps, request, email);
    if (wait !== null) return tooMany(reply, wait, signInForm(issueSignInToken(reply), email));
    const user = await deps.portalUsers.checkPassword(email, form.password ?? '');
    if (user === null) {
      return sendPage(reply, barePage('Sign in to Coffer', signInForm(issueSignInToken(reply), email), { kind: 'error', text: INVALID_CREDENTIALS }), 401);
    }
    return startSession(deps, request, reply, user);
  });

  portal.get('/sign-in/code', { config: { portal: 'pending' } }, async (request, reply) =>
    sendPage(reply, barePage('Two-step verification', codeForm(request))),
  );

  portal.post('/sign-in/code', { config: { portal: 'pending' } }, async (request, reply) => {
    const session = sessionOf(request);
    const wait = await spendAttempt(deps, request, session.user.email);
    if (wait !== null) return tooMany(reply, wait, codeForm(request));
    if (!(await deps.portalUsers.codeMatches(session.user, formOf(request).code ?? ''))) {
      return sendPage(reply, barePage('Two-step verification', codeForm(request), { kind: 'error', text: 'Invalid authentication code' }), 401);
    }
    const promoted = await deps.portalSessions.promote(session);
    setCookie(reply, SESSION_COOKIE, promoted.cookie, null);
    await deps.audit.record({ type: 'user', id: session.user.email, address: request.ip ?? null }, { organizationToken: session.user.organization_token, action: 'user.sign_in', objectType: 'user', objectId: session.user.token });
    return reply.code(303).header('Location', '/portal/').send();
  });

  // Any stage may sign out (a pending session too); the CSRF token keeps other sites from doing it.
  portal.post('/sign-out', { config: { portal: 'session' } }, async (request, reply) => {
    if (request.portalSession !== null) await deps.portalSessions.end(request.portalSession);
    setCookie(reply, SESSION_COOKIE, '', 0);
    return reply.code(303).header('Location', '/portal/sign-in').send();
  });
}
