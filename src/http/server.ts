import { pullThroughHook, upstreamRoutes } from './routes/upstream.routes.js';
import type { UpstreamCore } from '../upstream-wiring.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { newRequestId } from './request-ids.js';
import https from 'node:https';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { AppError } from '../domain/errors.js';
import { containsCardLike } from '../domain/scrubbing/card-like.js';
import type { AuthService } from '../services/auth.service.js';
import type { GatewayService } from '../services/gateway.service.js';
import type { CertificateService } from '../services/certificate.service.js';
import type { PaymentMethodService } from '../services/payment-method.service.js';
import type { GatewayTransactionService } from '../services/transactions/gateway-transaction.service.js';
import type { AttemptChain } from '../services/routing/attempt-chain.js';
import type { TransactionQueryService } from '../services/transactions/transaction-query.service.js';
import type { IdempotencyService } from '../services/idempotency.service.js';
import { registerIdempotency } from './idempotency.js';
import { registerMcpAudit } from './mcp-audit.js';
import { trackRequestCommits } from '../store/request-commits.js';
import { registerRateLimits, type RateLimiting } from './rate-limit.js';
import type { SharedStateStatus } from '../limits/shared-state-status.js';
import type { TenancyService } from '../services/tenancy.service.js';
import type { AuditService } from '../services/audit.service.js';
import { auditRoutes } from './routes/audit.routes.js';
import { cardAccessRoutes } from './routes/card-access.routes.js';
import type { CardAccessService } from '../services/card-access.service.js';
import type { StoreHandle } from '../store/database.js';
import { authenticateHook } from './auth.js';
import { registerBodyDecoder } from './body.js';
import { BodyBytesInFlight, registerBodyIntake } from './body-intake.js';
import { applyBodyLimit, MAX_BODY_LIMIT } from './body-limits.js';
import { SERVER_TIMEOUTS } from './server-timeouts.js';
import { clientErrorHandler } from './client-errors.js';
import { errorHandler, routeNotFound, vaultSealed } from './errors.js';
import fastifyCompress from '@fastify/compress';
import { COMPRESSION_OPTIONS } from './compression.js';
import { acceptAllows, formatOf, rememberFormat, splitFormat } from './format/negotiation.js';
import { environmentRoutes } from './routes/environments.routes.js';
import { gatewayRoutes } from './routes/gateways.routes.js';
import { receiverRoutes, type ReceiverRouteServices } from './routes/receivers.routes.js';
import { certificateRoutes } from './routes/certificates.routes.js';
import { healthRoutes, type KeyReadiness } from './routes/health.routes.js';
import { paymentMethodRoutes } from './routes/payment-methods.routes.js';
import { paymentMethodImportRoutes, type ImportRouteDeps } from './routes/payment-method-imports.routes.js';
import { paymentMethodExportRoutes, type ExportRouteDeps } from './routes/payment-method-exports.routes.js';
import { transactionRoutes } from './routes/transactions.routes.js';
import { workflowRoutes, type WorkflowRouteServices } from './routes/workflows.routes.js';
import { openApiRoutes } from './routes/openapi.routes.js';
import { refuseRenegotiation, serverTlsOptions, STRICT_TRANSPORT_SECURITY } from './tls/tls-options.js';
import { answerPlainHttp } from './tls/plain-http.js';
import { eventRoutes } from './routes/events.routes.js';
import { metricsRoutes, type MetricsEndpoint } from './routes/metrics.routes.js';
import { formatLabel } from '../metrics/request-labels.js';
import type { CofferMetrics } from '../metrics/coffer-metrics.js';
import type { EventService } from '../services/event.service.js';
import { callbackRoutes, type CallbackRouteServices } from './routes/callbacks.routes.js';
import type { BrowserTokenizationService } from '../card-capture/browser-tokenization.service.js';
import { cardCaptureRoutes } from '../card-capture/card-capture.routes.js';
import { transparentRedirect } from '../card-capture/transparent-redirect.js';

/** Everything the HTTP layer calls; built by the composition root. */
export interface HttpDependencies extends Omit<ReceiverRouteServices, 'transactionQuery'>, CallbackRouteServices, Omit<WorkflowRouteServices, 'transactionQuery'>, ImportRouteDeps, ExportRouteDeps {
  store: StoreHandle;
  logger: Logger;
  auth: AuthService;
  tenancy: TenancyService;
  audit: AuditService;
  cardAccess: CardAccessService;
  gateways: GatewayService;
  certificates: CertificateService;
  paymentMethods: PaymentMethodService;
  transactions: GatewayTransactionService;
  /** The gateway routes' `retry` runs through it (docs/routing-retry.md). */
  attemptChain: AttemptChain;
  transactionQuery: TransactionQueryService;
  idempotency: IdempotencyService;
  /** API.md §7 limits: the limiter, the rules and how the client address is found. */
  rateLimiting: RateLimiting;
  /** Tokenization with the environment key alone: the card form and the transparent redirect. */
  browserTokenization: BrowserTokenizationService;
  /** Reachability of Redis (null without COFFER_REDIS_URL), for /readyz. */
  sharedState: SharedStateStatus | null;
  /** The events feed (docs/events.md). */
  events: EventService;
  /** The node's metrics (requests are counted into them), or null when metrics are off. */
  metrics?: CofferMetrics | null;
  /** The metrics this port serves at /metrics (with their token), or null (404 there). */
  metricsEndpoint?: MetricsEndpoint | null;
  /** Live migration (docs/portability.md, "Live migration"); without it, no upstream routes and no pull-through. */
  upstreams?: UpstreamCore;
  /** The master key's state (docs/key-custody.md): a sealed node answers 503 errors.vault_sealed to all but health. */
  custody?: { sealed(): boolean; readiness(): KeyReadiness | null };
}

/** What a sealed node still serves. */
const SERVED_WHILE_SEALED: ReadonlySet<string> = new Set(['/healthz', '/readyz']);

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
/** A run of digits as long as a card number: never echoed or logged, whatever it is. */
const LONG_DIGITS = /\d{12,}/;

/**
 * The client's X-Request-Id when it is safe to echo and log, else a new one. Not safe: anything
 * that reads as a card to the scrubber (4111-1111-1111-1111, 4111.1111.1111.1111) or holds 12
 * digits in a row.
 */
function requestId(req: IncomingMessage): string {
  const incoming = req.headers['x-request-id'];
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) && !LONG_DIGITS.test(incoming) && !containsCardLike(incoming) ? incoming : newRequestId();
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The bytes of request bodies in flight across the process (body-intake.ts). */
    bodiesInFlight: BodyBytesInFlight;
  }
}

/**
 * Builds the Fastify app. Order of checks on a request: format (suffix) and Accept (406),
 * authentication (401/402), for a public tokenization its rate limit and environment (429/401),
 * body size (413) and room for the body (503), all before any of the body is read; then
 * Content-Type (415), body syntax and bounds (422), the rate limits of API.md §7 (429), then the
 * route's own validation and service call.
 */
export function buildHttpApp(deps: HttpDependencies, tls: { key: string; cert: string } | null): FastifyInstance {
  // Fastify's own requestTimeout option does not reach a server made by serverFactory: the
  // timeouts are given to both kinds of server here (server-timeouts.ts).
  const serverFactory =
    tls === null
      ? undefined
      : (handler: (req: IncomingMessage, res: ServerResponse) => void) =>
          answerPlainHttp(refuseRenegotiation(https.createServer({ ...serverTlsOptions(tls), ...SERVER_TIMEOUTS }, handler)), SERVER_TIMEOUTS.headersTimeout);
  const handleError = errorHandler(deps.logger);
  const app = Fastify({
    logger: false,
    // Errors Fastify raises before routing (a malformed percent-encoding, an over-long path
    // parameter) get the same envelope as every other error, never Fastify's own body (which
    // would echo the path, card digits included).
    frameworkErrors: (error, request, reply) => void handleError(error, request, reply),
    // …and so do requests Node's parser refuses (400, 431, 408), which never reach a route.
    clientErrorHandler,
    bodyLimit: MAX_BODY_LIMIT,
    requestTimeout: SERVER_TIMEOUTS.requestTimeout,
    http: { ...SERVER_TIMEOUTS },
    genReqId: requestId,
    // The suffix picks the format; routes are declared once, without it.
    rewriteUrl: (req) => {
      const { url, format, suffixed } = splitFormat(req.url ?? '/');
      rememberFormat(req, format, suffixed);
      return url;
    },
    routerOptions: { ignoreTrailingSlash: true },
    // request.ip: the socket's address, or X-Forwarded-For as far as it passed through trusted proxies.
    trustProxy: deps.rateLimiting.trustProxy.length === 0 ? false : [...deps.rateLimiting.trustProxy],
    ...(serverFactory === undefined ? {} : { serverFactory: serverFactory as never }),
  });

  app.decorateRequest('auth', null);
  app.decorateRequest('tokenizingEnvironment', null);
  registerBodyDecoder(app);
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(() => {
    throw routeNotFound();
  });

  // Events recorded while serving a request carry its X-Request-Id (docs/events.md). The callback form
  // makes the rest of the request's life run inside the context.
  app.addHook('onRequest', (_request, _reply, done) => trackRequestCommits(done));
  const custody = deps.custody;
  if (custody !== undefined) {
    // First of the checks: a sealed node answers nothing but health, whoever asks (docs/key-custody.md).
    app.addHook('onRequest', (request, _reply, done) => {
      done(custody.sealed() && !SERVED_WHILE_SEALED.has(request.routeOptions.url ?? '') ? vaultSealed() : undefined);
    });
  }
  // The hooks that have nothing to wait for are callback hooks: an async one costs every request a
  // promise and a microtask (docs/benchmarks.md, "Hooks without promises").
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('X-Request-Id', request.id);
    // Only over TLS: behind a TLS-terminating proxy (COFFER_TLS=off) the proxy sets it.
    if (tls !== null) reply.header('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
    if (request.routeOptions.config.plainText !== true && !acceptAllows(formatOf(request.raw), request.headers.accept)) {
      return done(new AppError({ key: 'errors.not_acceptable', message: 'The Accept header does not allow the requested format.' }));
    }
    done();
  });
  app.addHook('onRequest', authenticateHook(deps.auth));
  // Limits before idempotency (both preHandlers, run in this order): a 429 never claims a key.
  // The public tokenization's limit is an onRequest hook, before the body is read.
  registerRateLimits(app, deps.rateLimiting);
  registerIdempotency(app, deps.idempotency);
  // Calls of `coffer mcp`'s tools go into the audit log (docs/mcp.md).
  registerMcpAudit(app, deps.audit);
  // Every body (the portal's too) is metered as it arrives, after all of the above.
  const bodiesInFlight = new BodyBytesInFlight();
  app.decorate('bodiesInFlight', bodiesInFlight);
  registerBodyIntake(app, bodiesInFlight);

  // Group commit (docs/reliability.md): nothing is answered before every commit it could reflect is on disk.
  // Free when nothing is pending (reads, PostgreSQL); otherwise a wait of at most one shared fsync.
  app.addHook('onSend', (_request, _reply, payload, done) => {
    const settling = deps.store.settled();
    if (settling === null) done(null, payload);
    else settling.then(() => done(null, payload), (error: unknown) => done(error as Error));
  });

  // A page streamed past its first MiB (docs/wire-compatibility.md, "Large pages") can fail only
  // after its status line is out: the client sees a cut connection, and the error handler can no
  // longer answer, so the failure is logged here, as the handler would have logged it.
  app.addHook('onSend', (request, _reply, payload, done) => {
    if (payload instanceof Readable) {
      payload.once('error', (error: Error) => {
        deps.logger.error({ reqId: request.id, err: { type: error.name, message: error.message, stack: error.stack } }, 'answer failed after it began');
      });
    }
    done(null, payload);
  });

  // Count and time every answer, by route pattern (never the raw URL; docs/metrics.md).
  const metrics = deps.metrics ?? null;
  if (metrics !== null) {
    app.addHook('onResponse', (request, reply, done) => {
      const route = request.routeOptions.url;
      metrics.request(route ?? 'unmatched', request.method, formatLabel(request, route), reply.statusCode, reply.elapsedTime / 1000);
      done();
    });
  }

  // One line per request; never bodies, headers or query strings (they can carry secrets). The line
  // is built here from six known-safe fields (the request id is one that passed requestId's checks),
  // so it skips the logger's redaction paths, the second line of defence for objects logged by
  // mistake: walking them was 5 µs of every request, the rest of the line under 1 µs.
  const requestLog = deps.logger.child({}, { redact: [] });
  app.addHook('onResponse', (request, reply, done) => {
    requestLog.info(
      {
        reqId: request.id,
        method: request.method,
        route: request.routeOptions.url ?? 'unmatched',
        status: reply.statusCode,
        durationMs: Math.round(reply.elapsedTime * 100) / 100,
        environmentKey: request.auth?.environment.key ?? request.tokenizingEnvironment?.key ?? null,
      },
      'request',
    );
    done();
  });

  // Compression attaches itself to each route as it is added: the routes are added after it,
  // in a child context that inherits every hook above.
  void app.register(fastifyCompress, COMPRESSION_OPTIONS);
  void app.register(async (routes) => {
    // Each API route's body limit, from one table (body-limits.ts).
    routes.addHook('onRoute', applyBodyLimit);
    healthRoutes(routes, deps.store, deps.sharedState, custody === undefined ? null : () => custody.readiness());
    metricsRoutes(routes, deps.metricsEndpoint ?? null);
    gatewayRoutes(routes, deps.gateways);
    certificateRoutes(routes, deps.certificates);
    const upstreams = deps.upstreams;
    // Pull-through runs after authentication, limits and idempotency, before the route that names the token.
    if (upstreams !== undefined) routes.addHook('preHandler', pullThroughHook(upstreams.pullThrough));
    environmentRoutes(routes, deps.tenancy, deps.audit, upstreams?.settings);
    if (upstreams !== undefined) {
      upstreamRoutes(routes, { tenancy: deps.tenancy, upstreamSettings: upstreams.settings, upstreamIntake: upstreams.intake, backfill: upstreams.backfill, audit: deps.audit });
    }
    auditRoutes(routes, deps.audit);
    cardAccessRoutes(routes, deps.cardAccess);
    paymentMethodImportRoutes(routes, deps);
    paymentMethodExportRoutes(routes, deps);
    paymentMethodRoutes(routes, deps.paymentMethods, deps.transactionQuery, transparentRedirect(deps.browserTokenization, handleError));
    cardCaptureRoutes(routes, deps.browserTokenization);
    transactionRoutes(routes, deps.transactions, deps.transactionQuery, deps.attemptChain);
    eventRoutes(routes, deps.events);
    callbackRoutes(routes, deps);
    receiverRoutes(routes, deps);
    workflowRoutes(routes, deps);
    openApiRoutes(routes);
  });
  return app;
}
