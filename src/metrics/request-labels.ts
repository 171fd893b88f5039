import type { FastifyRequest } from 'fastify';
import { formatOf } from '../http/format/negotiation.js';
import type { RequestFormat } from './coffer-metrics.js';

/**
 * The `format` label: json or xml for the v1 API (its suffix decides), `other` for everything
 * else (the plain-text transcript, the portal, health, metrics, unmatched paths).
 */
export function formatLabel(request: FastifyRequest, route: string | undefined): RequestFormat {
  if (route === undefined || !route.startsWith('/v1/') || request.routeOptions.config.plainText === true) return 'other';
  return formatOf(request.raw);
}
