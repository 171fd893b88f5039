import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { workflowInput } from '../../http/routes/workflows.schemas.js';
import { workflowView } from '../../http/views/workflow.view.js';
import type { RuleTarget, Workflow } from '../../domain/workflow.js';
import { audit, can, environmentOf, formOf, redirectTo, type PortalDeps } from '../context.js';
import { doneNotice, frameFor } from '../frame.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, page, sendPage, when } from '../layout.js';
import { wireSections } from '../wire-facts.js';
import type { Environment } from '../../domain/environment.js';

type EnvParams = { Params: { env: string } };
type WorkflowParams = { Params: { env: string; key: string } };

const RETRY_MODES = [
  ['outage_only', 'Outage only: after a fault before acceptance'],
  ['standard', 'Standard: also after a soft decline'],
  ['none', 'None: one attempt'],
] as const;

/** `TOKEN` or `TOKEN:70, TOKEN:30` as the API's target. */
function targetOf(text: string): Record<string, unknown> | undefined {
  const parts = text.split(',').map((part) => part.trim()).filter((part) => part !== '');
  if (parts.length === 0) return undefined;
  if (parts.length === 1 && !(parts[0] as string).includes(':')) return { gateway_token: parts[0] };
  return { split: parts.map((part) => { const [token, weight] = part.split(':').map((item) => item.trim()); return { gateway_token: token ?? '', weight: weight ?? '' }; }) };
}

function targetText(target: RuleTarget): string {
  return 'split' in target ? target.split.map((share) => `${share.gateway_token}:${share.weight}`).join(', ') : target.gateway_token;
}

/** The form as the API's `workflow{…}` body: rules are the API's JSON, so anything the API takes the form takes. */
function bodyOf(request: FastifyRequest, editing: boolean): Record<string, unknown> {
  const form = formOf(request);
  let rules: unknown = [];
  if ((form.rules ?? '').trim() !== '') {
    try {
      rules = JSON.parse(form.rules as string) as unknown;
    } catch {
      throw new AppError({ key: 'errors.invalid', attribute: 'rules', message: 'Rules must be a JSON array of {name, condition, target}, as the API takes them (docs/routing.md).' });
    }
  }
  const backups = Object.keys(form).filter((name) => name.startsWith('backup_')).map((name) => name.slice('backup_'.length));
  return {
    ...(editing ? {} : { key: form.key }),
    name: form.name,
    default: form.default === 'on',
    retry_mode: form.retry_mode,
    success_rate_routing: form.success_rate_routing === 'on',
    rules,
    default_target: targetOf(form.default_target ?? ''),
    backup_gateway_tokens: backups,
  };
}

async function workflowForm(deps: PortalDeps, request: FastifyRequest, env: Environment, current: Workflow | null): Promise<SafeHtml> {
  const gateways = (await deps.gateways.list(env, { sinceToken: null, order: 'asc', count: 100 })).filter((gateway) => gateway.state !== 'redacted');
  const action = current === null ? `/portal/e/${env.key}/workflows` : `/portal/e/${env.key}/workflows/${current.key}`;
  const checked = (on: boolean) => (on ? html` checked` : '');
  return html`<h2>${current === null ? 'Add a workflow' : 'Edit this workflow'}</h2>
<form class="stack" method="post" action="${action}">${csrfField(request)}
  ${current === null ? html`<div class="field"><label for="wf-key">Key <span class="hint">(lower-case letters, digits, _ and -)</span></label><input id="wf-key" name="key" type="text" maxlength="64" required></div>` : null}
  <div class="field"><label for="wf-name">Name</label><input id="wf-name" name="name" type="text" maxlength="200" value="${current?.name ?? ''}" required></div>
  <div class="field"><label for="wf-target">Default target <span class="hint">(a gateway token, or a split: token:70, token:30)</span></label><input id="wf-target" name="default_target" type="text" maxlength="1000" value="${current === null ? '' : targetText(current.defaultTarget)}"></div>
  <fieldset><legend>Backup gateways <span class="hint">(tried in this order after the chosen one)</span></legend>
  ${gateways.length === 0 ? html`<p>No gateways yet.</p>` : gateways.map((gateway) => html`<div class="field"><label><input name="backup_${gateway.token}" type="checkbox"${checked(current?.backupGatewayTokens.includes(gateway.token) === true)}> ${gateway.definition.name} <code>${gateway.token}</code></label></div>`)}
  </fieldset>
  <div class="field"><label for="wf-retry">Retry mode</label><select id="wf-retry" name="retry_mode">${RETRY_MODES.map(([value, label]) => html`<option value="${value}"${(current?.retryMode ?? 'outage_only') === value ? html` selected` : ''}>${label}</option>`)}</select></div>
  <div class="field"><label><input name="success_rate_routing" type="checkbox"${checked(current?.successRateRouting === true)}> Success-rate routing within splits</label></div>
  <div class="field"><label><input name="default" type="checkbox"${checked(current?.isDefault === true)}> Default workflow of this environment</label></div>
  <div class="field"><label for="wf-rules">Rules <span class="hint">(JSON, as the API takes them; first match wins)</span></label><textarea id="wf-rules" name="rules" rows="10" spellcheck="false">${current === null ? '[]' : JSON.stringify(current.rules, null, 2)}</textarea></div>
  <button class="primary" type="submit">${current === null ? 'Create workflow' : 'Save workflow'}</button>
</form>`;
}

/** Workflows (docs/routing.md): list, view; create, edit and remove for owners and admins. */
export function workflowRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get<EnvParams>('/e/:env/workflows', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const frame = await frameFor(deps, request, { title: 'Workflows', current: 'workflows', environment: env, notice: doneNotice(request) });
    const workflows = await deps.workflows.list(env);
    const table = html`<p>Workflows route <code>POST /v1/transactions/purchase</code>, <code>authorize</code> and <code>verify</code> to gateways by rules.</p>
<table><caption class="visually-hidden">Workflows of ${env.name}</caption>
<thead><tr><th scope="col">Key</th><th scope="col">Name</th><th scope="col">Default</th><th scope="col">Rules</th><th scope="col">Retry mode</th><th scope="col">Updated</th></tr></thead>
<tbody>${
      workflows.length === 0
        ? html`<tr><td colspan="6">No workflows yet.</td></tr>`
        : workflows.map((w) => html`<tr><td><a href="/portal/e/${env.key}/workflows/${w.key}"><code>${w.key}</code></a></td><td>${w.name}</td><td>${w.isDefault ? 'yes' : 'no'}</td><td>${String(w.rules.length)}</td><td>${w.retryMode}</td><td>${when(w.updatedAt)}</td></tr>`)
    }</tbody></table>`;
    const create = can(request, 'manage_workflows') ? await workflowForm(deps, request, env, null) : null;
    return sendPage(reply, page(request, frame, html`${table}${create}`));
  });

  portal.post<EnvParams>('/e/:env/workflows', { config: { portal: 'manage_workflows' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const created = await deps.workflows.create(env, workflowInput(bodyOf(request, false)), request);
    await audit(deps, request, { action: 'workflow.create', objectType: 'workflow', objectId: created.key, environmentKey: env.key });
    return redirectTo(reply, `/portal/e/${env.key}/workflows/${created.key}?done=created`);
  });

  portal.get<WorkflowParams>('/e/:env/workflows/:key', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const workflow = await deps.workflows.show(env, request.params.key);
    const frame = await frameFor(deps, request, { title: `Workflow ${workflow.name}`, current: 'workflows', environment: env, notice: doneNotice(request) });
    const manage = can(request, 'manage_workflows')
      ? html`${await workflowForm(deps, request, env, workflow)}
<h2>Remove</h2><details class="confirm"><summary>Remove this workflow</summary>
<form method="post" action="/portal/e/${env.key}/workflows/${workflow.key}/remove">${csrfField(request)}
<p>Transactions naming it are refused from now on; those it routed keep their record.</p><button class="danger" type="submit">Remove workflow</button></form></details>`
      : null;
    return sendPage(reply, page(request, frame, html`${wireSections(workflowView(workflow))}${manage}`));
  });

  portal.post<WorkflowParams>('/e/:env/workflows/:key', { config: { portal: 'manage_workflows' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const updated = await deps.workflows.update(env, request.params.key, workflowInput(bodyOf(request, true)), request);
    await audit(deps, request, { action: 'workflow.update', objectType: 'workflow', objectId: updated.key, environmentKey: env.key });
    return redirectTo(reply, `/portal/e/${env.key}/workflows/${updated.key}?done=updated`);
  });

  portal.post<WorkflowParams>('/e/:env/workflows/:key/remove', { config: { portal: 'manage_workflows' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    await deps.workflows.remove(env, request.params.key, request);
    await audit(deps, request, { action: 'workflow.remove', objectType: 'workflow', objectId: request.params.key, environmentKey: env.key });
    return redirectTo(reply, `/portal/e/${env.key}/workflows?done=removed`);
  });
}
