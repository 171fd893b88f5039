import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import { csrfMatches } from '../services/portal-sessions.service.js';
import { CSS_PATH, FAVICON_PATH, FAVICON_SVG, JS_PATH, PORTAL_CSS, PORTAL_JS } from './assets.js';
import type { PortalDeps } from './context.js';
import { cookieOf, SESSION_COOKIE } from './cookies.js';
import { html } from './html.js';
import { sessionAccess } from './route-access.js';
import { complianceRoutes } from './routes/compliance.routes.js';
import { requireTwoStepWhereSet } from './two-step-required.js';
import { refuseChangesOfInactiveOrganization } from './inactive-organization.js';
import { barePage, page, sendPage } from './layout.js';
import { accountRoutes } from './routes/account.routes.js';
import { auditRoutes } from './routes/audit.routes.js';
import { environmentRoutes } from './routes/environments.routes.js';
import { secretRoutes } from './routes/secrets.routes.js';
import { signInRoutes } from './routes/sign-in.routes.js';
import { overviewRoutes } from './routes/overview.routes.js';
import { teamRoutes } from './routes/team.routes.js';
import { receiverRoutes } from './routes/receivers.routes.js';
import { workflowRoutes } from './routes/workflows.routes.js';
import { certificateRoutes } from './routes/certificates.routes.js';
import { gatewayRoutes } from './routes/gateways.routes.js';
import { transactionRoutes } from './routes/transactions.routes.js';
import { paymentMethodRoutes } from './routes/payment-methods.routes.js';
import { importRoutes } from './routes/imports.routes.js';
import { exportRoutes } from './routes/exports.routes.js';
import { upstreamPortalRoutes } from './routes/upstream.routes.js';

/**
 * Strict policy: only Coffer's own stylesheet and script, no inline script or style, no framing,
 * forms post only to Coffer.
 */
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const FORM_LIMIT = 256 * 1024;

/**
 * The merchant portal under /portal/: server-rendered pages over the same services as the API.
 * Every route declares what it needs (`config.portal`); the hooks here enforce it, and the CSRF
 * token, before the handler runs.
 */
export function registerPortal(app: FastifyInstance, deps: PortalDeps): void {
  void app.register(
    async (portal) => {
      // Portal routes authenticate with the session cookie, not HTTP Basic, and answer HTML.
      portal.addHook('onRoute', (route) => {
        route.config = { access: 'none', plainText: true, ...(route.config ?? {}) } as typeof route.config;
      });
      portal.decorateRequest('portalSession', null);
      portal.removeAllContentTypeParsers();
      portal.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_LIMIT }, (_request, body, done) => {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      });
      portal.setErrorHandler((error: FastifyError | AppError, request, reply) => renderError(deps, error, request, reply));
      portal.setNotFoundHandler((request, reply) => renderError(deps, new AppError({ key: 'errors.route_not_found', message: 'There is no such page.' }), request, reply));

      portal.addHook('onRequest', async (request, reply) => {
        reply.header('Content-Security-Policy', CSP);
        reply.header('X-Frame-Options', 'DENY');
        reply.header('X-Content-Type-Options', 'nosniff');
        reply.header('Referrer-Policy', 'no-referrer');
        reply.header('Cross-Origin-Opener-Policy', 'same-origin');
        reply.header('Cache-Control', 'no-store');
        const cookie = cookieOf(request, SESSION_COOKIE);
        request.portalSession = cookie === null ? null : await deps.portalSessions.resolve(cookie);
      });
      portal.addHook('preHandler', async (request, reply) => guard(request, reply));
      portal.addHook('preHandler', refuseChangesOfInactiveOrganization(deps));
      portal.addHook('preHandler', requireTwoStepWhereSet(deps));

      portal.get(CSS_PATH.replace('/portal', ''), { config: { portal: 'public' } }, async (_request, reply) =>
        reply.header('Cache-Control', 'public, max-age=31536000, immutable').type('text/css; charset=utf-8').send(PORTAL_CSS),
      );
      portal.get(JS_PATH.replace('/portal', ''), { config: { portal: 'public' } }, async (_request, reply) =>
        reply.header('Cache-Control', 'public, max-age=31536000, immutable').type('text/javascript; charset=utf-8').send(PORTAL_JS),
      );

      portal.get(FAVICON_PATH.replace('/portal', ''), { config: { portal: 'public' } }, async (_request, reply) =>
        reply.header('Cache-Control', 'public, max-age=31536000, immutable').type('image/svg+xml').send(FAVICON_SVG),
      );

      signInRoutes(portal, deps);
      accountRoutes(portal, deps);
      environmentRoutes(portal, deps);
      secretRoutes(portal, deps);
      auditRoutes(portal, deps);
      complianceRoutes(portal, deps);
      overviewRoutes(portal, deps);
      teamRoutes(portal, deps);
      receiverRoutes(portal, deps);
      workflowRoutes(portal, deps);
      certificateRoutes(portal, deps);
      gatewayRoutes(portal, deps);
      transactionRoutes(portal, deps);
      paymentMethodRoutes(portal, deps);
      importRoutes(portal, deps);
      exportRoutes(portal, deps);
      upstreamPortalRoutes(portal, deps);
    },
    { prefix: '/portal' },
  );
}

/**
 * Runs before every portal handler: the session's access to the route (route-access.ts), then a
 * POST must carry the session's CSRF token. A POST route that declares no permission is refused
 * (fail closed).
 */
async function guard(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
  const elsewhere = sessionAccess(request);
  if (elsewhere !== null) return reply.code(303).header('Location', elsewhere).send();
  const session = request.portalSession;
  if (request.method === 'POST' && session !== null && request.routeOptions.config.portal !== 'public' && !csrfMatches(session.row, (request.body as Record<string, unknown> | undefined)?._csrf)) {
    throw new AppError({ key: 'errors.forbidden', message: 'The form has expired. Reload the page and try again.' });
  }
  return undefined;
}

/** Errors as pages: the messages of an AppError, a generic page (and a log line) otherwise. */
function renderError(deps: PortalDeps, error: FastifyError | AppError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  let status: number;
  let messages: string[];
  if (error instanceof AppError) {
    status = error.status;
    messages = error.entries.map((entry) => entry.message);
    reply.headers(error.headers);
  } else if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    status = error.statusCode === 415 ? 415 : 400;
    messages = ['The form could not be read.'];
  } else {
    deps.logger.error({ reqId: request.id, err: { type: error.name, message: error.message, stack: error.stack } }, 'portal error');
    status = 500;
    messages = [`Something went wrong. Request id: ${request.id}`];
  }
  const title = status === 404 ? 'Not found' : status === 403 || status === 402 ? 'Not allowed' : status === 422 ? 'Please check the form' : 'Something went wrong';
  const body = html`<div class="notice error" role="alert"><ul>${messages.map((m) => html`<li>${m}</li>`)}</ul></div>
<p><a href="/portal/">Back to the portal</a></p>`;
  const signedIn = request.portalSession !== null && request.portalSession.row.stage === 'active';
  return sendPage(reply, signedIn ? page(request, { title }, body) : barePage(title, body), status);
}
