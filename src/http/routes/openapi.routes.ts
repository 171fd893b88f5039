import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { buildOpenApiDocument } from '../openapi/document.js';
import { formatOf } from '../format/negotiation.js';

/** The version the document states: the API's (v1), with Coffer's release line. */
const DOCUMENT_VERSION = '1.0.0';

/**
 * GET /v1/openapi.json: the machine-readable contract, public (no secrets in it), built once on
 * first request. JSON only: `.xml` is not a form of this document.
 */
export function openApiRoutes(app: FastifyInstance): void {
  let document: string | null = null;
  app.get('/v1/openapi', { config: { access: 'none' } }, async (request, reply) => {
    if (formatOf(request.raw) !== 'json') throw new AppError({ key: 'errors.route_not_found', message: 'The requested resource does not exist.' });
    document ??= JSON.stringify(buildOpenApiDocument(DOCUMENT_VERSION));
    return reply.code(200).type('application/json; charset=utf-8').send(document);
  });
}
