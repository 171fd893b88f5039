import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TenancyService } from '../../services/tenancy.service.js';
import type { AuditService } from '../../services/audit.service.js';
import type { BackfillService } from '../../services/upstream/backfill.service.js';
import { INTAKE_HEADER, INTAKE_PATH } from '../../services/upstream/intake-credential.js';
import type { PullThroughService } from '../../services/upstream/pull-through.service.js';
import type { IntakeBody, UpstreamIntakeService } from '../../services/upstream/upstream-intake.service.js';
import type { UpstreamSettingsService } from '../../services/upstream/upstream-settings.service.js';
import { callerOf } from '../auth.js';
import { fieldsOf } from '../body.js';
import { sendWire } from '../reply.js';
import { flag, parseInput } from '../validation.js';
import { upstreamStatusView } from '../views/upstream.view.js';
import { z } from 'zod';

/** The live-migration services the routes call (docs/portability.md, "Live migration"). */
export interface UpstreamRouteServices {
  tenancy: TenancyService;
  upstreamSettings: UpstreamSettingsService;
  upstreamIntake: UpstreamIntakeService;
  backfill: BackfillService;
  audit: AuditService;
}

type KeyParams = { Params: { key: string } };

export const backfillSchema = z.object({ restart: flag() });

/**
 * The upstream's progress and backfill (admin, organization-wide, like the environment itself),
 * and the intake, which has no API credentials: the one-time credential in its header is its
 * only authentication, checked by the intake service.
 */
export function upstreamRoutes(app: FastifyInstance, services: UpstreamRouteServices): void {
  const { tenancy, upstreamSettings, upstreamIntake, backfill, audit } = services;
  const record = (request: FastifyRequest, environmentKey: string, action: string) =>
    audit.record(
      { type: 'access_secret', id: callerOf(request).secret.key, address: request.ip ?? null },
      { organizationToken: callerOf(request).organization.token, action, objectType: 'environment', objectId: environmentKey, environmentKey, details: {} },
    );
  const admin = { config: { access: 'admin' as const, organizationWide: true } };

  app.get<KeyParams>('/v1/environments/:key/upstream', admin, async (request, reply) => {
    const environment = await tenancy.findEnvironment(callerOf(request).organization.token, request.params.key);
    return sendWire(request, reply, 200, 'upstream', upstreamStatusView(await upstreamSettings.status(environment.key)));
  });

  app.delete<KeyParams>('/v1/environments/:key/upstream', admin, async (request, reply) => {
    const environment = await tenancy.findEnvironment(callerOf(request).organization.token, request.params.key);
    await upstreamSettings.clear(environment.key);
    await record(request, environment.key, 'environment.upstream_clear');
    return reply.code(204).send();
  });

  app.post<KeyParams>('/v1/environments/:key/upstream/backfill', admin, async (request, reply) => {
    const input = parseInput(backfillSchema, fieldsOf(request, 'backfill'));
    const environment = await tenancy.findEnvironment(callerOf(request).organization.token, request.params.key);
    const started = await backfill.start(environment, { restart: input.restart === true, request });
    if (started) await record(request, environment.key, 'environment.upstream_backfill');
    // 202 whether it started now or was running already: the progress is at GET …/upstream.
    return sendWire(request, reply, started ? 202 : 200, 'upstream', upstreamStatusView(await upstreamSettings.status(environment.key)));
  });

  app.post(INTAKE_PATH, { config: { access: 'none' } }, async (request, reply) => {
    const header = request.headers[INTAKE_HEADER.toLowerCase()];
    const credential = Array.isArray(header) ? undefined : header;
    const outcome = await upstreamIntake.receive(credential, fieldsOf(request, 'intake') as IntakeBody);
    return sendWire(request, reply, 200, 'intake', { payment_method_token: outcome.paymentMethodToken, outcome: outcome.outcome });
  });
}

/** Where each route that names a payment method token names it. */
type TokenAt = { param: 'token' } | { root: 'transaction' | 'delivery' };

const TOKEN_IN_PATH: TokenAt = { param: 'token' };
const ROUTES_NAMING_A_TOKEN: ReadonlyMap<string, TokenAt> = new Map<string, TokenAt>([
  ['/v1/payment_methods/:token', TOKEN_IN_PATH],
  ['/v1/payment_methods/:token/retain', TOKEN_IN_PATH],
  ['/v1/payment_methods/:token/redact', TOKEN_IN_PATH],
  ['/v1/payment_methods/:token/recache', TOKEN_IN_PATH],
  ['/v1/payment_methods/:token/transactions', TOKEN_IN_PATH],
  ...['purchase', 'authorize', 'verify', 'store', 'general_credit'].map((operation): [string, TokenAt] => [`/v1/gateways/:token/${operation}`, { root: 'transaction' }]),
  ...['purchase', 'authorize', 'verify'].map((operation): [string, TokenAt] => [`/v1/transactions/${operation}`, { root: 'transaction' }]),
  ['/v1/receivers/:token/deliver', { root: 'delivery' }],
]);

/** The payment method token the request names, if its route names one. */
function namedToken(request: FastifyRequest): string | null {
  const at = ROUTES_NAMING_A_TOKEN.get(request.routeOptions.url ?? '');
  if (at === undefined) return null;
  if ('param' in at) return (request.params as Record<string, string | undefined>)[at.param] ?? null;
  let fields: Record<string, unknown>;
  try {
    fields = fieldsOf(request, at.root);
  } catch {
    return null; // the route itself answers the malformed body
  }
  const token = fields.payment_method_token;
  return typeof token === 'string' && token !== '' ? token : null;
}

/**
 * Pull-through for every route that names a payment method token (docs/portability.md): before
 * the route runs, a token the environment does not hold is pulled from its upstream, so the
 * route (and the service behind it) finds it as if it had always been here. One hook rather than
 * a look in each service: every route is covered the same way, and a service never calls out.
 */
export function pullThroughHook(pullThrough: PullThroughService) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.auth === null) return;
    const token = namedToken(request);
    if (token === null) return;
    await pullThrough.ensure(request.auth.environment, token, request);
  };
}
