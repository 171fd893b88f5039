import type { FastifyRequest } from 'fastify';
import { AppError, MESSAGES, accessDeniedByRole } from '../domain/errors.js';
import type { Access } from '../domain/tenancy.js';
import type { AuthContext, AuthService } from '../services/auth.service.js';

/** What a route declares about who may call it. */
export interface RouteAccess {
  /** 'none' for the few public endpoints. */
  access: Access | 'none';
  /** Admin endpoints need a secret that is not limited to some environments. */
  organizationWide?: boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess['access'];
    organizationWide?: boolean;
    /** The route answers text/plain whatever the suffix (the transcript). */
    plainText?: boolean;
    /** The API.md §7 limits this route counts against (see limits/rate-limit-policy.ts). */
    rateLimits?: readonly import('../limits/rate-limit-policy.js').RateLimitName[];
    /** The route also takes a form-encoded body without credentials (the transparent redirect). */
    formPost?: boolean;
    /**
     * Tokenization with the environment key alone (the card form's restricted route): the public
     * rate limit applies before the body is read (rate-limit.ts). Form posts are found by `formPost`.
     */
    publicTokenization?: boolean;
    /**
     * The route reads its body as a stream, as it arrives (an import file): the route's limit
     * applies, but the body is not held, so it does not count against the process's budget of
     * bodies in flight (body-intake.ts).
     */
    streamedBody?: boolean;
  }
  interface FastifyRequest {
    auth: AuthContext | null;
    /**
     * The environment a public tokenization names by its key alone (the card form, the
     * transparent redirect): set before the rate limits run, which count per environment.
     */
    tokenizingEnvironment: import('../domain/environment.js').Environment | null;
  }
}

function accessDenied(message: string = MESSAGES.accessDenied): AppError {
  return new AppError({ key: 'errors.access_denied', message });
}

/** Splits `Authorization: Basic …` into user and password, or null. */
export function basicCredentials(header: string | undefined): { user: string; password: string } | null {
  if (header === undefined) return null;
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (match === null) return null;
  const decoded = Buffer.from(match[1] as string, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { user: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * onRequest hook: resolves the caller for every route that is not public. Any failure is 401
 * `errors.access_denied` with the exact message clients compare, except that a proven secret
 * lacking the role or scope is told so. A deactivated organization may still read.
 */
export function authenticateHook(auth: AuthService) {
  return async (request: FastifyRequest): Promise<void> => {
    const readOnly = request.method === 'GET' || request.method === 'HEAD';
    const access = request.routeOptions.config.access ?? (readOnly ? 'read' : 'transact');
    if (access === 'none') return;
    // A transparent-redirect form carries its environment key in the body, and no secret.
    if (isPublicFormPost(request)) return;
    const credentials = basicCredentials(request.headers.authorization);
    if (credentials === null) throw accessDenied();
    const decision = await auth.decide(
      credentials.user,
      credentials.password,
      access,
      request.routeOptions.config.organizationWide === true,
    );
    // A proven secret is told that its role (or scope) is the reason; anything else gets the
    // message clients compare, whatever was wrong (API.md §2).
    if ('refused' in decision) {
      if (decision.refused === 'role') throw accessDenied(accessDeniedByRole(decision.role));
      if (decision.refused === 'scope') throw accessDenied(MESSAGES.accessDeniedByScope);
      throw accessDenied();
    }
    const context = decision.context;
    if (!context.organization.active && !readOnly) {
      throw new AppError({ key: 'errors.account_inactive', message: MESSAGES.organizationInactive });
    }
    request.auth = context;
  };
}

/** Whether a request's body is an HTML form post (application/x-www-form-urlencoded). */
export function isFormEncoded(contentType: string | undefined): boolean {
  return contentType !== undefined && /^application\/x-www-form-urlencoded\s*(;|$)/i.test(contentType.trim());
}

/** A transparent-redirect form post: a form body on a route that takes one, with no credentials checked. */
export function isPublicFormPost(request: FastifyRequest): boolean {
  return request.routeOptions.config.formPost === true && isFormEncoded(request.headers['content-type']);
}

/** A tokenization anyone with the environment key may send: the card form's route or a form post. */
export function isPublicTokenization(request: FastifyRequest): boolean {
  return request.routeOptions.config.publicTokenization === true || isPublicFormPost(request);
}

/** The authenticated caller of a route that required one. */
export function callerOf(request: FastifyRequest): AuthContext {
  if (request.auth === null) throw accessDenied();
  return request.auth;
}
