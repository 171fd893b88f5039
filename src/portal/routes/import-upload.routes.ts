import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, fieldError } from '../../domain/errors.js';
import type { Environment } from '../../domain/environment.js';
import { describeBytes, PORTAL_IMPORT_FILE_LIMIT } from '../../http/body-limits.js';
import { importOptions, sourceOf } from '../../http/routes/payment-method-imports.routes.js';
import type { PaymentMethodImport } from '../../domain/payment-method-import.js';
import { audit, environmentOf, redirectTo, type PortalDeps } from '../context.js';
import { sessionAccess } from '../route-access.js';
import { html, type SafeHtml } from '../html.js';
import { csrfField } from '../layout.js';
import { readUpload, type Upload } from '../multipart-upload.js';

type EnvParams = { Params: { env: string } };

/** The parsed body's upload, beside its text fields (which the portal's guard reads `_csrf` from). */
const UPLOAD = Symbol('upload');

/**
 * The upload form. Its text fields come before the file input: a browser sends them in this order,
 * so the CSRF token and the options are read before the file (multipart-upload.ts).
 */
export function uploadForm(request: FastifyRequest, env: Environment): SafeHtml {
  return html`<h2>Upload a file</h2>
<form class="stack" method="post" action="/portal/e/${env.key}/imports" enctype="multipart/form-data">
  ${csrfField(request)}
  <div class="field"><label for="import-format">Format</label><select id="import-format" name="format">
    <option value="">Found from the file</option><option value="jsonl">JSON Lines</option><option value="csv">CSV</option></select></div>
  <div class="field"><label><input name="allow_expired" type="checkbox" value="true"> Import expired cards too</label></div>
  <div class="field"><label for="import-signed-by">Sender's OpenPGP public key <span class="hint">(optional: the file must then be encrypted to the import key below and signed by it)</span></label>
  <textarea id="import-signed-by" name="signed_by" rows="3" placeholder="-----BEGIN PGP PUBLIC KEY BLOCK-----"></textarea></div>
  <div class="field"><label for="import-file">Import file <span class="hint">(JSON Lines or CSV, in clear or encrypted to the import key; at most ${describeBytes(PORTAL_IMPORT_FILE_LIMIT)})</span></label>
  <input id="import-file" name="file" type="file" required></div>
  <button class="primary" type="submit">Upload and import</button>
</form>
<p class="hint">The import runs while the file uploads; this page waits for it, then shows its report. Larger files: <code>coffer import</code>.</p>`;
}

/** The options of the form, read as the API reads its query string (the same checks and messages). */
function optionsOf(fields: Record<string, string>) {
  const query: Record<string, string> = {};
  const format = (fields.format ?? '').trim();
  if (format !== '') query.format = format;
  if (fields.allow_expired === 'true') query.allow_expired = 'true';
  const signedBy = (fields.signed_by ?? '').trim();
  if (signedBy !== '') query.signed_by = signedBy;
  return importOptions(query);
}

/**
 * `POST /portal/e/<key>/imports` (owners and admins): the uploaded file is imported as the API
 * imports its body, streamed (an encrypted file spooled as ciphertext only, since it is read twice),
 * then the browser is sent to the job's report. A file refused as a whole (a wrong key, a missing
 * signature, a bad header) is a failed job whose report says why, with nothing imported.
 */
export function importUploadRoute(portal: FastifyInstance, deps: PortalDeps): void {
  void portal.register(async (scope) => {
    // Only this route reads multipart bodies; every other portal form stays URL-encoded.
    scope.addContentTypeParser('multipart/form-data', (request, payload, done) => {
      readUpload(payload, request.headers['content-type']).then(
        (upload) => done(null, { ...upload.fields, [UPLOAD]: upload }),
        (error: unknown) => done(error instanceof Error ? error : new Error(String(error)), undefined),
      );
    });
    scope.post<EnvParams>(
      '/e/:env/imports',
      {
        bodyLimit: PORTAL_IMPORT_FILE_LIMIT,
        config: { portal: 'manage_payment_methods', streamedBody: true },
        // Before the body is read: a stranger, or a role that may not import, gets nothing of an
        // upload read (the portal's guard, which also checks the CSRF token, runs after the body).
        onRequest: async (request) => {
          sessionAccess(request);
        },
      },
      async (request, reply) => {
        const upload = (request.body as { [UPLOAD]?: Upload } | undefined)?.[UPLOAD];
        if (upload === undefined) throw new AppError({ key: 'errors.invalid', attribute: 'file', message: 'Choose a file to upload.' });
        const stream = upload.file?.stream;
        try {
          const env = await environmentOf(deps, request, request.params.env);
          const options = optionsOf(upload.fields);
          if (stream === undefined) throw new AppError(fieldError.blank('file'));
          const ended = await importFile(deps, env, stream, options);
          await audit(deps, request, {
            action: 'payment_method_import.upload',
            objectType: 'payment_method_import',
            objectId: ended.token,
            environmentKey: env.key,
            details: { state: ended.state, rows: ended.report.rows, imported: ended.report.imported, skipped: ended.report.skipped, rejected: ended.report.rejected },
          });
          return redirectTo(reply, `/portal/e/${env.key}/imports/${ended.token}?uploaded=1`);
        } finally {
          // A file refused before its end leaves the rest unread: read past it, so the page can be answered.
          if (stream !== undefined && !stream.readableEnded) stream.resume();
        }
      },
    );
  });
}

async function importFile(deps: PortalDeps, env: Environment, stream: Parameters<typeof sourceOf>[0], options: ReturnType<typeof importOptions>): Promise<PaymentMethodImport> {
  const { source, cleanup } = await sourceOf(stream);
  const job = await deps.imports.start(env);
  try {
    return await deps.imports.run(env, job, source, options);
  } finally {
    await cleanup();
  }
}
