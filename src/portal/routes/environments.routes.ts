import type { FastifyInstance } from 'fastify';
import { parseAllowedOriginsInput } from '../../http/routes/allowed-origins.input.js';
import { audit, can, environmentOf, formOf, queryOf, redirectTo, requiredField, sessionOf, type PortalDeps } from '../context.js';
import { doneNotice, environmentsOf, frameFor } from '../frame.js';
import { html } from '../html.js';
import { csrfField, page, sendPage, when } from '../layout.js';
import { migrationSection, upstreamNotice } from './upstream.routes.js';

type EnvParams = { Params: { key: string } };

/**
 * Environments: list, create, rename, the environment key, production state, the card form's
 * allowed origins and enhanced iFrame security (docs/card-capture.md), the migration from an upstream
 * vault (upstream.routes.ts); and switching.
 */
export function environmentRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get('/', async (request, reply) => {
    const session = sessionOf(request);
    const environments = await environmentsOf(deps, request);
    const key = environments.find((env) => env.key === session.row.environmentKey)?.key ?? environments[0]?.key;
    return redirectTo(reply, key === undefined ? '/portal/environments' : `/portal/e/${key}/overview`);
  });

  portal.get('/switch', async (request, reply) => {
    const environment = await environmentOf(deps, request, queryOf(request).environment ?? '');
    await deps.portalSessions.selectEnvironment(sessionOf(request), environment.key);
    return redirectTo(reply, `/portal/e/${environment.key}/overview`);
  });

  portal.get('/environments', async (request, reply) => {
    const frame = await frameFor(deps, request, { title: 'Environments', current: 'environments', notice: doneNotice(request) });
    const rows = (frame.environments ?? []).map(
      (env) => html`<tr>
  <td><a href="/portal/environments/${env.key}">${env.name}</a></td>
  <td><code>${env.key}</code></td>
  <td>${env.production ? html`<span class="badge ok">Production</span>` : html`<span class="badge">Test</span>`}</td>
  <td>${when(env.createdAt)}</td>
</tr>`,
    );
    const create = can(request, 'manage_environments')
      ? html`<h2>New environment</h2>
<form class="inline" method="post" action="/portal/environments">
  ${csrfField(request)}
  <div class="field"><label for="env-name">Name</label><input id="env-name" name="name" type="text" maxlength="255" required></div>
  <button class="primary" type="submit">Create environment</button>
</form>
<p class="hint">New environments are test environments. Activating one for real cards is the operator's decision (<code>coffer environments create --production</code>).</p>`
      : null;
    const body = html`<table>
  <caption class="visually-hidden">Environments of your organization</caption>
  <thead><tr><th scope="col">Name</th><th scope="col">Environment key</th><th scope="col">Mode</th><th scope="col">Created</th></tr></thead>
  <tbody>${rows}</tbody>
</table>${create}`;
    return sendPage(reply, page(request, frame, body));
  });

  portal.post('/environments', { config: { portal: 'manage_environments' } }, async (request, reply) => {
    const session = sessionOf(request);
    const row = await deps.tenancy.createEnvironment(session.user.organizationToken, requiredField(formOf(request), 'name'), false, request);
    await audit(deps, request, { action: 'environment.create', objectType: 'environment', objectId: row.key, environmentKey: row.key, details: { name: row.name } });
    return redirectTo(reply, `/portal/environments/${row.key}?done=created`);
  });

  portal.get<EnvParams>('/environments/:key', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.key);
    const frame = await frameFor(deps, request, { title: `Environment ${env.name}`, current: 'environments', environment: env, notice: doneNotice(request) ?? upstreamNotice(request) });
    const rename = can(request, 'manage_environments')
      ? html`<h2>Rename</h2>
<form class="inline" method="post" action="/portal/environments/${env.key}">
  ${csrfField(request)}
  <div class="field"><label for="env-rename">Name</label><input id="env-rename" name="name" type="text" maxlength="255" required value="${env.name}"></div>
  <button class="primary" type="submit">Rename</button>
</form>`
      : null;
    const origins = env.allowedOrigins ?? [];
    const cardCapture = can(request, 'manage_environments')
      ? html`<h2>Card capture</h2>
<form class="stack" method="post" action="/portal/environments/${env.key}/card-capture">
  ${csrfField(request)}
  <div class="field"><label for="env-origins">Allowed origins <span class="hint">(one per line, such as https://shop.example; empty = any origin)</span></label><textarea id="env-origins" name="allowed_origins">${origins.join('\n')}</textarea></div>
  <div class="field"><label><input id="env-enhanced" name="enhanced_iframe_security" type="checkbox" value="true"${env.enhancedIframeSecurity ? html` checked` : ''}> Enhanced iFrame security (tokenization needs a signed nonce)</label></div>
  <button class="primary" type="submit">Save card capture settings</button>
</form>`
      : html`<h2>Card capture</h2>
<dl class="facts"><dt>Allowed origins</dt><dd>${origins.length === 0 ? 'Any origin' : origins.join(', ')}</dd>
<dt>Enhanced iFrame security</dt><dd>${env.enhancedIframeSecurity ? 'On' : 'Off'}</dd></dl>`;
    const body = html`<div class="field">
  <label for="environment-key">Environment key</label>
  <div class="secret-box"><input id="environment-key" type="text" readonly value="${env.key}">
  <button type="button" data-copy="environment-key" hidden>Copy</button><span id="environment-key-status" role="status"></span></div>
</div>
<dl class="facts">
  <dt>Mode</dt><dd>${env.production ? 'Activated for production: real cards and gateways' : 'Test: test cards and sandbox gateways only'}</dd>
  <dt>Created</dt><dd>${when(env.createdAt)}</dd>
</dl>
<p><a href="/portal/e/${env.key}/secrets">Access secrets of this environment</a></p>
${rename}${cardCapture}${await migrationSection(deps, request, env)}`;
    return sendPage(reply, page(request, frame, body));
  });

  portal.post<EnvParams>('/environments/:key', { config: { portal: 'manage_environments' } }, async (request, reply) => {
    const session = sessionOf(request);
    const row = await deps.tenancy.renameEnvironment(session.user.organizationToken, request.params.key, requiredField(formOf(request), 'name'), request);
    await audit(deps, request, { action: 'environment.rename', objectType: 'environment', objectId: row.key, environmentKey: row.key, details: { name: row.name } });
    return redirectTo(reply, `/portal/environments/${row.key}?done=renamed`);
  });

  // The same validation as `PUT /v1/environments/<key>`: the text is split on whitespace and commas.
  portal.post<EnvParams>('/environments/:key/card-capture', { config: { portal: 'manage_environments' } }, async (request, reply) => {
    const session = sessionOf(request);
    const form = formOf(request);
    const allowedOrigins = parseAllowedOriginsInput(form.allowed_origins ?? '');
    const enhancedIframeSecurity = form.enhanced_iframe_security === 'true';
    const row = await deps.tenancy.updateCardCapture(session.user.organizationToken, request.params.key, { allowedOrigins, enhancedIframeSecurity }, request);
    await audit(deps, request, {
      action: 'environment.card_capture',
      objectType: 'environment',
      objectId: row.key,
      environmentKey: row.key,
      details: { allowed_origins: (row.allowedOrigins ?? []).join(' '), enhanced_iframe_security: row.enhancedIframeSecurity },
    });
    return redirectTo(reply, `/portal/environments/${row.key}?done=updated`);
  });
}

