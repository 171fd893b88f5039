import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { isPortalRole, PORTAL_ROLES, type PortalRole } from '../../domain/portal-roles.js';
import { audit, can, formOf, redirectTo, roleOf, sessionOf, type PortalDeps } from '../context.js';
import { doneNotice, frameFor } from '../frame.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, page, sendPage, when } from '../layout.js';
import type { PortalInvitation, PortalMember } from '../../domain/portal-people.js';

type TokenParams = { Params: { token: string } };

/** Roles a manager may hand out: an admin never invites, creates or touches owners. */
function assignable(manager: PortalRole): readonly PortalRole[] {
  return manager === 'owner' ? PORTAL_ROLES : PORTAL_ROLES.filter((role) => role !== 'owner');
}

/**
 * A member of the session's organization the manager may change, or 403/404: not themselves, and
 * an owner only by an owner (so an admin cannot unlock, disable or remove an owner either).
 */
async function manageable(deps: PortalDeps, request: FastifyRequest, token: string): Promise<PortalMember> {
  const session = sessionOf(request);
  const member = await deps.portalUsers.find(token);
  if (member === undefined || member.organizationToken !== session.user.organizationToken) {
    throw new AppError({ key: 'errors.user_not_found', message: 'Unable to find the specified user.' });
  }
  if (member.token === session.user.token) throw new AppError({ key: 'errors.forbidden', message: 'You cannot change your own role, unlock, disable or remove yourself.' });
  if (member.role === 'owner' && roleOf(request) !== 'owner') throw new AppError({ key: 'errors.forbidden', message: 'Only an owner can change an owner.' });
  return member;
}

function memberActions(request: FastifyRequest, member: PortalMember, locked: boolean): SafeHtml | null {
  const session = sessionOf(request);
  if (!can(request, 'manage_team') || member.token === session.user.token || (member.role === 'owner' && roleOf(request) !== 'owner')) return null;
  const roles = assignable(roleOf(request));
  const verb = member.disabledAt === null ? 'disable' : 'enable';
  const button = (action: string, label: string, kind = '') =>
    html`<form method="post" action="/portal/team/${member.token}/${action}">${csrfField(request)}<button class="${kind}" type="submit">${label}<span class="visually-hidden"> ${member.email}</span></button></form>`;
  return html`<div class="row-actions">
<form class="inline" method="post" action="/portal/team/${member.token}/role">${csrfField(request)}
  <label class="visually-hidden" for="role-${member.token}">Role of ${member.email}</label>
  <select id="role-${member.token}" name="role">${roles.map((r) => html`<option value="${r}"${r === member.role ? html` selected` : ''}>${r}</option>`)}</select>
  <button type="submit">Change role<span class="visually-hidden"> of ${member.email}</span></button></form>
${locked ? button('unlock', 'Unlock', 'primary') : null}
${button(verb, verb === 'disable' ? 'Disable' : 'Enable', verb === 'disable' ? 'danger' : '')}
${button('remove', 'Remove', 'danger')}
</div>`;
}

function invitationRow(request: FastifyRequest, invitation: PortalInvitation, manage: boolean): SafeHtml {
  const cancel = manage
    ? html`<form method="post" action="/portal/team/invitations/${invitation.token}/cancel">${csrfField(request)}<button type="submit">Cancel<span class="visually-hidden"> the invitation of ${invitation.email}</span></button></form>`
    : null;
  return html`<tr><td>${invitation.email}</td><td>${invitation.role}</td><td>${invitation.invitedBy}</td><td>${when(invitation.expiresAt)}</td><td>${cancel}</td></tr>`;
}

async function teamPage(deps: PortalDeps, request: FastifyRequest, created: SafeHtml | null): Promise<SafeHtml> {
  const organization = sessionOf(request).user.organizationToken;
  const [members, invitations] = await Promise.all([deps.portalUsers.list(organization), deps.portalUsers.invitations.list(organization)]);
  const manage = can(request, 'manage_team');
  const frame = await frameFor(deps, request, { title: 'Team', current: 'team', notice: created === null ? doneNotice(request) : null });
  const status = (member: PortalMember, locked: boolean) =>
    html`${member.disabledAt === null ? html`<span class="badge ok">active</span>` : html`<span class="badge bad">disabled</span>`}${locked ? html` <span class="badge bad">locked</span>` : null}`;
  const rows = members.map((member) => {
    const locked = deps.portalUsers.lockout.isLocked(member);
    return html`<tr><td>${member.email}</td><td>${member.role}</td><td>${member.totpEnabled ? 'on' : 'off'}</td>
<td>${status(member, locked)}</td><td>${when(member.createdAt)}</td><td>${memberActions(request, member, locked)}</td></tr>`;
  });
  const invited =
    invitations.length === 0
      ? null
      : html`<h2>Invitations</h2><table><caption class="visually-hidden">Open invitations</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Invited by</th><th scope="col">Link works until</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${invitations.map((invitation) => invitationRow(request, invitation, manage))}</tbody></table>`;
  const roles = assignable(roleOf(request));
  const add = manage
    ? html`<h2>Invite a member</h2>
<form class="inline" method="post" action="/portal/team">${csrfField(request)}<input type="hidden" name="_once" value="${randomBytes(18).toString('base64url')}">
  <div class="field"><label for="user-email">Email</label><input id="user-email" name="email" type="email" required maxlength="320"></div>
  <div class="field"><label for="user-role">Role</label><select id="user-role" name="role">${roles.map((r) => html`<option value="${r}"${r === 'developer' ? html` selected` : ''}>${r}</option>`)}</select></div>
  <button class="primary" type="submit">Invite</button>
</form>
<p class="hint">owner: everything · admin: everything but owners · developer: environments, secrets, gateways, receivers, certificates · viewer: read only. The invited person joins with the link you are shown: with their own password.</p>`
    : null;
  const twoStep = await deps.peoplePolicy.twoStep(organization);
  const policy = html`<h2>Two-step verification</h2>
<p>${twoStep.required ? 'Every member must use two-step verification: a member without it can only set it up.' : 'Two-step verification is up to each member.'}
${twoStep.source === 'default' ? ' (Default: required once the organization has a production environment.)' : ' (Set by your organization.)'}</p>
${manage ? html`<form class="inline" method="post" action="/portal/team/two-step">${csrfField(request)}
  <div class="field"><label for="two-step-policy">Require it of every member</label><select id="two-step-policy" name="required">
  <option value="default"${twoStep.source === 'default' ? html` selected` : ''}>default</option>
  <option value="on"${twoStep.source === 'organization' && twoStep.required ? html` selected` : ''}>on</option>
  <option value="off"${twoStep.source === 'organization' && !twoStep.required ? html` selected` : ''}>off</option></select></div>
  <button type="submit">Save</button></form>` : null}`;
  const body = html`${created}<table><caption class="visually-hidden">Members of your organization</caption>
<thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Two-step</th><th scope="col">Status</th><th scope="col">Added</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
<tbody>${rows}</tbody></table>${invited}${add}${policy}`;
  return page(request, frame, body);
}

/** The answer to an invitation: the same words for every address (docs/portal.md "Adding a team member"). */
function invitationShown(request: FastifyRequest, invitation: PortalInvitation, secret: string): SafeHtml {
  const link = `${request.protocol}://${request.host}/portal/invitations/${secret}`;
  return html`<section class="notice warn" aria-labelledby="invitation-heading">
  <h2 id="invitation-heading">${invitation.email} is invited as ${invitation.role}</h2>
  <div class="field"><label for="invitation-link">Invitation link</label>
  <div class="secret-box"><input id="invitation-link" type="text" readonly value="${link}" autocomplete="off" spellcheck="false">
  <button type="button" data-copy="invitation-link" hidden>Copy</button><span id="invitation-link-status" role="status"></span></div></div>
  <p><strong>Give this link to ${invitation.email} now: it is not shown again.</strong> It works once, until ${when(invitation.expiresAt)}.
  With it they join with the password of their Coffer account, or choose one if they have none.</p>
</section>`;
}

/**
 * A role the caller may not give. A known role is named (it is one of four words); anything
 * else sent in the form is not repeated, since it may be anything (docs/security.md).
 */
function roleRefused(request: FastifyRequest, role: string, doing: string): AppError {
  if (!isPortalRole(role)) return new AppError({ key: 'errors.invalid', attribute: 'role', message: `Role must be one of ${PORTAL_ROLES.join(', ')}.` });
  return new AppError({ key: 'errors.forbidden', message: `Your role (${roleOf(request)}) cannot ${doing} role ${role}.` });
}

/** Team: invite members, change roles, unlock, disable, enable and remove them; cancel invitations. */
export function teamRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  const team = { config: { portal: 'manage_team' as const } };

  portal.get('/team', async (request, reply) => sendPage(reply, await teamPage(deps, request, null)));

  portal.post('/team', team, async (request, reply) => {
    const session = sessionOf(request);
    const form = formOf(request);
    const role = form.role ?? '';
    if (!(assignable(roleOf(request)) as readonly string[]).includes(role)) throw roleRefused(request, role, 'invite a member with');
    if (!(await deps.portalSessions.claimNonce(session, form._once))) return redirectTo(reply, '/portal/team?done=not_again_invitation');
    const { invitation, secret } = await deps.portalUsers.invitations.invite(session.user.organizationToken, { email: form.email ?? '', role, invitedBy: session.user.email });
    await audit(deps, request, { action: 'user.invite', objectType: 'invitation', objectId: invitation.token, details: { email: invitation.email, role } });
    return sendPage(reply, await teamPage(deps, request, invitationShown(request, invitation, secret)), 201);
  });

  portal.post<TokenParams>('/team/invitations/:token/cancel', team, async (request, reply) => {
    const invitation = await deps.portalUsers.invitations.cancel(sessionOf(request).user.organizationToken, request.params.token);
    await audit(deps, request, { action: 'user.invite_cancel', objectType: 'invitation', objectId: invitation.token, details: { email: invitation.email } });
    return redirectTo(reply, '/portal/team?done=invitation_cancelled');
  });

  portal.post<TokenParams>('/team/:token/role', team, async (request, reply) => {
    const member = await manageable(deps, request, request.params.token);
    const role = formOf(request).role ?? '';
    if (!(assignable(roleOf(request)) as readonly string[]).includes(role)) throw roleRefused(request, role, 'grant');
    await deps.portalUsers.setRole(member.token, role);
    await audit(deps, request, { action: 'user.role_change', objectType: 'user', objectId: member.token, details: { email: member.email, from: member.role, to: role } });
    return redirectTo(reply, '/portal/team?done=role');
  });

  for (const [verb, disabled] of [['disable', true], ['enable', false]] as const) {
    portal.post<TokenParams>(`/team/:token/${verb}`, team, async (request, reply) => {
      const member = await manageable(deps, request, request.params.token);
      await deps.portalUsers.setDisabled(member.token, disabled);
      await audit(deps, request, { action: `user.${verb}`, objectType: 'user', objectId: member.token, details: { email: member.email } });
      return redirectTo(reply, `/portal/team?done=${disabled ? 'disabled' : 'enabled'}`);
    });
  }

  // PCI DSS 8.4.2 (docs/compliance.md): the organization requires two-step of every member, or not, or goes by the default.
  portal.post('/team/two-step', team, async (request, reply) => {
    const value = formOf(request).required;
    const required = value === 'on' ? true : value === 'off' ? false : value === 'default' ? null : undefined;
    if (required === undefined) throw new AppError({ key: 'errors.invalid', attribute: 'required', message: 'Choose default, on or off.' });
    const session = sessionOf(request);
    await deps.peoplePolicy.setTwoStep({ type: 'user', id: session.user.email, address: request.ip ?? null }, session.user.organizationToken, required);
    return redirectTo(reply, '/portal/team?done=two_step_policy');
  });

  // The lock is the person's (their password is one for every organization): lifting it here
  // lets them sign in again. Recorded in this organization only.
  portal.post<TokenParams>('/team/:token/unlock', team, async (request, reply) => {
    const member = await manageable(deps, request, request.params.token);
    await deps.portalUsers.lockout.unlock(member.personToken);
    await audit(deps, request, { action: 'user.unlock', objectType: 'user', objectId: member.token, details: { email: member.email } });
    return redirectTo(reply, '/portal/team?done=unlocked');
  });

  portal.post<TokenParams>('/team/:token/remove', team, async (request, reply) => {
    const member = await manageable(deps, request, request.params.token);
    await deps.portalUsers.remove(member.token);
    await audit(deps, request, { action: 'user.remove', objectType: 'user', objectId: member.token, details: { email: member.email, role: member.role } });
    return redirectTo(reply, '/portal/team?done=member_removed');
  });
}
