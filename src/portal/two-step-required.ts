import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import type { PortalDeps } from './context.js';

/** What a member without two-step may still reach when the organization requires it: set it up, sign out. */
const ALLOWED = new Set(['public', 'pending', 'session', 'manage_own_account']);

/**
 * preHandler of every portal route, after the session checks: when the organization requires
 * two-step verification of every member (docs/portal.md, "Two-step verification"; PCI DSS 8.4.2)
 * and this member has none, every page but their account's sends them there to set it up, and
 * every change is refused.
 */
export function requireTwoStepWhereSet(deps: Pick<PortalDeps, 'peoplePolicy'>) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> => {
    const session = request.portalSession;
    const needs = request.routeOptions.config.portal;
    if (session === null || session.row.stage !== 'active' || session.user.totpEnabled || (needs !== undefined && ALLOWED.has(needs))) return undefined;
    // The account page itself (its GET declares no permission of its own): where the member sets it up.
    if ((request.routeOptions.url ?? '').startsWith('/portal/account')) return undefined;
    if (!(await deps.peoplePolicy.twoStep(session.user.organizationToken)).required) return undefined;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      throw new AppError({ key: 'errors.forbidden', message: 'Your organization requires two-step verification: set it up on your account page first.' });
    }
    return reply.code(303).header('Location', '/portal/account?done=two_step_required').send();
  };
}
