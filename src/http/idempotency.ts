import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { IdempotencyService } from '../services/idempotency.service.js';
import type { DecodedBody } from './format/json-codec.js';
import { formatOf } from './format/negotiation.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A success of this route returns a secret: never stored for replay (API.md §8). */
    responseCarriesSecret?: boolean;
  }
  interface FastifyRequest {
    /** The Idempotency-Key this request claimed, settled when its response is sent. */
    idempotencyKey: string | null;
  }
}

/** Same method, route, token, format and body: the "same request" an Idempotency-Key may repeat. */
function requestHash(request: FastifyRequest): string {
  // No body and an empty body are the same request ("no parameters").
  const body = request.body as DecodedBody | undefined;
  const parameters = body === undefined || body === null || body.root === null ? null : body;
  return createHash('sha256')
    .update(JSON.stringify([request.method, request.routeOptions.url, request.params, formatOf(request.raw), parameters]))
    .digest('hex');
}

/**
 * API.md §8 Idempotency-Key on POST and PUT. Runs after authentication (keys are per
 * environment) and body decoding; replays carry `Idempotent-Replayed: true`.
 */
export function registerIdempotency(app: FastifyInstance, idempotency: IdempotencyService): void {
  app.decorateRequest('idempotencyKey', null);

  // Callback hooks: a request without the header (most) passes without a promise (docs/benchmarks.md).
  app.addHook('preHandler', (request, reply, done) => {
    const key = request.headers['idempotency-key'];
    if (typeof key !== 'string' || (request.method !== 'POST' && request.method !== 'PUT') || request.auth === null) return done();
    idempotency.claim(request.auth.environment.key, key, requestHash(request)).then((claim) => {
      if (claim.kind !== 'replay') {
        request.idempotencyKey = key;
        return done();
      }
      // A replay is answered here, and the chain ends: done is not called.
      try {
        reply.code(claim.status).type(claim.contentType).header('Idempotent-Replayed', 'true').send(claim.body);
      } catch (error) {
        done(error as Error);
      }
    }, done);
  });

  app.addHook('onSend', (request, reply, payload, done) => {
    if (request.idempotencyKey === null || request.auth === null) return done(null, payload);
    const key = request.idempotencyKey;
    request.idempotencyKey = null;
    idempotency
      .settle(
        request.auth.environment.key,
        key,
        {
          status: reply.statusCode,
          contentType: String(reply.getHeader('content-type') ?? 'application/json'),
          body: typeof payload === 'string' ? payload : Buffer.isBuffer(payload) ? payload.toString('utf8') : '',
        },
        request.routeOptions.config.responseCarriesSecret === true,
      )
      .then(() => done(null, payload), done);
  });
}
