import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import type { Environment } from '../../domain/environment.js';
import type { UpstreamStatus } from '../../services/upstream/upstream-settings.service.js';
import { audit, can, environmentOf, formOf, redirectTo, type PortalDeps } from '../context.js';
import { html, type SafeHtml } from '../html.js';
import { noticeFrom } from '../frame.js';
import { csrfField, when, type PageFrame } from '../layout.js';

type EnvParams = { Params: { key: string } };

/** Confirmations of the migration forms, chosen by the redirect's `?upstream=` (fixed texts, never text from the URL). */
const DONE: Record<string, string> = {
  set: 'The upstream was saved. Payment methods this environment does not hold are now pulled from it.',
  cleared: 'The upstream was cleared: nothing is pulled from it any more.',
  backfill: 'The backfill started. Reload this page to follow it.',
  backfill_running: 'A backfill of this environment is already running.',
};

/** Who pointed an environment at another vault: the roles that may change the vault's cards. */
const PERMISSION = 'manage_payment_methods' as const;

/** The confirmation of a migration form, for the environment page's frame. */
export function upstreamNotice(request: FastifyRequest): PageFrame['notice'] {
  return noticeFrom(request, 'upstream', DONE);
}

/** A form field, trimmed; '' when absent. The secret is not trimmed: it is used exactly as typed. */
function field(form: Record<string, string>, name: string): string {
  return (form[name] ?? '').trim();
}

function progress(status: UpstreamStatus): SafeHtml {
  const { upstream, failures, failedCount } = status;
  const { backfill } = upstream;
  const failed = failures.map((failure) => html`<li><code>${failure.paymentMethodToken}</code>: ${failure.reason}</li>`);
  return html`<dl class="facts">
  <dt>Upstream</dt><dd><code>${upstream.url}</code> (environment <code>${upstream.upstreamEnvironmentKey}</code>)</dd>
  <dt>Access secret</dt><dd>Set (never shown again)</dd>
  <dt>Reached back at</dt><dd><code>${upstream.publicUrl}</code></dd>
  <dt>Receiver at the upstream</dt><dd>${upstream.receiverToken === null ? 'Created on the first pull' : html`<code>${upstream.receiverToken}</code>`}</dd>
  <dt>Pulled on demand</dt><dd>${String(upstream.pulledOnDemand)}</dd>
  <dt>Backfill</dt><dd>${backfill.state}: ${String(backfill.seen)} listed, ${String(backfill.backfilled)} copied, ${String(backfill.alreadyHere)} already here${
    backfill.startedAt === null ? '' : html`; started ${when(backfill.startedAt)}`
  }${backfill.finishedAt === null ? '' : html`, finished ${when(backfill.finishedAt)}`}${backfill.throttledUntil === null ? '' : html`; waiting for the upstream until ${when(backfill.throttledUntil)}`}</dd>
  <dt>Failed</dt><dd>${String(failedCount)}</dd>
</dl>${failed.length === 0 ? '' : html`<ul>${failed}</ul>`}`;
}

/** The form that sets the upstream; the secret's field is always empty (left empty: the stored one is kept). */
function settingsForm(request: FastifyRequest, env: Environment, status: UpstreamStatus | undefined): SafeHtml {
  const upstream = status?.upstream;
  const suggestedPublicUrl = `${request.protocol}://${request.host}`;
  return html`<form class="stack" method="post" action="/portal/environments/${env.key}/upstream">
  ${csrfField(request)}
  <div class="field"><label for="upstream-url">Upstream URL <span class="hint">(such as https://core.spreedly.com)</span></label><input id="upstream-url" name="url" type="text" inputmode="url" maxlength="2000" required value="${upstream?.url ?? ''}"></div>
  <div class="field"><label for="upstream-env">Environment key at the upstream</label><input id="upstream-env" name="environment_key" type="text" maxlength="255" required autocomplete="off" value="${upstream?.upstreamEnvironmentKey ?? ''}"></div>
  <div class="field"><label for="upstream-secret">Access secret at the upstream <span class="hint">(${
    upstream === undefined ? 'stored sealed, never shown again' : 'set: leave empty to keep it'
  })</span></label><input id="upstream-secret" name="access_secret" type="password" maxlength="255" autocomplete="new-password"${upstream === undefined ? html` required` : ''}></div>
  <div class="field"><label for="upstream-public">Public URL of this Coffer <span class="hint">(where the upstream delivers cards)</span></label><input id="upstream-public" name="public_url" type="text" inputmode="url" maxlength="2000" required value="${upstream?.publicUrl ?? ''}" placeholder="${suggestedPublicUrl}"></div>
  <div class="field"><label for="upstream-receiver">Receiver token at the upstream <span class="hint">(optional: one is created on the first pull)</span></label><input id="upstream-receiver" name="receiver_token" type="text" maxlength="64" autocomplete="off" value="${upstream?.receiverToken ?? ''}"></div>
  <button class="primary" type="submit">${upstream === undefined ? 'Set upstream' : 'Save upstream'}</button>
</form>`;
}

function actions(request: FastifyRequest, env: Environment, status: UpstreamStatus): SafeHtml {
  const running = status.upstream.backfill.state === 'running';
  return html`<form class="inline" method="post" action="/portal/environments/${env.key}/upstream/backfill">
  ${csrfField(request)}
  <button class="primary" type="submit"${running ? html` disabled` : ''}>${status.upstream.backfill.state === 'interrupted' ? 'Resume backfill' : 'Start backfill'}</button>
  <label><input name="restart" type="checkbox" value="true"> From the start</label>
</form>
<form class="inline" method="post" action="/portal/environments/${env.key}/upstream/clear">
  ${csrfField(request)}
  <button class="danger" type="submit">Clear upstream</button>
</form>`;
}

/**
 * The environment page's "Migration from an upstream vault" (docs/portability.md, "Live
 * migration"; docs/portal.md): where it pulls from and how far it got, for every role; owners
 * and admins also set or clear the upstream and start or resume the backfill. Never the
 * upstream's secret: its field only says that one is set.
 */
export async function migrationSection(deps: PortalDeps, request: FastifyRequest, env: Environment): Promise<SafeHtml | ''> {
  if (deps.upstreams === undefined) return '';
  const status = await deps.upstreams.settings.status(env.key).catch((error: unknown) => {
    if (error instanceof AppError && error.status === 404) return undefined;
    throw error;
  });
  const manage = can(request, PERMISSION);
  if (status === undefined && !manage) return '';
  const intro = html`<p>Pulls each payment method this environment does not hold from a Spreedly-compatible vault, under the same token, the first time
a request names it; the backfill copies the rest. Also <code>coffer upstream</code> and <code>PUT /v1/environments/${env.key}</code>.</p>`;
  return html`<h2 id="migration">Migration from an upstream vault</h2>
${status === undefined ? intro : progress(status)}
${manage && status !== undefined ? actions(request, env, status) : null}
${manage ? html`<h3>${status === undefined ? 'Set the upstream' : 'Change the upstream'}</h3>${settingsForm(request, env, status)}` : null}`;
}

/**
 * The migration forms' actions, through the same services (and so the same validation and
 * messages) as `PUT /v1/environments/<key>`, `DELETE …/upstream` and `POST …/upstream/backfill`.
 */
export function upstreamPortalRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  const upstreams = deps.upstreams;
  if (upstreams === undefined) return;
  const back = (env: Environment, done: string) => `/portal/environments/${env.key}?upstream=${done}#migration`;

  portal.post<EnvParams>('/environments/:key/upstream', { config: { portal: PERMISSION } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.key);
    const form = formOf(request);
    const set = await upstreams.settings.set(env.key, {
      url: field(form, 'url'),
      environmentKey: field(form, 'environment_key'),
      accessSecret: form.access_secret ?? '',
      publicUrl: field(form, 'public_url'),
      receiverToken: field(form, 'receiver_token'),
    });
    await audit(deps, request, {
      action: 'environment.upstream_set',
      objectType: 'environment',
      objectId: env.key,
      environmentKey: env.key,
      details: { url: set.url, upstream_environment_key: set.upstreamEnvironmentKey, public_url: set.publicUrl },
    });
    return redirectTo(reply, back(env, 'set'));
  });

  portal.post<EnvParams>('/environments/:key/upstream/clear', { config: { portal: PERMISSION } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.key);
    await upstreams.settings.clear(env.key);
    await audit(deps, request, { action: 'environment.upstream_clear', objectType: 'environment', objectId: env.key, environmentKey: env.key, details: {} });
    return redirectTo(reply, back(env, 'cleared'));
  });

  portal.post<EnvParams>('/environments/:key/upstream/backfill', { config: { portal: PERMISSION } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.key);
    const started = await upstreams.backfill.start(env, { restart: formOf(request).restart === 'true' });
    if (started) await audit(deps, request, { action: 'environment.upstream_backfill', objectType: 'environment', objectId: env.key, environmentKey: env.key, details: {} });
    return redirectTo(reply, back(env, started ? 'backfill' : 'backfill_running'));
  });
}
