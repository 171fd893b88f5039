import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { ExportFilter } from '../../domain/payment-method-export.js';
import type { ExportCaller, ExportService } from '../../services/portability/export.service.js';
import { callerOf } from '../auth.js';
import { fieldsOf } from '../body.js';
import { sendWire, sendWireList } from '../reply.js';
import { parseInput } from '../validation.js';
import { paymentMethodExportView } from '../views/payment-method-export.view.js';
import { exportFilterOf, exportRequestSchema } from '../../services/portability/export-filter.js';

type IdParams = { Params: { id: string } };

export interface ExportRouteDeps {
  vaultExports: ExportService;
}

/** The person behind an API call: the access secret that made it. */
function apiCaller(request: FastifyRequest): ExportCaller {
  return { type: 'access_secret', id: callerOf(request).secret.key, address: request.ip ?? null };
}

/**
 * Exports over the API (docs/portability.md, "Exporting"), admin secrets only: one requests
 * (`POST /v1/payment_methods/exports`), a different one approves (`…/<id>/approve`) or rejects
 * (`…/<id>/reject`), the requester may cancel it while pending (`…/<id>/cancel`), and the file
 * is downloaded once (`GET …/<id>/download`, OpenPGP binary, encrypted to the recipient's key and
 * signed by the environment's import key).
 */
export function paymentMethodExportRoutes(app: FastifyInstance, deps: ExportRouteDeps): void {
  const admin = { config: { access: 'admin' as const } };

  app.post('/v1/payment_methods/exports', admin, async (request, reply) => {
    const input = parseInput(exportRequestSchema, fieldsOf(request, 'payment_method_export'));
    const filter: ExportFilter = exportFilterOf(input);
    const job = await deps.vaultExports.request(callerOf(request).environment, apiCaller(request), { filter, recipientPublicKey: input.recipient_public_key });
    return sendWire(request, reply, 201, 'payment_method_export', paymentMethodExportView(job));
  });

  app.get('/v1/payment_methods/exports', admin, async (request, reply) => {
    const jobs = await deps.vaultExports.list(callerOf(request).environment);
    return sendWireList(request, reply, 'payment_method_exports', 'payment_method_export', jobs, paymentMethodExportView);
  });

  app.get<IdParams>('/v1/payment_methods/exports/:id', admin, async (request, reply) => {
    const job = await deps.vaultExports.find(callerOf(request).environment, request.params.id);
    return sendWire(request, reply, 200, 'payment_method_export', paymentMethodExportView(job));
  });

  app.post<IdParams>('/v1/payment_methods/exports/:id/approve', admin, async (request, reply) => {
    const job = await deps.vaultExports.approve(callerOf(request).environment, request.params.id, apiCaller(request));
    return sendWire(request, reply, 200, 'payment_method_export', paymentMethodExportView(job));
  });

  // The requester withdraws their pending export; a different admin refuses one (docs/portability.md).
  app.post<IdParams>('/v1/payment_methods/exports/:id/cancel', admin, async (request, reply) => {
    const job = await deps.vaultExports.cancel(callerOf(request).environment, request.params.id, apiCaller(request));
    return sendWire(request, reply, 200, 'payment_method_export', paymentMethodExportView(job));
  });

  app.post<IdParams>('/v1/payment_methods/exports/:id/reject', admin, async (request, reply) => {
    const job = await deps.vaultExports.reject(callerOf(request).environment, request.params.id, apiCaller(request));
    return sendWire(request, reply, 200, 'payment_method_export', paymentMethodExportView(job));
  });

  app.get<IdParams>('/v1/payment_methods/exports/:id/download', admin, async (request, reply) => {
    const { job, file } = await deps.vaultExports.download(callerOf(request).environment, request.params.id, apiCaller(request));
    return reply
      .code(200)
      .header('Content-Type', 'application/pgp-encrypted')
      .header('Content-Disposition', `attachment; filename="coffer-export-${job.token}.jsonl.gpg"`)
      .header('Cache-Control', 'no-store')
      .send(file);
  });
}

