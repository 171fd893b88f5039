import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';
import type { AuthService } from '../services/auth.service.js';
import type { GatewayService } from '../services/gateway.service.js';
import type { PaymentMethodService } from '../services/payment-method.service.js';
import type { GatewayTransactionService } from '../services/transactions/gateway-transaction.service.js';
import type { TransactionQueryService } from '../services/transactions/transaction-query.service.js';
import type { IdempotencyService } from '../services/idempotency.service.js';
import { registerIdempotency } from './idempotency.js';
import type { TenancyService } from '../services/tenancy.service.js';
import type { StoreHandle } from '../store/database.js';
import { authenticateHook } from './auth.js';
import { BODY_LIMIT, registerBodyDecoder } from './body.js';
import { errorHandler } from './errors.js';
import { acceptAllows, formatOf, rememberFormat, splitFormat } from './format/negotiation.js';
import { environmentRoutes } from './routes/environments.routes.js';
import { gatewayRoutes } from './routes/gateways.routes.js';
import { healthRoutes } from './routes/health.routes.js';
import { paymentMethodRoutes } from './routes/payment-methods.routes.js';
import { transactionRoutes } from './routes/transactions.routes.js';
import { serverTlsOptions } from './tls/tls-options.js';

/** Everything the HTTP layer calls; built by the composition root. */
export interface HttpDependencies {
  store: StoreHandle;
  logger: Logger;
  auth: AuthService;
  tenancy: TenancyService;
  gateways: GatewayService;
  paymentMethods: PaymentMethodService;
  transactions: GatewayTransactionService;
  transactionQuery: TransactionQueryService;
  idempotency: IdempotencyService;
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** A run of digits as long as a card number: never echoed or logged, whatever it is. */
const CARD_LIKE = /\d{12,}/;

function requestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) && !CARD_LIKE.test(incoming) ? incoming : randomUUID();
}

/**
 * Builds the Fastify app. Order of checks on a request: format (suffix) and Accept (406),
 * authentication (401/402), body size (413), Content-Type (415), body syntax (422), then
 * the route's own validation and service call.
 */
export function buildHttpApp(deps: HttpDependencies, tls: { key: string; cert: string } | null): FastifyInstance {
  const serverFactory =
    tls === null
      ? undefined
      : (handler: (req: IncomingMessage, res: ServerResponse) => void) => https.createServer(serverTlsOptions(tls), handler);
  const app = Fastify({
    logger: false,
    bodyLimit: BODY_LIMIT,
    genReqId: requestId,
    // The suffix picks the format; routes are declared once, without it.
    rewriteUrl: (req) => {
      const { url, format } = splitFormat(req.url ?? '/');
      rememberFormat(req, format);
      return url;
    },
    routerOptions: { ignoreTrailingSlash: true },
    ...(serverFactory === undefined ? {} : { serverFactory: serverFactory as never }),
  });

  app.decorateRequest('auth', null);
  registerBodyDecoder(app);
  app.setErrorHandler(errorHandler(deps.logger));
  app.setNotFoundHandler(() => {
    throw new AppError({ key: 'errors.route_not_found', message: 'The requested resource does not exist.' });
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
    if (request.routeOptions.config.plainText !== true && !acceptAllows(formatOf(request.raw), request.headers.accept)) {
      throw new AppError({ key: 'errors.not_acceptable', message: 'The Accept header does not allow the requested format.' });
    }
  });
  app.addHook('onRequest', authenticateHook(deps.auth));
  registerIdempotency(app, deps.idempotency);

  // One line per request; never bodies, headers or query strings (they can carry secrets).
  app.addHook('onResponse', async (request, reply) => {
    deps.logger.info(
      {
        reqId: request.id,
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 100) / 100,
        environmentKey: request.auth?.environment.key ?? null,
      },
      'request',
    );
  });

  healthRoutes(app, deps.store);
  gatewayRoutes(app, deps.gateways);
  environmentRoutes(app, deps.tenancy);
  paymentMethodRoutes(app, deps.paymentMethods);
  transactionRoutes(app, deps.transactions, deps.transactionQuery);
  return app;
}
