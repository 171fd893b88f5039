import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';
import { clientErrorHandler } from './client-errors.js';
import { errorHandler } from './errors.js';
import { metricsRoutes, type MetricsEndpoint } from './routes/metrics.routes.js';

/**
 * The separate metrics listener (COFFER_METRICS_PORT): plain HTTP, GET /metrics and nothing else,
 * so the scraper never needs a route to the API port nor its TLS. Bound to 127.0.0.1 unless
 * COFFER_METRICS_HOST says otherwise; with COFFER_METRICS_TOKEN set it needs the token too.
 */
export function buildMetricsServer(endpoint: MetricsEndpoint, logger: Logger): FastifyInstance {
  const handleError = errorHandler(logger);
  const app = Fastify({ logger: false, clientErrorHandler, frameworkErrors: (error, request, reply) => void handleError(error, request, reply) });
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(() => {
    throw new AppError({ key: 'errors.route_not_found', message: 'The requested resource does not exist.' });
  });
  metricsRoutes(app, endpoint);
  return app;
}
