import type { FastifyInstance } from 'fastify';
import { AppError } from '../../domain/errors.js';
import { bearerChecker } from '../../metrics/bearer-token.js';
import type { CofferMetrics } from '../../metrics/coffer-metrics.js';

/** Where this listener serves /metrics: the metrics, and the bearer token guarding them (null: none). */
export interface MetricsEndpoint {
  metrics: CofferMetrics;
  token: string | null;
}

function notFound(): AppError {
  return new AppError({ key: 'errors.route_not_found', message: 'The requested resource does not exist.' });
}

/**
 * GET /metrics in the Prometheus text format, outside the v1 API and its credentials (the v1
 * Basic secrets are never accepted here). `endpoint` null: this listener does not serve metrics,
 * and /metrics is the same 404 as any unknown path.
 */
export function metricsRoutes(app: FastifyInstance, endpoint: MetricsEndpoint | null): void {
  const authorized = endpoint?.token == null ? null : bearerChecker(endpoint.token);
  app.get('/metrics', { config: { access: 'none', plainText: true } }, async (request, reply) => {
    if (endpoint === null) throw notFound();
    if (authorized !== null && !authorized(request.headers.authorization)) {
      throw new AppError({ key: 'errors.access_denied', message: 'GET /metrics needs Authorization: Bearer with the metrics token.' }, { 'WWW-Authenticate': 'Bearer realm="coffer-metrics"' });
    }
    const text = await endpoint.metrics.scrape();
    return reply.header('Cache-Control', 'no-store').type(endpoint.metrics.contentType).send(text);
  });
}
