import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, fieldError } from '../../domain/errors.js';
import { mayGrant, type SecretScope } from '../../domain/secret-grants.js';
import { ROLES, isRole, type Role } from '../../domain/tenancy.js';
import { audit, environmentOf, formOf, redirectTo, requiredField, roleOf, sessionOf, type PortalDeps } from '../context.js';
import { doneNotice, frameFor } from '../frame.js';
import { randomBytes } from 'node:crypto';
import { html, type SafeHtml } from '../html.js';
import { csrfField, page, sendPage, when } from '../layout.js';
import type { Environment } from '../../domain/environment.js';

type EnvParams = { Params: { env: string } };
type SecretParams = { Params: { env: string; key: string } };

const ROLE_HINTS: Record<string, string> = {
  admin: 'admin: everything',
  transact: 'transact: everything but environments and secrets',
  read: 'read: GET requests only',
};

/** The form's scope choice: this environment only, or every environment of the organization. */
type ScopeChoice = 'environment' | 'organization';

function environmentKeysOf(scope: ScopeChoice, env: Environment): string[] | null {
  return scope === 'organization' ? null : [env.key];
}

/**
 * The new-secret form, offering only what the user's role may create here (src/domain/secret-grants.ts):
 * the scope choice only to those who may create an organization-wide secret.
 */
function newSecretForm(request: FastifyRequest, env: Environment, grantable: (role: Role, scope: ScopeChoice) => boolean): SafeHtml | null {
  const scopes = (['environment', 'organization'] as const).filter((scope) => ROLES.some((role) => grantable(role, scope)));
  const roles = ROLES.filter((role) => scopes.some((scope) => grantable(role, scope)));
  if (roles.length === 0) return null;
  const preselected = roles.includes('transact') ? 'transact' : roles[roles.length - 1];
  const scopeField =
    scopes.length > 1
      ? html`<div class="field"><label for="secret-scope">Scope</label><select id="secret-scope" name="scope">
    <option value="environment" selected>This environment</option><option value="organization">All environments</option>
  </select></div>`
      : null;
  return html`<h2>New access secret</h2>
<form class="inline" method="post" action="/portal/e/${env.key}/secrets">
  ${csrfField(request)}<input type="hidden" name="_once" value="${randomBytes(18).toString('base64url')}">
  <div class="field"><label for="secret-name">Name</label><input id="secret-name" name="name" type="text" maxlength="255" required></div>
  <div class="field"><label for="secret-role">Role</label><select id="secret-role" name="role">
    ${roles.map((role) => html`<option value="${role}"${role === preselected ? html` selected` : ''}>${ROLE_HINTS[role]}</option>`)}
  </select></div>
  ${scopeField}<button class="primary" type="submit">Create</button>
</form>${
    roles.length < ROLES.length || scopes.length < 2
      ? html`<p class="hint">Your role (${roleOf(request)}) may create the roles listed${scopes.length < 2 ? ', for this environment only' : ''}: a secret can do no more than you may in the portal.</p>`
      : null
  }`;
}

async function secretsPage(deps: PortalDeps, request: FastifyRequest, env: Environment, created: SafeHtml | null): Promise<SafeHtml> {
  const session = sessionOf(request);
  const frame = await frameFor(deps, request, { title: 'Access secrets', current: 'secrets', environment: env, notice: created === null ? doneNotice(request) : null });
  const organization = session.user.organizationToken;
  const [secrets, scopes] = await Promise.all([deps.tenancy.listSecretsForEnvironment(organization, env.key), deps.tenancy.secretScopes(organization)]);
  const role = roleOf(request);
  // What a user may revoke is what they could have created (docs/portal.md); a viewer neither.
  const reachable = (secretRole: string, scope: SecretScope): boolean => mayGrant(role, secretRole, scope);
  const rows = secrets.map(
    (secret) => html`<tr>
  <td>${secret.name}</td>
  <td><code>${secret.key}</code></td>
  <td>${secret.role}</td>
  <td>${secret.environmentKeys === null ? 'All environments' : 'This environment'}</td>
  <td>${when(secret.createdAt)}</td>
  <td>${secret.lastUsedAt === null ? 'Never' : when(secret.lastUsedAt)}</td>
  <td>${
    reachable(secret.role, scopes(secret.environmentKeys))
      ? html`<details class="confirm"><summary>Revoke<span class="visually-hidden"> ${secret.name}</span></summary>
  <form method="post" action="/portal/e/${env.key}/secrets/${secret.key}/revoke">${csrfField(request)}
  <p>Requests using “${secret.name}” will be refused at once. This cannot be undone.</p>
  <button class="danger" type="submit">Revoke ${secret.name}</button></form></details>`
      : null
  }</td>
</tr>`,
  );
  const form = newSecretForm(request, env, (secretRole, scope) => reachable(secretRole, scopes(environmentKeysOf(scope, env))));
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

/**
 * Access secrets of an environment: list, create (shown once), revoke; each only as strong as the
 * user's role allows (src/domain/secret-grants.ts).
 */
export function secretRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get<EnvParams>('/e/:env/secrets', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    return sendPage(reply, await secretsPage(deps, request, env, null));
  });

  portal.post<EnvParams>('/e/:env/secrets', { config: { portal: 'manage_secrets' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const form = formOf(request);
    const name = requiredField(form, 'name');
    const role = form.role ?? 'transact';
    if (!isRole(role)) throw new AppError(fieldError.inclusion('role'));
    const scope = form.scope ?? 'environment';
    if (scope !== 'environment' && scope !== 'organization') throw new AppError(fieldError.inclusion('scope'));
    const organization = sessionOf(request).user.organizationToken;
    const environmentKeys = environmentKeysOf(scope, env);
    // A forged form asking for more than the role may create is refused before anything is written.
    await deps.tenancy.refuseUngrantable(roleOf(request), organization, role, environmentKeys);
    // A reload of the page that showed a secret re-POSTs its form: nothing is created or shown again.
    if (!(await deps.portalSessions.claimNonce(sessionOf(request), form._once))) return redirectTo(reply, `/portal/e/${env.key}/secrets?done=not_again`);
    const created = await deps.tenancy.createAccessSecret(organization, { name, role, environmentKeys }, request);
    await audit(deps, request, { action: 'access_secret.create', objectType: 'access_secret', objectId: created.accessSecret.key, environmentKey: env.key, details: { name, role, scope } });
    // Rendered in the response to this POST only (no-store): a reload or a later visit never shows it.
    const shown = html`<section class="notice warn" aria-labelledby="new-secret-heading">
  <h2 id="new-secret-heading">Access secret “${name}” created</h2>
  <div class="field"><label for="access-secret">Access secret</label>
  <div class="secret-box"><input id="access-secret" type="text" readonly value="${created.secret}" autocomplete="off" spellcheck="false">
  <button type="button" data-copy="access-secret" hidden>Copy</button><span id="access-secret-status" role="status"></span></div></div>
  <p><strong>Copy it now: it will not be shown again.</strong> Coffer keeps only a hash of it. Its key is <code>${created.accessSecret.key}</code>.</p>
</section>`;
    return sendPage(reply, await secretsPage(deps, request, env, shown), 201);
  });

  // Revoking only cuts access off: a deactivated organization, whose secrets still read, may do it.
  portal.post<SecretParams>('/e/:env/secrets/:key/revoke', { config: { portal: 'manage_secrets', whileInactive: 'allowed' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const secret = await deps.tenancy.revokeAccessSecretFor(roleOf(request), sessionOf(request).user.organizationToken, env.key, request.params.key, request);
    await audit(deps, request, { action: 'access_secret.revoke', objectType: 'access_secret', objectId: secret.key, environmentKey: env.key, details: { name: secret.name } });
    return redirectTo(reply, `/portal/e/${env.key}/secrets?done=revoked`);
  });
}
