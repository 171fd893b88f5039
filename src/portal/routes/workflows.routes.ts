import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { workflowInput } from '../../http/routes/workflows.schemas.js';
import { workflowView } from '../../http/views/workflow.view.js';
import type { Workflow } from '../../domain/workflow.js';
import { audit, can, environmentOf, formOf, redirectTo, type PortalDeps } from '../context.js';
import { doneNotice, frameFor } from '../frame.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, page, sendPage, when, type PageFrame } from '../layout.js';
import { wireSections } from '../wire-facts.js';
import type { Environment } from '../../domain/environment.js';
import { bodyOfDraft, conditionText, draftFromForm, draftOf, MAX_EDITOR_RULES, shownDraft, type WorkflowDraft } from '../workflow-draft.js';
import { workflowEditor, gatewayLabel, type GatewayChoice } from '../workflow-editor.js';
import { EMPTY_SAMPLE, explainForm, explainRequest, explanationSection, sampleOf, type ExplainSample } from '../workflow-explain.js';

type EnvParams = { Params: { env: string } };
type WorkflowParams = { Params: { env: string; key: string } };

/** The environment's gateways a workflow may name (redacted ones cannot be routed to). */
async function gatewayChoices(deps: PortalDeps, env: Environment): Promise<GatewayChoice[]> {
  const gateways = await deps.gateways.list(env, { sinceToken: null, order: 'asc', count: 100 });
  return gateways.filter((gateway) => gateway.state !== 'redacted').map((gateway) => ({ token: gateway.token, name: gateway.description ?? gateway.definition.name, gatewayType: gateway.gatewayType }));
}

/** The API's messages of a refused form, in one notice (each names its field; none echoes a value). */
function errorNotice(lead: string, error: AppError): PageFrame['notice'] {
  return { kind: 'error', text: `${lead} ${error.entries.map((entry) => entry.message).join(' · ')}` };
}

/** A workflow in words, for people who do not read JSON: its rules, default target, backups and retry mode. */
function summaryOf(workflow: Workflow, gateways: readonly GatewayChoice[]): SafeHtml {
  const name = (token: string) => {
    const gateway = gateways.find((g) => g.token === token);
    return gateway === undefined ? token : gatewayLabel(gateway);
  };
  const target = (t: Workflow['defaultTarget']) => ('split' in t ? t.split.map((share) => `${name(share.gateway_token)} × ${share.weight}`).join(', ') : name(t.gateway_token));
  return html`<div class="figure-scroll" role="region" tabindex="0" aria-label="How ${workflow.name} routes"><table><caption>How ${workflow.name} routes</caption>
<thead><tr><th scope="col">#</th><th scope="col">Rule</th><th scope="col">When</th><th scope="col">Goes to</th></tr></thead>
<tbody>${workflow.rules.map((rule, i) => html`<tr><td>${i + 1}</td><td>${rule.name}</td><td>${conditionText(rule.condition)}</td><td>${target(rule.target)}</td></tr>`)}
<tr><td></td><td>default target</td><td>no rule matched</td><td>${target(workflow.defaultTarget)}</td></tr></tbody></table></div>
<p>Backups, in order: ${workflow.backupGatewayTokens.length === 0 ? 'none' : workflow.backupGatewayTokens.map(name).join(' → ')}; retry mode <strong>${workflow.retryMode}</strong>${workflow.successRateRouting ? '; success-rate routing within splits' : ''}${workflow.isDefault ? '; the environment’s default workflow' : ''}.</p>`;
}

/** The API's `workflow{…}` from the Advanced JSON form (the object itself, or `{"workflow": {…}}`). */
function jsonBody(request: FastifyRequest): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(formOf(request).workflow_json ?? '');
  } catch {
    throw new AppError({ key: 'errors.invalid', attribute: 'workflow', message: 'The workflow must be a JSON object, as the API takes it (docs/routing.md).' });
  }
  const inner = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) && 'workflow' in parsed ? (parsed as { workflow: unknown }).workflow : parsed;
  if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) throw new AppError({ key: 'errors.invalid', attribute: 'workflow', message: 'The workflow must be a JSON object, as the API takes it (docs/routing.md).' });
  return inner as Record<string, unknown>;
}

/** Workflows (docs/routing.md): list, view and explain; the editor and the JSON form for owners and admins. */
export function workflowRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  async function listPage(request: FastifyRequest, reply: FastifyReply, env: Environment, draft: WorkflowDraft, extraRules: number, notice: PageFrame['notice'], status = 200): Promise<FastifyReply> {
    const frame = await frameFor(deps, request, { title: 'Workflows', current: 'workflows', environment: env, notice });
    const workflows = await deps.workflows.list(env);
    const table = html`<p>Workflows route <code>POST /v1/transactions/purchase</code>, <code>authorize</code> and <code>verify</code> to gateways by rules.</p>
<table><caption class="visually-hidden">Workflows of ${env.name}</caption>
<thead><tr><th scope="col">Key</th><th scope="col">Name</th><th scope="col">Default</th><th scope="col">Rules</th><th scope="col">Retry mode</th><th scope="col">Updated</th></tr></thead>
<tbody>${
      workflows.length === 0
        ? html`<tr><td colspan="6">No workflows yet.</td></tr>`
        : workflows.map((w) => html`<tr><td><a href="/portal/e/${env.key}/workflows/${w.key}"><code>${w.key}</code></a></td><td>${w.name}</td><td>${w.isDefault ? 'yes' : 'no'}</td><td>${String(w.rules.length)}</td><td>${w.retryMode}</td><td>${when(w.updatedAt)}</td></tr>`)
    }</tbody></table>`;
    const create = can(request, 'manage_workflows') ? workflowEditor(request, env.key, shownDraft(draft), null, await gatewayChoices(deps, env), extraRules) : null;
    return sendPage(reply, page(request, frame, html`${table}${create}`), status);
  }

  async function showPage(
    request: FastifyRequest,
    reply: FastifyReply,
    env: Environment,
    workflow: Workflow,
    options: { draft?: WorkflowDraft; extraRules?: number; notice?: PageFrame['notice']; status?: number; sample?: ExplainSample; result?: SafeHtml },
  ): Promise<FastifyReply> {
    const gateways = await gatewayChoices(deps, env);
    const frame = await frameFor(deps, request, { title: `Workflow ${workflow.name}`, current: 'workflows', environment: env, notice: options.notice ?? doneNotice(request) });
    const manage = can(request, 'manage_workflows')
      ? html`${workflowEditor(request, env.key, shownDraft(options.draft ?? draftOf(workflow)), workflow.key, gateways, options.extraRules ?? 1)}
<h2>Remove</h2><details class="confirm"><summary>Remove this workflow</summary>
<form method="post" action="/portal/e/${env.key}/workflows/${workflow.key}/remove">${csrfField(request)}
<p>Transactions naming it are refused from now on; those it routed keep their record.</p><button class="danger" type="submit">Remove workflow</button></form></details>`
      : null;
    const body = html`${summaryOf(workflow, gateways)}
${explainForm(request, env.key, workflow.key, options.sample ?? EMPTY_SAMPLE)}
${options.result ?? null}
${manage}
<details><summary>The API's view of this workflow</summary>${wireSections(workflowView(workflow))}</details>`;
    return sendPage(reply, page(request, frame, body), options.status ?? 200);
  }

  portal.get<EnvParams>('/e/:env/workflows', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    return listPage(request, reply, env, draftOf(null), 1, doneNotice(request));
  });

  portal.post<EnvParams>('/e/:env/workflows', { config: { portal: 'manage_workflows' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const form = formOf(request);
    const draft = draftFromForm(form);
    if (form.action === 'add_rule') return listPage(request, reply, env, draft, Math.min(1, MAX_EDITOR_RULES - draft.rules.length), null);
    try {
      const created = await deps.workflows.create(env, workflowInput(bodyOfDraft(draft, false)), request);
      await audit(deps, request, { action: 'workflow.create', objectType: 'workflow', objectId: created.key, environmentKey: env.key });
      return redirectTo(reply, `/portal/e/${env.key}/workflows/${created.key}?done=created`);
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 422) throw error;
      return listPage(request, reply, env, draft, 0, errorNotice('Nothing was saved. Please check the form:', error), 422);
    }
  });

  portal.post<EnvParams>('/e/:env/workflow-json', { config: { portal: 'manage_workflows' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const created = await deps.workflows.create(env, workflowInput(jsonBody(request)), request);
    await audit(deps, request, { action: 'workflow.create', objectType: 'workflow', objectId: created.key, environmentKey: env.key });
    return redirectTo(reply, `/portal/e/${env.key}/workflows/${created.key}?done=created`);
  });

  portal.get<WorkflowParams>('/e/:env/workflows/:key', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    return showPage(request, reply, env, await deps.workflows.show(env, request.params.key), {});
  });

  portal.post<WorkflowParams>('/e/:env/workflows/:key', { config: { portal: 'manage_workflows' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const workflow = await deps.workflows.show(env, request.params.key);
    const form = formOf(request);
    const draft = { ...draftFromForm(form), key: workflow.key };
    if (form.action === 'add_rule') return showPage(request, reply, env, workflow, { draft, extraRules: Math.min(1, MAX_EDITOR_RULES - draft.rules.length), notice: null });
    try {
      const updated = await deps.workflows.update(env, workflow.key, workflowInput(bodyOfDraft(draft, true)), request);
      await audit(deps, request, { action: 'workflow.update', objectType: 'workflow', objectId: updated.key, environmentKey: env.key });
      return redirectTo(reply, `/portal/e/${env.key}/workflows/${updated.key}?done=updated`);
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 422) throw error;
      return showPage(request, reply, env, workflow, { draft, extraRules: 0, notice: errorNotice('Nothing was saved. Please check the form:', error), status: 422 });
    }
  });

  portal.post<WorkflowParams>('/e/:env/workflows/:key/json', { config: { portal: 'manage_workflows' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const body = jsonBody(request);
    // The key cannot change; naming the workflow's own key is the same as leaving it out.
    if (body.key === request.params.key) delete body.key;
    const updated = await deps.workflows.update(env, request.params.key, workflowInput(body), request);
    await audit(deps, request, { action: 'workflow.update', objectType: 'workflow', objectId: updated.key, environmentKey: env.key });
    return redirectTo(reply, `/portal/e/${env.key}/workflows/${updated.key}?done=updated`);
  });

  // Explain only reads (the API lets a read secret run it): every role, also while the organization is deactivated.
  portal.post<WorkflowParams>('/e/:env/workflows/:key/explain', { config: { portal: 'read', whileInactive: 'allowed' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const workflow = await deps.workflows.show(env, request.params.key);
    const sample = sampleOf(formOf(request));
    try {
      const asked = explainRequest(sample);
      const explanation =
        'facts' in asked
          ? await deps.routedTransactions.explainFacts(env, workflow.key, asked.facts)
          : await deps.routedTransactions.explain(env, workflow.key, { paymentMethodToken: asked.token, ...(asked.amount === null ? {} : { amount: asked.amount }), ...(asked.currency === null ? {} : { currencyCode: asked.currency }), retainOnSuccess: false, attempt3dsecure: false });
      return showPage(request, reply, env, explanation.workflow, { sample, result: explanationSection(explanation, explanation.workflow, await gatewayChoices(deps, env)), notice: null });
    } catch (error) {
      if (!(error instanceof AppError) || error.status !== 422) throw error;
      return showPage(request, reply, env, workflow, { sample, notice: errorNotice('Explain could not run:', error), status: 422 });
    }
  });

  portal.post<WorkflowParams>('/e/:env/workflows/:key/remove', { config: { portal: 'manage_workflows' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    await deps.workflows.remove(env, request.params.key, request);
    await audit(deps, request, { action: 'workflow.remove', objectType: 'workflow', objectId: request.params.key, environmentKey: env.key });
    return redirectTo(reply, `/portal/e/${env.key}/workflows?done=removed`);
  });
}
