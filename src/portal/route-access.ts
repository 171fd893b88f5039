import type { FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import { portalRoleAllows } from '../domain/portal-roles.js';

/**
 * Whether the session may use the route, by everything but the CSRF token (which is in the body):
 * a public route passes; otherwise there must be a session at the right stage whose role grants
 * the route's permission. Returns where to send a browser that may not (a GET), or null when the
 * request may go on; a POST that may not is refused. The portal's guard runs it before every
 * handler, and a route that streams its body runs it before reading any of it.
 */
export function sessionAccess(request: FastifyRequest): string | null {
  const needs = request.routeOptions.config.portal;
  const isPost = request.method === 'POST';
  if (needs === 'public') return null;
  const session = request.portalSession;
  if (session === null) {
    if (isPost) throw new AppError({ key: 'errors.forbidden', message: 'Your session has ended. Sign in again.' });
    return '/portal/sign-in';
  }
  if (needs === 'session') return null;
  if (needs === 'pending') return session.row.stage === 'password' ? null : '/portal/';
  if (session.row.stage !== 'active') {
    if (isPost) throw new AppError({ key: 'errors.forbidden', message: 'Give your authentication code first.' });
    return '/portal/sign-in/code';
  }
  const permission = needs ?? (isPost ? null : 'read');
  if (permission === null || !portalRoleAllows(session.user.role, permission)) {
    throw new AppError({ key: 'errors.forbidden', message: `Your role (${session.user.role}) does not allow this.` });
  }
  return null;
}
