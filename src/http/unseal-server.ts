import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';
import type { SealStatus, SharesMasterKey } from '../vault/master-key-providers/shares.js';
import { UnsealError } from '../vault/master-key-providers/shares.js';
import { clientErrorHandler } from './client-errors.js';
import { errorHandler } from './errors.js';
import { rememberFormat } from './format/negotiation.js';

/** A share is 66 hex characters: a body needs no more than this. */
const UNSEAL_BODY_LIMIT = 1024;

function statusOut(status: SealStatus) {
  return { sealed: status.sealed, initialised: status.initialised, submitted: status.submitted, threshold: status.threshold, shares: status.shares };
}

/**
 * The admin-only unseal listener of a `shares` node (docs/key-custody.md): plain HTTP, bound to
 * COFFER_UNSEAL_HOST (127.0.0.1 by default), so only someone on the node reaches it; `coffer unseal`
 * speaks to it. GET /unseal is the seal's state, POST /unseal `{"share":"<hex>"}` submits one
 * custodian's share, DELETE /unseal forgets the shares submitted so far. Bodies are never logged;
 * a refusal names why, never the share.
 */
export function buildUnsealServer(seal: SharesMasterKey, logger: Logger): FastifyInstance {
  const handleError = errorHandler(logger);
  const app = Fastify({ logger: false, bodyLimit: UNSEAL_BODY_LIMIT, clientErrorHandler, frameworkErrors: (error, request, reply) => void handleError(error, request, reply) });
  app.setErrorHandler(handleError);
  // This listener speaks JSON only, its errors included.
  app.addHook('onRequest', async (request) => rememberFormat(request.raw, 'json'));
  app.setNotFoundHandler(() => {
    throw new AppError({ key: 'errors.route_not_found', message: 'The requested resource does not exist.' });
  });
  app.get('/unseal', async () => statusOut(seal.status()));
  app.delete('/unseal', async () => statusOut(seal.reset()));
  app.post('/unseal', async (request) => {
    const body = request.body as { share?: unknown } | null;
    const share = body !== null && typeof body === 'object' ? body.share : undefined;
    if (typeof share !== 'string') throw new AppError({ key: 'errors.blank', attribute: 'share', message: 'share must be given: {"share":"<hex>"}' });
    const wasSealed = seal.sealed();
    try {
      const status = await seal.submit(share);
      if (wasSealed && !status.sealed) logger.info('vault unsealed');
      else if (status.sealed) logger.info({ submitted: status.submitted, threshold: status.threshold }, 'unseal share accepted');
      return statusOut(status);
    } catch (error) {
      if (!(error instanceof UnsealError)) throw error;
      logger.warn({ refusal: error.refusal }, 'unseal share refused');
      throw new AppError({ key: 'errors.invalid', attribute: 'share', message: error.message, extra: { refusal: error.refusal } });
    }
  });
  return app;
}
