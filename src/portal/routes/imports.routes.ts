import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.js';
import type { PaymentMethodImport } from '../../domain/payment-method-import.js';
import { can, environmentOf, type PortalDeps } from '../context.js';
import { importUploadRoute, uploadForm } from './import-upload.routes.js';
import { frameFor } from '../frame.js';
import { html } from '../html.js';
import { page, sendPage, when, type PageFrame } from '../layout.js';

type EnvParams = { Params: { env: string } };
type JobParams = { Params: { env: string; token: string } };

/** Rows of a report a page shows; the API and `coffer import --map` give the whole lists. */
const SHOWN = 200;

function counts(job: PaymentMethodImport) {
  const { rows, imported, skipped, rejected } = job.report;
  return html`<td>${String(rows)}</td><td>${String(imported)}</td><td>${String(skipped)}</td><td>${String(rejected)}</td>`;
}

/**
 * Imports in the portal (docs/portability.md): the environment's import jobs with their progress,
 * one job's report (refused rows by number and reason, new tokens), and the import key to encrypt
 * files to. Owners and admins upload a file here (import-upload.ts), as `coffer import` and the API
 * take it; nothing here shows a value of a file.
 */
export function importRoutes(portal: FastifyInstance, deps: PortalDeps): void {
  importUploadRoute(portal, deps);
  portal.get<EnvParams>('/e/:env/imports', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const [jobs, key] = await Promise.all([deps.imports.list(env), deps.importKeys.publicKey(env.key)]);
    const frame = await frameFor(deps, request, { title: 'Imports', current: 'payment-methods', environment: env });
    const body = html`<p>Cards from another vault are imported with the form below, <code>coffer import --environment ${env.key} FILE</code> or
<code>POST /v1/payment_methods/imports</code> (an admin secret). Each import is listed here while it runs and after.</p>
${can(request, 'manage_payment_methods') ? uploadForm(request, env) : null}
<table>
  <caption class="visually-hidden">Imports, newest first</caption>
  <thead><tr><th scope="col">Started</th><th scope="col">Import</th><th scope="col">State</th><th scope="col">Rows</th><th scope="col">Imported</th><th scope="col">Skipped</th><th scope="col">Rejected</th></tr></thead>
  <tbody>${
    jobs.length === 0
      ? html`<tr><td colspan="7">No imports yet.</td></tr>`
      : jobs.map((job) => html`<tr><td class="nowrap">${when(job.createdAt)}</td><td><a href="/portal/e/${env.key}/imports/${job.token}"><code>${job.token}</code></a></td><td>${job.state}</td>${counts(job)}</tr>`)
  }</tbody>
</table>
<h2>Import key</h2>
<p>Encrypt files to this OpenPGP key (fingerprint <code>${key.fingerprint}</code>); only this environment can read them.</p>
<pre>${key.armored}</pre>`;
    return sendPage(reply, page(request, frame, body));
  });

  portal.get<JobParams>('/e/:env/imports/:token', async (request, reply) => {
    const env = await environmentOf(deps, request, request.params.env);
    const job = await deps.imports.find(env, request.params.token);
    if (job === undefined) throw new AppError({ key: 'errors.import_not_found', message: 'Unable to find the specified import.' });
    const uploaded = (request.query as Record<string, unknown> | undefined)?.uploaded === '1';
    const notice: PageFrame['notice'] =
      job.state === 'failed' ? { kind: 'error', text: `The import failed. ${job.error ?? 'The file could not be read'}.` } : uploaded && job.state === 'succeeded' ? { kind: 'ok', text: 'The file was imported. Its report is below.' } : null;
    const frame = await frameFor(deps, request, { title: `Import ${job.token}`, current: 'payment-methods', environment: env, notice });
    const { rejections, remapped } = job.report;
    const body = html`<table><thead><tr><th scope="col">State</th><th scope="col">Format</th><th scope="col">Rows</th><th scope="col">Imported</th><th scope="col">Skipped</th><th scope="col">Rejected</th></tr></thead>
<tbody><tr><td>${job.state}${job.encrypted ? ' (encrypted)' : ''}</td><td>${job.format ?? '—'}</td>${counts(job)}</tr></tbody></table>
<h2>Rejected rows</h2>
${rejections.length === 0 ? html`<p>None.</p>` : html`<table><thead><tr><th scope="col">Row</th><th scope="col">Reason</th><th scope="col">Field</th></tr></thead>
<tbody>${rejections.slice(0, SHOWN).map((r) => html`<tr><td>${String(r.row)}</td><td><code>${r.reason}</code></td><td>${r.field ?? '—'}</td></tr>`)}</tbody></table>`}
<h2>New tokens</h2>
${remapped.length === 0 ? html`<p>None: every token was kept.</p>` : html`<table><thead><tr><th scope="col">Row</th><th scope="col">Old token</th><th scope="col">New token</th></tr></thead>
<tbody>${remapped.slice(0, SHOWN).map((r) => html`<tr><td>${String(r.row)}</td><td><code>${r.old_token ?? '—'}</code></td><td><code>${r.new_token}</code></td></tr>`)}</tbody></table>`}
${rejections.length > SHOWN || remapped.length > SHOWN || job.report.truncated ? html`<p class="hint">The first ${String(SHOWN)} of each list; the API and <code>coffer import --map</code> give them all.</p>` : null}`;
    return sendPage(reply, page(request, frame, body));
  });
}
