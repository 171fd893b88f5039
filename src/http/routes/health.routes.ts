import type { FastifyInstance } from 'fastify';
import type { StoreHandle } from '../../store/database.js';
import { storeIsReachable } from '../../store/database.js';

/** Liveness and readiness for load balancers and orchestrators; no auth, outside /v1. */
export function healthRoutes(app: FastifyInstance, store: StoreHandle): void {
  app.get('/healthz', { config: { access: 'none' } }, async (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', { config: { access: 'none' } }, async (_request, reply) => {
    const reachable = await storeIsReachable(store);
    return reply.code(reachable ? 200 : 503).send({ status: reachable ? 'ready' : 'unavailable', store: reachable ? 'ok' : 'unreachable' });
  });
}
