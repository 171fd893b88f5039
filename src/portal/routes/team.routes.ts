import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { PORTAL_ROLES, type PortalRole } from '../../domain/portal-roles.js';
import type { PortalUserRow } from '../../store/repositories/portal-users.repo.js';
import { audit, can, formOf, redirectTo, roleOf, sessionOf, type PortalDeps } from '../context.js';
import { doneNotice, frameFor } from '../frame.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, page, sendPage, when } from '../layout.js';

type UserParams = { Params: { token: string } };

/** Roles a manager may hand out: an admin never creates or touches owners. */
function assignable(manager: PortalRole): readonly PortalRole[] {
  return manager === 'owner' ? PORTAL_ROLES : PORTAL_ROLES.filter((role) => role !== 'owner');
}

/** The organization's user a manager may change, or 403/404. */
async function manageable(deps: PortalDeps, request: FastifyRequest, token: string): Promise<PortalUserRow> {
  const session = sessionOf(request);
  const user = await deps.portalUsers.find(token);
  if (user === undefined || user.organization_token !== session.user.organization_token) {
    throw new AppError({ key: 'errors.user_not_found', message: 'Unable to find the specified user.' });
  }
  if (user.token === session.user.token) throw new AppError({ key: 'errors.forbidden', message: 'You cannot change your own role or disable yourself.' });
  if (user.role === 'owner' && roleOf(request) !== 'owner') throw new AppError({ key: 'errors.forbidden', message: 'Only an owner can change an owner.' });
  return user;
}

async function teamPage(deps: PortalDeps, request: FastifyRequest, created: SafeHtml | null): Promise<SafeHtml> {
  const session = sessionOf(request);
  const users = await deps.portalUsers.list(session.user.organization_token);
  const manage = can(request, 'manage_team');
  const roles = assignable(roleOf(request));
  const frame = await frameFor(deps, request, { title: 'Team', current: 'team', notice: created === null ? doneNotice(request) : null });
  const actions = (user: PortalUserRow) => {
    if (!manage || user.token === session.user.token || (user.role === 'owner' && roleOf(request) !== 'owner')) return null;
    return html`<div class="row-actions">
<form class="inline" method="post" action="/portal/team/${user.token}/role">${csrfField(request)}
  <label class="visually-hidden" for="role-${user.token}">Role of ${user.email}</label>
  <select id="role-${user.token}" name="role">${roles.map((r) => html`<option value="${r}"${r === user.role ? html` selected` : ''}>${r}</option>`)}</select>
  <button type="submit">Change role<span class="visually-hidden"> of ${user.email}</span></button></form>
<form method="post" action="/portal/team/${user.token}/${user.disabled_at === null ? 'disable' : 'enable'}">${csrfField(request)}
  <button class="${user.disabled_at === null ? 'danger' : ''}" type="submit">${user.disabled_at === null ? 'Disable' : 'Enable'}<span class="visually-hidden"> ${user.email}</span></button></form>
</div>`;
  };
  const add = manage
    ? html`<h2>Add a user</h2>
<form class="inline" method="post" action="/portal/team">${csrfField(request)}<input type="hidden" name="_once" value="${randomBytes(18).toString('base64url')}">
  <div class="field"><label for="user-email">Email</label><input id="user-email" name="email" type="email" required maxlength="320"></div>
  <div class="field"><label for="user-role">Role</label><select id="user-role" name="role">${roles.map((r) => html`<option value="${r}"${r === 'developer' ? html` selected` : ''}>${r}</option>`)}</select></div>
  <button class="primary" type="submit">Add user</button>
</form>
<p class="hint">owner: everything · admin: everything but owners · developer: environments, secrets, gateways, receivers, certificates · viewer: read only.</p>`
    : null;
  const body = html`${created}<table><caption class="visually-hidden">Users of your organization</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Two-step</th><th scope="col">Status</th><th scope="col">Added</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${users.map(
    (u) => html`<tr><td>${u.email}</td><td>${u.role}</td><td>${u.totp_enabled === 1 ? 'on' : 'off'}</td>
<td>${u.disabled_at === null ? html`<span class="badge ok">active</span>` : html`<span class="badge bad">disabled</span>`}</td><td>${when(u.created_at)}</td><td>${actions(u)}</td></tr>`,
  )}</tbody></table>${add}`;
  return page(request, frame, body);
}

/** Team: add users (a one-time password shown once), change roles, disable and enable. */
export function teamRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  const team = { config: { portal: 'manage_team' as const } };

  portal.get('/team', async (request, reply) => sendPage(reply, await teamPage(deps, request, null)));

  portal.post('/team', team, async (request, reply) => {
    const form = formOf(request);
    const role = form.role ?? '';
    if (!(assignable(roleOf(request)) as readonly string[]).includes(role)) {
      throw new AppError({ key: 'errors.forbidden', message: `Your role (${roleOf(request)}) cannot add a user with role ${role}.` });
    }
    if (!(await deps.portalSessions.claimNonce(sessionOf(request), form._once))) return redirectTo(reply, '/portal/team?done=not_again_user');
    const created = await deps.portalUsers.create(sessionOf(request).user.organization_token, { email: form.email ?? '', role, password: null });
    await audit(deps, request, { action: 'user.create', objectType: 'user', objectId: created.user.token, details: { email: created.user.email, role } });
    const shown = html`<section class="notice warn" aria-labelledby="new-user-heading">
  <h2 id="new-user-heading">${created.user.email} added as ${role}</h2>
  <div class="field"><label for="one-time-password">One-time password</label>
  <div class="secret-box"><input id="one-time-password" type="text" readonly value="${created.password ?? ''}" autocomplete="off" spellcheck="false">
  <button type="button" data-copy="one-time-password" hidden>Copy</button><span id="one-time-password-status" role="status"></span></div></div>
  <p><strong>Hand it over now: it will not be shown again.</strong> They should change it under “Your account” after signing in.</p>
</section>`;
    return sendPage(reply, await teamPage(deps, request, shown), 201);
  });

  portal.post<UserParams>('/team/:token/role', team, async (request, reply) => {
    const user = await manageable(deps, request, request.params.token);
    const role = formOf(request).role ?? '';
    if (!(assignable(roleOf(request)) as readonly string[]).includes(role)) {
      throw new AppError({ key: 'errors.forbidden', message: `Your role (${roleOf(request)}) cannot grant role ${role}.` });
    }
    await deps.portalUsers.setRole(user.token, role);
    await audit(deps, request, { action: 'user.role_change', objectType: 'user', objectId: user.token, details: { email: user.email, from: user.role, to: role } });
    return redirectTo(reply, '/portal/team?done=role');
  });

  for (const [verb, disabled] of [['disable', true], ['enable', false]] as const) {
    portal.post<UserParams>(`/team/:token/${verb}`, team, async (request, reply) => {
      const user = await manageable(deps, request, request.params.token);
      await deps.portalUsers.setDisabled(user.token, disabled);
      await audit(deps, request, { action: `user.${verb}`, objectType: 'user', objectId: user.token, details: { email: user.email } });
      return redirectTo(reply, `/portal/team?done=${disabled ? 'disabled' : 'enabled'}`);
    });
  }
}
