import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, MESSAGES, fieldError } from '../../domain/errors.js';
import { ROLES, isRole } from '../../domain/tenancy.js';
import { secretCoversEnvironment } from '../../services/tenancy.service.js';
import type { EnvironmentRow } from '../../store/repositories/environments.repo.js';
import { audit, can, environmentOf, formOf, redirectTo, requiredField, sessionOf, type PortalDeps } from '../context.js';
import { doneNotice, frameFor } from '../frame.js';
import { randomBytes } from 'node:crypto';
import { html, type SafeHtml } from '../html.js';
import { csrfField, page, sendPage, when } from '../layout.js';

type EnvParams = { Params: { env: string } };
type SecretParams = { Params: { env: string; key: string } };

const ROLE_HINTS: Record<string, string> = {
  admin: 'admin: everything',
  transact: 'transact: everything but environments and secrets',
  read: 'read: GET requests only',
};

async function secretsPage(deps: PortalDeps, request: FastifyRequest, env: EnvironmentRow, created: SafeHtml | null): Promise<SafeHtml> {
  const session = sessionOf(request);
  const frame = await frameFor(deps, request, { title: 'Access secrets', current: 'secrets', environment: env, notice: created === null ? doneNotice(request) : null });
  const secrets = await deps.tenancy.listSecretsForEnvironment(session.user.organization_token, env.key);
  const manage = can(request, 'manage_secrets');
  const rows = secrets.map(
    (secret) => html`<tr>
  <td>${secret.name}</td>
  <td><code>${secret.key}</code></td>
  <td>${secret.role}</td>
  <td>${secret.environment_keys === null ? 'All environments' : 'This environment'}</td>
  <td>${when(secret.created_at)}</td>
  <td>${secret.last_used_at === null ? 'Never' : when(secret.last_used_at)}</td>
  <td>${
    manage
      ? html`<details class="confirm"><summary>Revoke<span class="visually-hidden"> ${secret.name}</span></summary>
  <form method="post" action="/portal/e/${env.key}/secrets/${secret.key}/revoke">${csrfField(request)}
  <p>Requests using “${secret.name}” will be refused at once. This cannot be undone.</p>
  <button class="danger" type="submit">Revoke ${secret.name}</button></form></details>`
      : null
  }</td>
</tr>`,
  );
  const form = manage
    ? html`<h2>New access secret</h2>
<form class="inline" method="post" action="/portal/e/${env.key}/secrets">
  ${csrfField(request)}<input type="hidden" name="_once" value="${randomBytes(18).toString('base64url')}">
  <div class="field"><label for="secret-name">Name</label><input id="secret-name" name="name" type="text" maxlength="255" required></div>
  <div class="field"><label for="secret-role">Role</label><select id="secret-role" name="role">
    ${ROLES.map((role) => html`<option value="${role}"${role === 'transact' ? html` selected` : ''}>${ROLE_HINTS[role]}</option>`)}
  </select></div>
  <button class="primary" type="submit">Create</button>
</form>`
    : null;
  const body = html`${created}
<p>Use these with HTTP Basic: the environment key <code>${env.key}</code> as the user, the access secret as the password.</p>
<table>
  <caption class="visually-hidden">Access secrets that can reach ${env.name}</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Key</th><th scope="col">Role</th><th scope="col">Scope</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
  <tbody>${rows.length === 0 ? html`<tr><td colspan="7">No access secrets yet.</td></tr>` : rows}</tbody>
</table>
${form}`;
  return page(request, frame, body);
}

/** Access secrets of an environment: list, create (shown once), revoke. */
export function secretRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get<EnvParams>('/e/:env/secrets', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    return sendPage(reply, await secretsPage(deps, request, env, null));
  });

  portal.post<EnvParams>('/e/:env/secrets', { config: { portal: 'manage_secrets' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const form = formOf(request);
    const name = requiredField(form, 'name');
    // A reload of the page that showed a secret re-POSTs its form: nothing is created or shown again.
    if (!(await deps.portalSessions.claimNonce(sessionOf(request), form._once))) return redirectTo(reply, `/portal/e/${env.key}/secrets?done=not_again`);
    const role = form.role ?? 'transact';
    if (!isRole(role)) throw new AppError(fieldError.inclusion('role'));
    const created = await deps.tenancy.createAccessSecret(sessionOf(request).user.organization_token, { name, role, environmentKeys: [env.key] });
    await audit(deps, request, { action: 'access_secret.create', objectType: 'access_secret', objectId: created.row.key, environmentKey: env.key, details: { name, role } });
    // Rendered in the response to this POST only (no-store): a reload or a later visit never shows it.
    const shown = html`<section class="notice warn" aria-labelledby="new-secret-heading">
  <h2 id="new-secret-heading">Access secret “${name}” created</h2>
  <div class="field"><label for="access-secret">Access secret</label>
  <div class="secret-box"><input id="access-secret" type="text" readonly value="${created.secret}" autocomplete="off" spellcheck="false">
  <button type="button" data-copy="access-secret" hidden>Copy</button><span id="access-secret-status" role="status"></span></div></div>
  <p><strong>Copy it now: it will not be shown again.</strong> Coffer keeps only a hash of it. Its key is <code>${created.row.key}</code>.</p>
</section>`;
    return sendPage(reply, await secretsPage(deps, request, env, shown), 201);
  });

  portal.post<SecretParams>('/e/:env/secrets/:key/revoke', { config: { portal: 'manage_secrets' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const secret = await deps.tenancy.findAccessSecret(request.params.key);
    const organization = sessionOf(request).user.organization_token;
    if (secret === undefined || secret.organization_token !== organization || secret.revoked_at !== null || !secretCoversEnvironment(secret, env.key)) {
      throw new AppError({ key: 'errors.access_secret_not_found', message: MESSAGES.accessSecretNotFound });
    }
    await deps.tenancy.revokeAccessSecret(secret.key);
    await audit(deps, request, { action: 'access_secret.revoke', objectType: 'access_secret', objectId: secret.key, environmentKey: env.key, details: { name: secret.name } });
    return redirectTo(reply, `/portal/e/${env.key}/secrets?done=revoked`);
  });
}
