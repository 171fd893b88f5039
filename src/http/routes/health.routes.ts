import type { FastifyInstance } from 'fastify';
import type { SharedStateStatus } from '../../limits/shared-state-status.js';
import type { StoreHandle } from '../../store/database.js';
import { storeIsReachable } from '../../store/database.js';

/**
 * Liveness and readiness for load balancers and orchestrators; no auth, outside /v1. Readiness
 * follows the store only: with Redis down the node still serves (limits and breaker in its own
 * memory), so it stays 200 and says so in `redis`, present when COFFER_REDIS_URL is set.
 */
export function healthRoutes(app: FastifyInstance, store: StoreHandle, sharedState: SharedStateStatus | null = null): void {
  app.get('/healthz', { config: { access: 'none' } }, async (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', { config: { access: 'none' } }, async (_request, reply) => {
    const reachable = await storeIsReachable(store);
    return reply.code(reachable ? 200 : 503).send({
      status: reachable ? 'ready' : 'unavailable',
      store: reachable ? 'ok' : 'unreachable',
      ...(sharedState === null ? {} : { redis: sharedState.readiness() }),
    });
  });
}
