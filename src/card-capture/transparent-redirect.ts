import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, fieldError, type ErrorEntry } from '../domain/errors.js';
import { originAllowed } from '../domain/origins.js';
import { isFormEncoded } from '../http/auth.js';
import { fieldsOf } from '../http/body.js';
import { parseCreate } from '../http/routes/payment-methods.schemas.js';
import type { BrowserTokenizationService } from './browser-tokenization.service.js';
import { signedFields } from './signed-fields.js';

type ErrorHandler = (error: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply) => FastifyReply;

const MAX_REDIRECT_URL = 2000;

/** The redirect target of each form post under way, once it is known to be one. */
const targets = new WeakMap<FastifyRequest, URL>();

/** Whether this request is a transparent-redirect form post. */
export function isFormPost(request: FastifyRequest): boolean {
  return isFormEncoded(request.headers['content-type']);
}

/** `redirect_url`: an absolute http(s) URL; when the environment lists origins, one of them. */
function redirectTarget(value: unknown, allowed: readonly string[]): URL {
  if (typeof value !== 'string' || value.trim() === '') throw new AppError(fieldError.blank('redirect_url'));
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new AppError(fieldError.invalid('redirect_url'));
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || value.length > MAX_REDIRECT_URL || url.username !== '' || url.password !== '') {
    throw new AppError(fieldError.invalid('redirect_url'));
  }
  if (!originAllowed(allowed, url.origin)) throw new AppError({ ...fieldError.invalid('redirect_url'), message: 'Redirect url is not on an allowed origin' });
  return url;
}

/** `redirect_url` with `token`, or with one `error`/`error_message`/`error_attribute` set per error. */
function withOutcome(target: URL, outcome: { token: string } | { errors: ErrorEntry[] }): string {
  const url = new URL(target.href);
  if ('token' in outcome) {
    url.searchParams.append('token', outcome.token);
  } else {
    for (const entry of outcome.errors) {
      url.searchParams.append('error', entry.key);
      url.searchParams.append('error_message', entry.message);
      url.searchParams.append('error_attribute', entry.attribute ?? '');
    }
  }
  return url.href;
}

/** Escapes as Rails' `ERB::Util.html_escape` does (`&amp;`, `&lt;`, `&gt;`, `&quot;`, `&#39;`). */
function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
}

/**
 * 302 to `href` with the body Rails (which serves Spreedly) writes for `redirect_to`: the gem's
 * offsite test reads the token from this body rather than from `Location` (docs/card-capture.md).
 */
function redirectTo(reply: FastifyReply, href: string): FastifyReply {
  return reply
    .code(302)
    .header('location', href)
    .type('text/html; charset=utf-8')
    .send(`<html><body>You are being <a href="${escapeHtml(href)}">redirected</a>.</body></html>`);
}

/**
 * Spreedly's transparent redirect: an HTML form on the merchant's page posts the card,
 * `environment_key` and `redirect_url` form-encoded to `POST /v1/payment_methods`; the shopper's
 * browser is sent back to `redirect_url?token=…`, or with the errors in the query. Only a form
 * body takes this path; JSON and XML keep the authenticated API.
 */
export function transparentRedirect(tokenization: BrowserTokenizationService, fallback: ErrorHandler) {
  return {
    isFormPost,
    /** Before the rate limits: the target and the environment (they count per environment). */
    preValidation: async (request: FastifyRequest): Promise<void> => {
      if (!isFormPost(request)) return;
      const fields = fieldsOf(request, 'payment_method');
      const key = typeof fields.environment_key === 'string' ? fields.environment_key : undefined;
      const environment = await tokenization.findEnvironment(key ?? '');
      // Without a known environment only an absolute http(s) URL is checked; its origins then apply.
      targets.set(request, redirectTarget(fields.redirect_url, environment === undefined ? [] : tokenization.allowedOrigins(environment)));
      request.tokenizingEnvironment = await tokenization.environment(key);
    },

    handle: async (request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> => {
      const target = targets.get(request) as URL;
      const environment = request.tokenizingEnvironment ?? (await tokenization.environment(undefined));
      const fields = fieldsOf(request, 'payment_method');
      const origin = typeof request.headers.origin === 'string' ? { kind: 'page' as const, origin: request.headers.origin } : { kind: 'none' as const };
      const outcome = await tokenization.tokenize(environment, origin, signedFields(fields), parseCreate(fields), request);
      return redirectTo(reply, withOutcome(target, { token: outcome.paymentMethod.token }));
    },

    /** Errors of a form post go back to `redirect_url` too, once it is known to be a safe one. */
    errorHandler: (error: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
      const target = targets.get(request);
      if (target === undefined || !(error instanceof AppError)) return fallback(error, request, reply);
      return redirectTo(reply, withOutcome(target, { errors: error.entries }));
    },
  };
}
