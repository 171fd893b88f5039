import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { auditOwnAccount, formOf, redirectTo, sessionOf, type PortalDeps } from '../context.js';
import { doneNotice, frameFor } from '../frame.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, page, sendPage } from '../layout.js';
import { auditSignIn, requireSignInAttempt } from '../sign-in-steps.js';
import type { PortalPerson } from '../../domain/portal-people.js';

function codeField(id: string, label = 'Authentication code'): SafeHtml {
  return html`<div class="field"><label for="${id}">${label}</label><input id="${id}" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required></div>`;
}

/** Two-step verification while it is on: changing the app or turning it off, each with a current code. */
function totpOn(request: FastifyRequest): SafeHtml {
  return html`<p><span class="badge ok">On</span> A code from your authenticator app is asked at every sign-in. Changing or turning it off needs a current code.</p>
<form class="inline" method="post" action="/portal/account/totp/start">${csrfField(request)}
  ${codeField('change-code', 'Current authentication code')}
  <button type="submit">Use a new authenticator app</button></form>
<form class="inline" method="post" action="/portal/account/totp/disable">${csrfField(request)}
  ${codeField('disable-code')}
  <button class="danger" type="submit">Turn off two-step verification</button></form>`;
}

async function accountPage(deps: PortalDeps, request: FastifyRequest, enrolment: SafeHtml | null, notice = doneNotice(request)): Promise<SafeHtml> {
  const user = sessionOf(request).user;
  const frame = await frameFor(deps, request, { title: 'Your account', current: 'account', notice });
  const organization = frame.organizations?.find((o) => o.organizationToken === user.organizationToken)?.organizationName ?? '';
  const totp =
    enrolment ??
    (user.totpEnabled
      ? totpOn(request)
      : html`<p><span class="badge">Off</span> Protect your account with a code from an authenticator app (TOTP).</p>
<form method="post" action="/portal/account/totp/start">${csrfField(request)}<button class="primary" type="submit">Set up two-step verification</button></form>`);
  const body = html`<dl class="facts"><dt>Email</dt><dd>${user.email}</dd><dt>Organization</dt><dd>${organization}</dd><dt>Role</dt><dd>${user.role}</dd></dl>
<h2>Two-step verification</h2>
${totp}
<h2>Change password</h2>
<form class="stack" method="post" action="/portal/account/password">${csrfField(request)}
  <div class="field"><label for="current-password">Current password</label><input id="current-password" name="current_password" type="password" autocomplete="current-password" required></div>
  <div class="field"><label for="new-password">New password <span class="hint">(at least ${deps.portalUsers.policy.passwordMinLength} characters)</span></label><input id="new-password" name="new_password" type="password" autocomplete="new-password" minlength="${deps.portalUsers.policy.passwordMinLength}" required></div>
  <button type="submit">Change password</button>
</form>`;
  return page(request, frame, body);
}

/** The signed-in person, fresh from the store (the session's copy may predate a change). */
async function personOf(deps: PortalDeps, request: FastifyRequest): Promise<PortalPerson> {
  const person = await deps.portalUsers.person(sessionOf(request).user.personToken);
  if (person === undefined) throw new AppError({ key: 'errors.forbidden', message: 'Your session has ended. Sign in again.' });
  return person;
}

/**
 * A current code of the second factor in use, or 422. Each try spends the sign-in budgets and a
 * wrong code counts towards the lockout: a stolen session cannot guess its way to turning it off.
 */
async function requireCurrentCode(deps: PortalDeps, request: FastifyRequest, person: PortalPerson): Promise<void> {
  await requireSignInAttempt(deps, request, person.email);
  if (!(await deps.portalUsers.checkCode(person, formOf(request).code ?? '', request.ip ?? null))) {
    throw new AppError({ key: 'errors.invalid', attribute: 'code', message: 'Authentication code is invalid: a current code of your authenticator app is needed' });
  }
}

/** The signed-in person's own account (password, TOTP second factor) and their organizations. */
export function accountRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  const own = { config: { portal: 'manage_own_account' as const } };

  portal.get('/account', async (request, reply) => sendPage(reply, await accountPage(deps, request, null)));

  // Setting up a new secret; while two-step is on, only with a current code of the one in use
  // (else re-enrolling would be a way to turn it off without one).
  portal.post('/account/totp/start', own, async (request, reply) => {
    const person = await personOf(deps, request);
    if (person.totpEnabled) await requireCurrentCode(deps, request, person);
    const enrolment = await deps.portalUsers.totp.begin(person);
    const form = html`<p>Add this key to your authenticator app (as a time-based key), then type the code it shows.${person.totpEnabled ? ' Until then the app you use now stays in force.' : ''}</p>
<div class="field"><label for="totp-secret">Setup key</label>
<div class="secret-box"><input id="totp-secret" type="text" readonly value="${enrolment.secret}" spellcheck="false" autocomplete="off">
<button type="button" data-copy="totp-secret" hidden>Copy</button><span id="totp-secret-status" role="status"></span></div></div>
<div class="field"><label for="totp-uri">Setup link <span class="hint">(for apps that accept otpauth links)</span></label><input id="totp-uri" type="text" readonly value="${enrolment.uri}"></div>
<form class="inline" method="post" action="/portal/account/totp/confirm">${csrfField(request)}
  <div class="field"><label for="totp-code">Authentication code</label><input id="totp-code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" pattern="[0-9]{6}" maxlength="6" required></div>
  <button class="primary" type="submit">Turn on</button>
</form>`;
    return sendPage(reply, await accountPage(deps, request, form, null));
  });

  portal.post('/account/totp/confirm', own, async (request, reply) => {
    const person = await personOf(deps, request);
    const changing = person.totpEnabled;
    if (!(await deps.portalUsers.totp.confirm(person, formOf(request).code ?? ''))) {
      throw new AppError({ key: 'errors.invalid', attribute: 'code', message: 'Authentication code is invalid. Set up again and type the current code.' });
    }
    await auditOwnAccount(deps, request, changing ? 'user.totp_change' : 'user.totp_enable');
    return redirectTo(reply, `/portal/account?done=${changing ? 'totp_changed' : 'totp_on'}`);
  });

  portal.post('/account/totp/disable', own, async (request, reply) => {
    const person = await personOf(deps, request);
    await requireCurrentCode(deps, request, person);
    await deps.portalUsers.totp.remove(person.token);
    await auditOwnAccount(deps, request, 'user.totp_disable');
    return redirectTo(reply, '/portal/account?done=totp_off');
  });

  portal.post('/account/password', own, async (request, reply) => {
    const session = sessionOf(request);
    const person = await personOf(deps, request);
    const form = formOf(request);
    await requireSignInAttempt(deps, request, person.email);
    if ((await deps.portalUsers.checkPassword(person, form.current_password ?? '', request.ip ?? null)) === null) {
      throw new AppError({ key: 'errors.invalid', attribute: 'current_password', message: 'Current password is invalid' });
    }
    await deps.portalUsers.resetPassword(person.token, form.new_password ?? '');
    // resetPassword ended every session; this one goes on.
    await deps.portalSessions.endOthers(session);
    await auditOwnAccount(deps, request, 'user.password_change');
    return redirectTo(reply, '/portal/account?done=password');
  });

  organizationRoutes(portal, deps);
}

/** Choosing and switching the organization a session acts in (a person may belong to several). */
function organizationRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get('/organizations', async (request, reply) => {
    const session = sessionOf(request);
    const frame = await frameFor(deps, request, { title: 'Your organizations', current: 'organizations', notice: doneNotice(request) });
    const rows = (frame.organizations ?? []).map(
      (o) => html`<tr><td>${o.organizationName}</td><td>${o.role}</td><td>${o.organizationToken === session.user.organizationToken
        ? html`<span class="badge ok">current</span>`
        : html`<form class="inline" method="post" action="/portal/organizations/switch">${csrfField(request)}<input type="hidden" name="organization" value="${o.organizationToken}">
  <button type="submit">Open<span class="visually-hidden"> ${o.organizationName}</span></button></form>`}</td></tr>`,
    );
    const body = html`<p>You belong to these organizations. Pages show one at a time; switch here or with the menu at the top.</p>
<table><caption class="visually-hidden">Your organizations</caption>
<thead><tr><th scope="col">Organization</th><th scope="col">Your role</th><th scope="col"><span class="visually-hidden">Open</span></th></tr></thead>
<tbody>${rows}</tbody></table>`;
    return sendPage(reply, page(request, frame, body));
  });

  portal.post('/organizations/switch', { config: { portal: 'manage_own_account' } }, async (request, reply) => {
    const session = sessionOf(request);
    const wanted = formOf(request).organization ?? '';
    // Only the person's own active memberships are looked at: any other token is "not found".
    const member = (await deps.portalUsers.activeMembershipsOf(session.user.personToken)).find((m) => m.organizationToken === wanted);
    if (member === undefined) throw new AppError({ key: 'errors.user_not_found', message: 'You do not belong to that organization.' });
    if (member.organizationToken !== session.user.organizationToken) {
      const environments = await deps.tenancy.listEnvironments(member.organizationToken, { sinceToken: null, order: 'asc', count: 1 });
      await deps.portalSessions.switchOrganization(session, member, environments[0]?.key ?? null);
      await auditSignIn(deps, request, member);
    }
    return redirectTo(reply, '/portal/');
  });
}
