import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { audit, formOf, redirectTo, sessionOf, type PortalDeps } from '../context.js';
import { doneNotice, frameFor } from '../frame.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, page, sendPage } from '../layout.js';
import { MIN_PASSWORD_LENGTH } from '../../services/portal-users.service.js';

async function accountPage(deps: PortalDeps, request: FastifyRequest, enrolment: SafeHtml | null, notice = doneNotice(request)): Promise<SafeHtml> {
  const user = sessionOf(request).user;
  const frame = await frameFor(deps, request, { title: 'Your account', current: 'account', notice });
  const totp =
    user.totp_enabled === 1
      ? html`<p><span class="badge ok">On</span> A code from your authenticator app is asked at every sign-in.</p>
<form class="inline" method="post" action="/portal/account/totp/disable">${csrfField(request)}
  <div class="field"><label for="disable-code">Authentication code</label><input id="disable-code" name="code" type="text" inputmode="numeric" autocomplete="one-time-code" maxlength="6" required></div>
  <button class="danger" type="submit">Turn off two-step verification</button></form>`
      : (enrolment ??
        html`<p><span class="badge">Off</span> Protect your account with a code from an authenticator app (TOTP).</p>
<form method="post" action="/portal/account/totp/start">${csrfField(request)}<button class="primary" type="submit">Set up two-step verification</button></form>`);
  const body = html`<dl class="facts"><dt>Email</dt><dd>${user.email}</dd><dt>Role</dt><dd>${user.role}</dd></dl>
<h2>Two-step verification</h2>
${totp}
<h2>Change password</h2>
<form class="stack" method="post" action="/portal/account/password">${csrfField(request)}
  <div class="field"><label for="current-password">Current password</label><input id="current-password" name="current_password" type="password" autocomplete="current-password" required></div>
  <div class="field"><label for="new-password">New password <span class="hint">(at least ${MIN_PASSWORD_LENGTH} characters)</span></label><input id="new-password" name="new_password" type="password" autocomplete="new-password" minlength="${MIN_PASSWORD_LENGTH}" required></div>
  <button type="submit">Change password</button>
</form>`;
  return page(request, frame, body);
}

/** The signed-in user's own account: password and the TOTP second factor. */
export function accountRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  const own = { config: { portal: 'manage_own_account' as const } };

  portal.get('/account', async (request, reply) => sendPage(reply, await accountPage(deps, request, null)));

  portal.post('/account/totp/start', own, async (request, reply) => {
    const enrolment = await deps.portalUsers.beginTotp(sessionOf(request).user);
    const form = html`<p>Add this key to your authenticator app (as a time-based key), then type the code it shows.</p>
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
    const user = (await deps.portalUsers.find(sessionOf(request).user.token)) ?? sessionOf(request).user;
    if (!(await deps.portalUsers.confirmTotp(user, formOf(request).code ?? ''))) {
      throw new AppError({ key: 'errors.invalid', attribute: 'code', message: 'Authentication code is invalid. Set up again and type the current code.' });
    }
    await audit(deps, request, { action: 'user.totp_enable', objectType: 'user', objectId: user.token });
    return redirectTo(reply, '/portal/account?done=totp_on');
  });

  portal.post('/account/totp/disable', own, async (request, reply) => {
    const user = sessionOf(request).user;
    if (!(await deps.portalUsers.codeMatches(user, formOf(request).code ?? ''))) {
      throw new AppError({ key: 'errors.invalid', attribute: 'code', message: 'Authentication code is invalid' });
    }
    await deps.portalUsers.disableTotp(user);
    await audit(deps, request, { action: 'user.totp_disable', objectType: 'user', objectId: user.token });
    return redirectTo(reply, '/portal/account?done=totp_off');
  });

  portal.post('/account/password', own, async (request, reply) => {
    const session = sessionOf(request);
    const form = formOf(request);
    if ((await deps.portalUsers.checkPassword(session.user.email, form.current_password ?? '')) === null) {
      throw new AppError({ key: 'errors.invalid', attribute: 'current_password', message: 'Current password is invalid' });
    }
    await deps.portalUsers.resetPassword(session.user.token, form.new_password ?? '');
    // resetPassword ended every session; this one goes on.
    await deps.portalSessions.endOthers(session);
    await audit(deps, request, { action: 'user.password_change', objectType: 'user', objectId: session.user.token });
    return redirectTo(reply, '/portal/account?done=password');
  });
}
