import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../domain/errors.js';
import type { Environment } from '../../domain/environment.js';
import { sameActor, type ExportActor } from '../../domain/payment-method-export.js';
import { exportFilterOf, exportFilterSchema } from '../../services/portability/export-filter.js';
import type { ExportCaller, ExportView } from '../../services/portability/export.service.js';
import { can, environmentOf, formOf, redirectTo, sessionOf, type PortalDeps } from '../context.js';
import { frameFor, noticeFrom } from '../frame.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField, page, sendPage, when } from '../layout.js';

type EnvParams = { Params: { env: string } };
type ExportParams = { Params: { env: string; token: string } };

/** Confirmations chosen by the redirect's `?done=` (fixed texts, never text from the URL). */
const DONE: Record<string, string> = {
  requested: 'Export requested. Another admin must approve it before it can be downloaded.',
  approved: 'Export approved. It can be downloaded once.',
  cancelled: 'Export cancelled. It will never run.',
  rejected: 'Export rejected. It will never run.',
};

function portalCaller(request: FastifyRequest): ExportCaller {
  return { type: 'user', id: sessionOf(request).user.email, address: request.ip ?? null };
}

function who(actor: ExportActor | null): string {
  if (actor === null) return '—';
  return actor.type === 'user' ? actor.id : `API secret ${actor.id}`;
}

function filterText(job: ExportView): string {
  const parts = [job.filter.storageStates.length === 0 ? 'retained and cached' : job.filter.storageStates.join(' and ')];
  if (job.filter.createdFrom !== null) parts.push(`created from ${when(job.filter.createdFrom)}`);
  if (job.filter.createdTo !== null) parts.push(`created before ${when(job.filter.createdTo)}`);
  for (const [key, value] of Object.entries(job.filter.metadata)) parts.push(`metadata ${key} = ${value}`);
  return parts.join('; ');
}

/**
 * What the signed-in person may do with an export: its requester may cancel it while pending;
 * anyone else who manages payment methods may approve or reject it (dual control); once
 * approved, download it; nothing otherwise.
 */
function actionsOf(request: FastifyRequest, env: Environment, job: ExportView, me: ExportActor): SafeHtml | null {
  if (!can(request, 'manage_payment_methods')) return null;
  if (job.shownState === 'pending') {
    if (sameActor(job.requestedBy, me)) {
      return html`<span class="hint">Waiting for another admin</span>
<form method="post" action="/portal/e/${env.key}/exports/${job.token}/cancel">${csrfField(request)}
  <button type="submit">Cancel request<span class="visually-hidden"> export ${job.token}</span></button></form>`;
    }
    return html`<form method="post" action="/portal/e/${env.key}/exports/${job.token}/approve">${csrfField(request)}
  <button class="primary" type="submit">Approve<span class="visually-hidden"> export ${job.token}</span></button></form>
<form method="post" action="/portal/e/${env.key}/exports/${job.token}/reject">${csrfField(request)}
  <button class="danger" type="submit">Reject<span class="visually-hidden"> export ${job.token}</span></button></form>`;
  }
  if (job.shownState === 'approved') {
    return html`<form method="post" action="/portal/e/${env.key}/exports/${job.token}/download">${csrfField(request)}
  <button type="submit">Download once<span class="visually-hidden"> export ${job.token}</span></button></form>`;
  }
  return null;
}

const REQUEST_FORM = (request: FastifyRequest, env: Environment) => html`<h2>Request an export</h2>
<p>The file holds every card in clear for its recipient: it is encrypted to the recipient's OpenPGP public key and signed with
this environment's key. Another admin must approve the request; it can then be downloaded once.</p>
<form method="post" action="/portal/e/${env.key}/exports">${csrfField(request)}
  <div class="field"><label for="export-key">Recipient's OpenPGP public key (armored)</label>
  <textarea id="export-key" name="recipient_public_key" rows="6" required placeholder="-----BEGIN PGP PUBLIC KEY BLOCK-----"></textarea></div>
  <fieldset><legend>Storage states</legend>
    <label><input type="checkbox" name="retained" value="1" checked> retained</label>
    <label><input type="checkbox" name="cached" value="1" checked> cached</label>
  </fieldset>
  <div class="field"><label for="export-from">Created from (ISO-8601, optional)</label><input id="export-from" name="created_from" type="text" placeholder="2024-01-01"></div>
  <div class="field"><label for="export-to">Created before (ISO-8601, optional)</label><input id="export-to" name="created_to" type="text" placeholder="2025-01-01"></div>
  <div class="field"><label for="export-metadata">Metadata to match (one key=value a line, optional)</label><textarea id="export-metadata" name="metadata" rows="2"></textarea></div>
  <button class="primary" type="submit">Request export</button>
</form>`;

/**
 * Exports in the portal (docs/portability.md, "Exporting"): the environment's exports, pending
 * approvals first, each with who requested and approved it and the recipient key's fingerprint;
 * an admin requests one, a different person approves (or rejects) it, and it is downloaded once;
 * its requester may cancel it while it waits. Requests made
 * with an API secret are approved here too (a portal user is a different person from a secret).
 */
export function exportRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  portal.get<EnvParams>('/e/:env/exports', { config: { portal: 'manage_payment_methods' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const jobs = await deps.vaultExports.list(env);
    const frame = await frameFor(deps, request, { title: 'Exports', current: 'payment-methods', environment: env, notice: noticeFrom(request, 'done', DONE) });
    const me = portalCaller(request);
    const pending = jobs.filter((job) => job.shownState === 'pending');
    const others = jobs.filter((job) => job.shownState !== 'pending');
    const rows = (list: ExportView[]) =>
      list.map(
        (job) => html`<tr>
  <td>${when(job.createdAt)}<br><code class="hint">${job.token}</code></td><td>${job.shownState}</td><td>${filterText(job)}</td>
  <td><code>${job.recipientFingerprint}</code><br>${job.recipientUserIds.join(', ')}</td>
  <td>requested by ${who(job.requestedBy)}${job.approvedBy === null ? null : html`<br>approved by ${who(job.approvedBy)}`}${job.downloadedBy === null ? null : html`<br>downloaded by ${who(job.downloadedBy)}`}${job.closedBy === null ? null : html`<br>${job.shownState === 'rejected' ? 'rejected' : 'cancelled'} by ${who(job.closedBy)} at ${when(job.closedAt ?? job.updatedAt)}`}</td>
  <td>${job.paymentMethods === null ? '—' : String(job.paymentMethods)}</td><td>${job.shownState === 'pending' || job.shownState === 'approved' ? when(job.expiresAt) : '—'}</td><td>${actionsOf(request, env, job, me)}</td></tr>`,
      );
    const head = html`<thead><tr><th scope="col">Requested</th><th scope="col">State</th><th scope="col">Selects</th><th scope="col">Recipient key</th><th scope="col">People</th><th scope="col">Exported</th><th scope="col">Expires</th><th scope="col">Action</th></tr></thead>`;
    const body = html`<h2>Pending approvals</h2>
${pending.length === 0 ? html`<p>None.</p>` : html`<p>Check the recipient key's fingerprint with the recipient by another channel before approving.</p>
<table><caption class="visually-hidden">Exports waiting for approval</caption>${head}<tbody>${rows(pending)}</tbody></table>`}
<h2>Other exports</h2>
<table><caption class="visually-hidden">Exports approved, downloaded, cancelled, rejected or expired, newest first</caption>${head}<tbody>${others.length === 0 ? html`<tr><td colspan="8">${jobs.length === 0 ? 'No exports yet.' : 'None.'}</td></tr>` : rows(others)}</tbody></table>
${REQUEST_FORM(request, env)}
<p class="hint">Also <code>coffer export</code> and <code>POST /v1/payment_methods/exports</code> (admin secrets).</p>`;
    return sendPage(reply, page(request, frame, body));
  });

  portal.post<EnvParams>('/e/:env/exports', { config: { portal: 'manage_payment_methods' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const form = formOf(request);
    const metadata: Record<string, string> = {};
    for (const line of (form.metadata ?? '').split(/\r?\n/).map((text) => text.trim()).filter((text) => text !== '')) {
      const at = line.indexOf('=');
      if (at <= 0) throw new AppError({ key: 'errors.invalid', attribute: 'metadata', message: 'Metadata takes one key=value a line' });
      metadata[line.slice(0, at).trim()] = line.slice(at + 1).trim();
    }
    const states = ['retained', 'cached'].filter((state) => form[state] === '1');
    const parsed = exportFilterSchema.safeParse({
      storage_state: states,
      created_from: (form.created_from ?? '').trim() || undefined,
      created_to: (form.created_to ?? '').trim() || undefined,
      metadata,
    });
    if (!parsed.success) {
      const field = String(parsed.error.issues[0]?.path[0] ?? 'filter');
      throw new AppError({ key: 'errors.invalid', attribute: field, message: `${field.charAt(0).toUpperCase()}${field.slice(1).replace(/_/g, ' ')} is invalid (see the hint beside the field)` });
    }
    await deps.vaultExports.request(env, portalCaller(request), { filter: exportFilterOf(parsed.data), recipientPublicKey: form.recipient_public_key });
    return redirectTo(reply, `/portal/e/${env.key}/exports?done=requested`);
  });

  portal.post<ExportParams>('/e/:env/exports/:token/approve', { config: { portal: 'manage_payment_methods' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    await deps.vaultExports.approve(env, request.params.token, portalCaller(request));
    return redirectTo(reply, `/portal/e/${env.key}/exports?done=approved`);
  });

  portal.post<ExportParams>('/e/:env/exports/:token/cancel', { config: { portal: 'manage_payment_methods' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    await deps.vaultExports.cancel(env, request.params.token, portalCaller(request));
    return redirectTo(reply, `/portal/e/${env.key}/exports?done=cancelled`);
  });

  portal.post<ExportParams>('/e/:env/exports/:token/reject', { config: { portal: 'manage_payment_methods' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    await deps.vaultExports.reject(env, request.params.token, portalCaller(request));
    return redirectTo(reply, `/portal/e/${env.key}/exports?done=rejected`);
  });

  // A POST (with the CSRF token), not a link: the one download spends the export.
  portal.post<ExportParams>('/e/:env/exports/:token/download', { config: { portal: 'manage_payment_methods' } }, async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const { job, file } = await deps.vaultExports.download(env, request.params.token, portalCaller(request));
    return reply
      .code(200)
      .header('Content-Type', 'application/pgp-encrypted')
      .header('Content-Disposition', `attachment; filename="coffer-export-${job.token}.jsonl.gpg"`)
      .send(file);
  });
}
