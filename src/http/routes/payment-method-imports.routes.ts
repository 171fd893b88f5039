import type { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { AppError, fieldError } from '../../domain/errors.js';
import type { ImportKeyService } from '../../services/portability/import-keys.js';
import { isOpenPgp, peek } from '../../services/portability/import-decrypt.js';
import type { ImportOptions, ImportService, ImportSource } from '../../services/portability/import.service.js';
import type { TenancyService } from '../../services/tenancy.service.js';
import { callerOf } from '../auth.js';
import { sendWire, sendWireList } from '../reply.js';
import { paymentMethodImportView } from '../views/payment-method-import.view.js';
import { spoolBody } from './import-spool.js';

type IdParams = { Params: { id: string } };
type KeyParams = { Params: { key: string } };

export interface ImportRouteDeps {
  imports: ImportService;
  importKeys: ImportKeyService;
  tenancy: TenancyService;
}

/** `format`, `allow_expired` and `signed_by` (an armored public key) from the query string. */
export function importOptions(query: Record<string, unknown>): ImportOptions {
  const options: ImportOptions = {};
  const errors = [];
  if (query.format !== undefined) {
    if (query.format === 'jsonl' || query.format === 'csv') options.format = query.format;
    else errors.push(fieldError.inclusion('format'));
  }
  if (query.allow_expired !== undefined) {
    if (query.allow_expired === 'true' || query.allow_expired === 'false') options.allowExpired = query.allow_expired === 'true';
    else errors.push(fieldError.invalid('allow_expired'));
  }
  if (query.signed_by !== undefined) {
    if (typeof query.signed_by === 'string' && query.signed_by.includes('-----BEGIN PGP PUBLIC KEY BLOCK-----')) options.signedBy = query.signed_by;
    else errors.push(fieldError.invalid('signed_by'));
  }
  if (errors.length > 0) throw new AppError(errors);
  return options;
}

/**
 * The file's source. `spool`: the whole body is first received into a private temporary file
 * (import-spool.ts), a clear one encrypted under a key held only in memory, so the upload is not
 * held to the import's pace (the API's route). Otherwise a clear body is read once as it arrives,
 * and an OpenPGP one, which is read twice (import-decrypt.ts), is spooled as the ciphertext it is.
 * A clear file is never written anywhere in clear.
 */
export async function sourceOf(body: Readable, spool = false): Promise<{ source: ImportSource; cleanup: () => Promise<void> }> {
  const first = await peek(body);
  if (first.length === 0) throw new AppError(fieldError.blank('file'));
  const openPgp = isOpenPgp(first);
  if (!openPgp && !spool) {
    let used = false;
    return {
      source: () => {
        if (used) throw new Error('a clear import body is read once');
        used = true;
        return body;
      },
      cleanup: async () => {},
    };
  }
  const spooled = await spoolBody(body, !openPgp);
  return { source: () => spooled.open(), cleanup: () => spooled.remove() };
}

/**
 * Imports over the API (docs/portability.md): the file is the body of
 * `POST /v1/payment_methods/imports` (admin secret), received whole into a private temporary file,
 * then imported; the answer is the job once the file is read to its end. While it runs, `GET /v1/payment_methods/imports` and
 * `GET /v1/payment_methods/imports/<id>` show its progress. `GET /v1/environments/<key>/import_key`
 * serves the environment's armored public import key.
 */
export function paymentMethodImportRoutes(app: FastifyInstance, deps: ImportRouteDeps): void {
  void app.register(async (scope) => {
    // The body is a file in any format: handed to the route as the stream it arrives as.
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.post('/v1/payment_methods/imports', { config: { access: 'admin', streamedBody: true } }, async (request, reply) => {
      const options = importOptions(request.query as Record<string, unknown>);
      const body = request.body as Readable | undefined | null;
      if (body === undefined || body === null || request.headers['content-length'] === '0') throw new AppError(fieldError.blank('file'));
      const { environment } = callerOf(request);
      // Received whole before the import starts: a large file arrives within the request timeout.
      const { source, cleanup } = await sourceOf(body, true);
      const job = await deps.imports.start(environment);
      let ended;
      try {
        ended = await deps.imports.run(environment, job, source, { ...options, request });
      } finally {
        // The body was read to its end into the spool, so the connection can carry the next request.
        await cleanup();
      }
      if (ended.state === 'failed') throw new AppError({ key: 'errors.invalid', attribute: 'file', message: ended.error ?? 'The file cannot be imported' });
      return sendWire(request, reply, 201, 'payment_method_import', paymentMethodImportView(ended));
    });
  });

  app.get('/v1/payment_methods/imports', async (request, reply) => {
    const jobs = await deps.imports.list(callerOf(request).environment);
    return sendWireList(request, reply, 'payment_method_imports', 'payment_method_import', jobs, paymentMethodImportView);
  });

  app.get<IdParams>('/v1/payment_methods/imports/:id', async (request, reply) => {
    const job = await deps.imports.find(callerOf(request).environment, request.params.id);
    if (job === undefined) throw new AppError({ key: 'errors.import_not_found', message: 'Unable to find the specified import.' });
    return sendWire(request, reply, 200, 'payment_method_import', paymentMethodImportView(job));
  });

  app.get<KeyParams>('/v1/environments/:key/import_key', { config: { access: 'admin', organizationWide: true } }, async (request, reply) => {
    const environment = await deps.tenancy.findEnvironment(callerOf(request).organization.token, request.params.key);
    const key = await deps.importKeys.publicKey(environment.key);
    return sendWire(request, reply, 200, 'import_key', { environment_key: environment.key, fingerprint: key.fingerprint, public_key: key.armored });
  });
}
