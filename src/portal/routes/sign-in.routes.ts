import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { formOf, sessionOf, type PortalDeps } from '../context.js';
import { SESSION_COOKIE, setCookie } from '../cookies.js';
import { html, type SafeHtml } from '../html.js';
import { barePage, csrfField, sendPage } from '../layout.js';
import { auditSignIn, homeFor, issueSignInToken, lockoutHint, signInTokenMatches, spendSignInAttempt, startSession, tooManyAttempts } from '../sign-in-steps.js';
import { invitationRoutes } from './invitation.routes.js';
import type { PortalPerson } from '../../domain/portal-people.js';

export const INVALID_CREDENTIALS = 'Invalid email or password';

function signInForm(token: string, email: string, hint: SafeHtml | null = null): SafeHtml {
  return html`<form class="stack" method="post" action="/portal/sign-in">
  <input type="hidden" name="_csrf" value="${token}">
  <div class="field"><label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${email}"></div>
  <div class="field"><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required></div>
  <button class="primary" type="submit">Sign in</button>
</form>${hint}`;
}

function codeForm(request: FastifyRequest, hint: SafeHtml | null = null): SafeHtml {
  return html`<form class="stack" method="post" action="/portal/sign-in/code">
  ${csrfField(request)}
  <div class="field"><label for="code">Authentication code <span class="hint">(6 digits from your authenticator app)</span></label>
  <input id="code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required></div>
  <button class="primary" type="submit">Verify</button>
</form>
<form method="post" action="/portal/sign-out">${csrfField(request)}<button type="submit">Cancel</button></form>${hint}`;
}

/**
 * The password was right: a session in the person's first organization, fully signed in unless
 * a second factor is still to give. A person without any active membership is refused like a
 * wrong password (null).
 */
async function signedIn(deps: PortalDeps, request: FastifyRequest, reply: FastifyReply, person: PortalPerson): Promise<FastifyReply | null> {
  // Members past COFFER_PORTAL_INACTIVE_DAYS are disabled before anyone signs in (PCI DSS 8.2.6).
  await deps.peoplePolicy.disableInactive();
  const members = await deps.portalUsers.activeMembershipsOf(person.token);
  const first = members[0];
  if (first === undefined) return null;
  const stage = person.totpEnabled ? 'password' : 'active';
  if (stage === 'active') await deps.portalUsers.lockout.succeed(person);
  await startSession(deps, request, reply, first, stage);
  return reply.code(303).header('Location', stage === 'active' ? homeFor(members) : '/portal/sign-in/code').send();
}

/** Sign-in (email and password, then the TOTP code when enrolled), sign-out, and invitations. */
export function signInRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get('/sign-in', { config: { portal: 'public' } }, async (request, reply) => {
    if (request.portalSession?.row.stage === 'active') return reply.code(303).header('Location', '/portal/').send();
    return sendPage(reply, barePage('Sign in to Coffer', signInForm(issueSignInToken(reply), '')));
  });

  portal.post('/sign-in', { config: { portal: 'public' } }, async (request, reply) => {
    const form = formOf(request);
    if (!signInTokenMatches(request, form._csrf)) {
      const notice = { kind: 'error' as const, text: 'The form has expired. Please try again.' };
      return sendPage(reply, barePage('Sign in to Coffer', signInForm(issueSignInToken(reply), form.email ?? ''), notice), 403);
    }
    const email = (form.email ?? '').slice(0, 320);
    const wait = await spendSignInAttempt(deps, request, email);
    if (wait !== null) return tooManyAttempts(reply, wait, 'Sign in to Coffer', signInForm(issueSignInToken(reply), email));
    const person = await deps.portalUsers.authenticate(email, form.password ?? '', request.ip ?? null);
    const done = person === null ? null : await signedIn(deps, request, reply, person);
    if (done !== null) return done;
    return sendPage(reply, barePage('Sign in to Coffer', signInForm(issueSignInToken(reply), email, lockoutHint(deps.portalUsers.lockout.policy)), { kind: 'error', text: INVALID_CREDENTIALS }), 401);
  });

  portal.get('/sign-in/code', { config: { portal: 'pending' } }, async (request, reply) =>
    sendPage(reply, barePage('Two-step verification', codeForm(request))),
  );

  portal.post('/sign-in/code', { config: { portal: 'pending' } }, async (request, reply) => {
    const session = sessionOf(request);
    const wait = await spendSignInAttempt(deps, request, session.user.email);
    if (wait !== null) return tooManyAttempts(reply, wait, 'Two-step verification', codeForm(request));
    const person = await deps.portalUsers.person(session.user.personToken);
    if (person === undefined || !(await deps.portalUsers.checkCode(person, formOf(request).code ?? '', request.ip ?? null))) {
      return sendPage(reply, barePage('Two-step verification', codeForm(request, lockoutHint(deps.portalUsers.lockout.policy)), { kind: 'error', text: 'Invalid authentication code' }), 401);
    }
    await deps.portalUsers.lockout.succeed(person);
    const promoted = await deps.portalSessions.promote(session);
    setCookie(reply, SESSION_COOKIE, promoted.cookie, null);
    await auditSignIn(deps, request, session.user);
    return reply.code(303).header('Location', homeFor(await deps.portalUsers.activeMembershipsOf(person.token))).send();
  });

  // Any stage may sign out (a pending session too); the CSRF token keeps other sites from doing it.
  portal.post('/sign-out', { config: { portal: 'session' } }, async (request, reply) => {
    if (request.portalSession !== null) await deps.portalSessions.end(request.portalSession);
    setCookie(reply, SESSION_COOKIE, '', 0);
    return reply.code(303).header('Location', '/portal/sign-in').send();
  });

  invitationRoutes(portal, deps);
}
