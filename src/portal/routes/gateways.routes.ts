import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { GatewayDefinition } from '../../gateways/kit/index.js';
import { findGatewayDefinition, gatewayDefinitions } from '../../gateways/registry.js';
import { gatewayView } from '../../http/views/gateway.view.js';
import type { GatewayInput } from '../../services/gateway.service.js';
import { audit, can, environmentOf, formOf, queryOf, redirectTo, type PortalDeps } from '../context.js';
import { doneNotice, frameFor } from '../frame.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, page, sendPage, when } from '../layout.js';
import { wireSections } from '../wire-facts.js';
import { gatewayLabel } from '../gateway-label.js';

type EnvParams = { Params: { env: string } };
type GatewayParams = { Params: { env: string; token: string } };

/** The credential fields of a gateway type, as gateways_options describes them. */
function credentialInputs(definition: GatewayDefinition, editing: boolean): SafeHtml[] {
  const fields = definition.authModes[0]?.credentials ?? [];
  return fields.map((field) => {
    const id = `credential-${field.name}`;
    const hint = editing ? (field.safe ? '' : ' (leave blank to keep the stored value)') : '';
    const input = field.large === true
      ? html`<textarea id="${id}" name="credential.${field.name}"${editing || field.optional === true ? '' : html` required`}></textarea>`
      : html`<input id="${id}" name="credential.${field.name}" type="${field.safe ? 'text' : 'password'}" autocomplete="off"${editing || field.optional === true ? '' : html` required`}>`;
    return html`<div class="field"><label for="${id}">${field.label}<span class="hint">${hint}</span></label>${input}</div>`;
  });
}

/** Gateway fields of a submitted form; blank credentials are left out (kept on update). */
function inputOf(request: FastifyRequest): GatewayInput {
  const form = formOf(request);
  const credentials: Record<string, string> = {};
  for (const [name, value] of Object.entries(form)) {
    if (name.startsWith('credential.') && value !== '') credentials[name.slice('credential.'.length)] = value;
  }
  const description = (form.description ?? '').trim();
  return { description: description === '' ? undefined : description.slice(0, 255), credentials, sandbox: form.sandbox === 'on' };
}

/** Gateways: list, create from gateways_options, show (safe credentials only), update, redact. */
export function gatewayRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get<EnvParams>('/e/:env/gateways', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const frame = await frameFor(deps, request, { title: 'Gateways', current: 'gateways', environment: env, notice: doneNotice(request) });
    const gateways = await deps.gateways.list(env, { sinceToken: null, order: 'desc', count: 100 });
    const types = gatewayDefinitions().filter((d) => d.test || env.production);
    const chosen = findGatewayDefinition(queryOf(request).type ?? '');
    const create = !can(request, 'manage_gateways')
      ? null
      : html`<h2>Add a gateway</h2>
<form class="inline" method="get" action="/portal/e/${env.key}/gateways">
  <div class="field"><label for="gateway-type">Gateway type</label><select id="gateway-type" name="type">
  ${types.map((d) => html`<option value="${d.gatewayType}"${d.gatewayType === chosen?.gatewayType ? html` selected` : ''}>${d.name}</option>`)}</select></div>
  <button type="submit">Choose</button>
</form>
${
  chosen === undefined
    ? null
    : html`<form class="stack" method="post" action="/portal/e/${env.key}/gateways">
  ${csrfField(request)}<input type="hidden" name="gateway_type" value="${chosen.gatewayType}">
  <div class="field"><label for="gateway-description">Display name <span class="hint">(the API's <code>description</code>: how this gateway is told apart everywhere)</span></label><input id="gateway-description" name="description" type="text" maxlength="255" placeholder="e.g. Stripe EU, Adyen backup"></div>
  ${credentialInputs(chosen, false)}
  <div class="field"><label><input name="sandbox" type="checkbox"> Sandbox (the gateway's test endpoint)</label></div>
  <button class="primary" type="submit">Create ${chosen.name} gateway</button>
</form>`
}`;
    const body = html`<div class="table-scroll" role="region" aria-label="Gateways of ${env.name}" tabindex="0"><table><caption class="visually-hidden">Gateways of ${env.name}</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Type</th><th scope="col">State</th><th scope="col">Token</th><th scope="col">Created</th></tr></thead>
<tbody>${
      gateways.length === 0
        ? html`<tr><td colspan="5">No gateways yet.</td></tr>`
        : gateways.map(
            (g) => html`<tr><td><a href="/portal/e/${env.key}/gateways/${g.token}">${g.description ?? html`<span class="hint">(no display name)</span>`}</a></td><td>${g.definition.name} <span class="hint">${g.gatewayType}</span></td><td><span class="badge${g.state === 'redacted' ? ' bad' : ''}">${g.state}</span></td><td><code>${g.token}</code></td><td class="nowrap">${when(g.createdAt)}</td></tr>`,
          )
    }</tbody></table></div>${create}`;
    return sendPage(reply, page(request, frame, body));
  });

  portal.post<EnvParams>('/e/:env/gateways', { config: { portal: 'manage_gateways' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const created = await deps.gateways.create(env, formOf(request).gateway_type, inputOf(request), request);
    await audit(deps, request, { action: 'gateway.create', objectType: 'gateway', objectId: created.token, environmentKey: env.key, details: { gateway_type: created.gatewayType } });
    return redirectTo(reply, `/portal/e/${env.key}/gateways/${created.token}?done=created`);
  });

  portal.get<GatewayParams>('/e/:env/gateways/:token', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const record = await deps.gateways.show(env, request.params.token);
    const title = record.description !== null && record.description.trim() !== '' ? `${record.description.trim()} (${record.definition.name})` : `Gateway ${record.definition.name}`;
    const frame = await frameFor(deps, request, { title, current: 'gateways', environment: env, notice: doneNotice(request) });
    const live = record.state !== 'redacted';
    const manage = can(request, 'manage_gateways') && live
      ? html`<h2>Update</h2>
<form class="stack" method="post" action="/portal/e/${env.key}/gateways/${record.token}">
  ${csrfField(request)}
  <div class="field"><label for="gateway-description">Display name <span class="hint">(<code>description</code>)</span></label><input id="gateway-description" name="description" type="text" maxlength="255" value="${record.description ?? ''}"></div>
  ${credentialInputs(record.definition, true)}
  <div class="field"><label><input name="sandbox" type="checkbox"${record.sandbox ? html` checked` : ''}> Sandbox</label></div>
  <button class="primary" type="submit">Save</button>
</form>
<h2>Redact</h2>
<details class="confirm"><summary>Redact this gateway</summary>
<form method="post" action="/portal/e/${env.key}/gateways/${record.token}/redact">${csrfField(request)}
<p>Its credentials are destroyed and it can no longer be used. This cannot be undone.</p>
<button class="danger" type="submit">Redact gateway</button></form></details>`
      : null;
    const body = html`<dl class="facts summary"><dt>Name</dt><dd>${gatewayLabel(record)}</dd><dt>Type</dt><dd>${record.definition.name} <code>${record.gatewayType}</code></dd><dt>State</dt><dd><span class="badge${live ? '' : ' bad'}">${record.state}</span></dd><dt>Token</dt><dd><code>${record.token}</code></dd></dl>
<p><a href="/portal/e/${env.key}/transactions?gateway=${record.token}">Transactions through this gateway</a></p>
${wireSections(gatewayView(record))}${manage}`;
    return sendPage(reply, page(request, frame, body));
  });

  portal.post<GatewayParams>('/e/:env/gateways/:token', { config: { portal: 'manage_gateways' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const record = await deps.gateways.update(env, request.params.token, undefined, inputOf(request), request);
    await audit(deps, request, { action: 'gateway.update', objectType: 'gateway', objectId: record.token, environmentKey: env.key });
    return redirectTo(reply, `/portal/e/${env.key}/gateways/${record.token}?done=updated`);
  });

  portal.post<GatewayParams>('/e/:env/gateways/:token/redact', { config: { portal: 'manage_gateways' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const redacted = await deps.gateways.redact(env, request.params.token, request);
    await audit(deps, request, { action: 'gateway.redact', objectType: 'gateway', objectId: redacted.gateway.token, environmentKey: env.key });
    return redirectTo(reply, `/portal/e/${env.key}/gateways/${redacted.gateway.token}?done=redacted`);
  });
}
