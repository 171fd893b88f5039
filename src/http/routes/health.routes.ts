import type { FastifyInstance } from 'fastify';
import type { SharedStateStatus } from '../../limits/shared-state-status.js';
import type { StoreHandle } from '../../store/database.js';
import { storeIsReachable } from '../../store/database.js';

/**
 * Liveness and readiness for load balancers and orchestrators; no auth, outside /v1. Readiness
 * follows the store only: with Redis down the node still serves (limits and breaker in its own
 * memory), so it stays 200 and says so in `redis`, present when COFFER_REDIS_URL is set. A sealed
 * vault or an unreachable HSM is 503, with `master_key` saying which (docs/key-custody.md).
 */
/** What /readyz says of the master key (docs/key-custody.md): a sealed vault or an unreachable HSM is not ready. */
export interface KeyReadiness {
  ready: boolean;
  /** ok, sealed or unreachable. */
  masterKey: string;
  /** While sealed: shares submitted so far and how many unseal. */
  unseal?: { submitted: number; threshold: number };
}

export function healthRoutes(app: FastifyInstance, store: StoreHandle, sharedState: SharedStateStatus | null = null, keyReadiness: (() => KeyReadiness | null) | null = null): void {
  app.get('/healthz', { config: { access: 'none' } }, async (_request, reply) => reply.send({ status: 'ok' }));
  app.get('/readyz', { config: { access: 'none' } }, async (_request, reply) => {
    const reachable = await storeIsReachable(store);
    const key = keyReadiness?.() ?? null;
    const ready = reachable && (key?.ready ?? true);
    return reply.code(ready ? 200 : 503).send({
      status: ready ? 'ready' : key?.masterKey === 'sealed' ? 'sealed' : 'unavailable',
      store: reachable ? 'ok' : 'unreachable',
      ...(key === null ? {} : { master_key: key.masterKey, ...(key.unseal === undefined ? {} : { unseal: key.unseal }) }),
      ...(sharedState === null ? {} : { redis: sharedState.readiness() }),
    });
  });
}
