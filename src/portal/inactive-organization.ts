import type { FastifyRequest } from 'fastify';
import { AppError, MESSAGES } from '../domain/errors.js';
import type { PortalPermission } from '../domain/portal-roles.js';
import { sessionOf, type PortalDeps } from './context.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A portal change a deactivated organization may still make (docs/portal.md). */
    whileInactive?: 'allowed';
  }
}

/**
 * What a deactivated organization's people may still do, by the permission a route declares:
 * sign in (reading stays open, as in the API) and out, and look after their own password and
 * second factor. Routes that only cut access off opt in with `whileInactive: 'allowed'`.
 */
const ALLOWED_WHILE_INACTIVE: ReadonlySet<PortalPermission | 'public' | 'pending' | 'session'> = new Set(['public', 'pending', 'session', 'manage_own_account']);

/**
 * preHandler of every portal route, after the session, role and CSRF checks: a change for a
 * deactivated organization is refused with the API's 402 and reason (src/http/auth.ts), before
 * the handler reads or writes anything. Every method but GET and HEAD counts as a change.
 */
export function refuseChangesOfInactiveOrganization(deps: PortalDeps) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.method === 'GET' || request.method === 'HEAD') return;
    const config = request.routeOptions.config;
    if (config.whileInactive === 'allowed' || (config.portal !== undefined && ALLOWED_WHILE_INACTIVE.has(config.portal))) return;
    const organization = await deps.tenancy.requireOrganization(sessionOf(request).user.organizationToken);
    if (!organization.active) throw new AppError({ key: 'errors.account_inactive', message: MESSAGES.organizationInactive });
  };
}
