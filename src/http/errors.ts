import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import { AppError, type ErrorEntry } from '../domain/errors.js';
import { isStoreUnavailable, STORE_RETRY_AFTER_SECONDS } from '../store/unavailable.js';
import { errorFormatOf } from './format/negotiation.js';
import { renderErrors } from './reply.js';
import { bodyLimitOfRequest, payloadTooLarge } from './body-limits.js';
import { ClientAbortedError } from './client-abort.js';
import { MasterKeyUnavailableError, VaultSealedError } from '../vault/master-key-providers/provider.js';

/** Seconds a client should wait when the master key cannot be reached or the vault is sealed. */
const KEY_RETRY_AFTER_SECONDS = 5;

/** The master key is out of reach (HSM session lost, PIN refused): 503, and one line naming why (never the PIN). */
function masterKeyUnavailable(logger: Logger, request: FastifyRequest, error: MasterKeyUnavailableError): AppError {
  logger.error({ reqId: request.id, provider: error.provider, reason: error.reason }, 'master key unavailable');
  return new AppError(
    { key: 'errors.service_unavailable', message: 'The service is temporarily unavailable (its master key cannot be reached). Try again shortly.' },
    { 'Retry-After': String(KEY_RETRY_AFTER_SECONDS) },
  );
}

/** The answer of a sealed node to everything but health (docs/key-custody.md). */
export function vaultSealed(): AppError {
  return new AppError(
    { key: 'errors.vault_sealed', message: 'The vault is sealed: its key custodians have not yet unsealed this node. Try again later.' },
    { 'Retry-After': String(KEY_RETRY_AFTER_SECONDS) },
  );
}

function fromFramework(error: FastifyError, request: FastifyRequest): AppError | null {
  if (error.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return payloadTooLarge(bodyLimitOfRequest(request));
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') {
    return new AppError({ key: 'errors.unsupported_media_type', message: 'Unsupported Content-Type.' });
  }
  // Anything else the framework refuses (a Content-Length the body does not match, …) is a malformed request.
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new AppError({ key: 'errors.malformed_request', message: 'The request could not be parsed.' });
  }
  return null;
}

/** The database is unreachable: 503 with Retry-After, logged once per request (no stack: not a bug). */
function storeUnavailable(logger: Logger, request: FastifyRequest, error: Error): AppError {
  logger.warn({ reqId: request.id, err: { type: error.name, code: (error as { code?: unknown }).code ?? null } }, 'store unavailable');
  return new AppError(
    { key: 'errors.service_unavailable', message: 'The service is temporarily unavailable (its database cannot be reached). Try again shortly.' },
    { 'Retry-After': String(STORE_RETRY_AFTER_SECONDS) },
  );
}

/**
 * The client went away before its body arrived: a client-side event, logged as one (never a 503
 * or a store warning). An answer is still made, as Fastify expects one; nobody is left to read it.
 */
function clientAborted(logger: Logger, request: FastifyRequest): AppError {
  logger.info({ reqId: request.id }, 'client closed the connection before its request body arrived');
  return new AppError({ key: 'errors.malformed_request', message: 'The request body did not arrive in full.' });
}

/** The error's answer on the closed list, or null for a bug. */
function toAppError(logger: Logger, error: FastifyError | AppError | Error, request: FastifyRequest): AppError | null {
  if (error instanceof AppError) return error;
  // Before the store test: Node reports an aborted request as ECONNRESET, one of its codes.
  if (error instanceof ClientAbortedError) return clientAborted(logger, request);
  if (isStoreUnavailable(error)) return storeUnavailable(logger, request, error);
  const keyUnavailable = causeOf(error, MasterKeyUnavailableError);
  if (keyUnavailable !== null) return masterKeyUnavailable(logger, request, keyUnavailable);
  if (causeOf(error, VaultSealedError) !== null) return vaultSealed();
  return fromFramework(error as FastifyError, request);
}

/** `error` or one of its causes, when it is a `type`. */
function causeOf<T extends Error>(error: unknown, type: new (...args: never[]) => T): T | null {
  let current = error;
  for (let depth = 0; depth < 4 && current instanceof Error; depth += 1) {
    if (current instanceof type) return current;
    current = current.cause;
  }
  return null;
}

/** The 404 of a path no route serves (and of a method a path does not take). */
export function routeNotFound(): AppError {
  return new AppError({ key: 'errors.route_not_found', message: 'The requested resource does not exist.' });
}

/**
 * The one place errors become responses: an `AppError` renders its entries; a framework
 * refusal is mapped onto the closed list; anything else is a bug, answered 500 with the
 * request id and logged with its stack (messages in Coffer's code never carry card data).
 */
export function errorHandler(logger: Logger) {
  return (error: FastifyError | AppError | Error, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    const appError = toAppError(logger, error, request);
    let status: number;
    let entries: ErrorEntry[];
    if (appError !== null) {
      status = appError.status;
      entries = appError.entries;
      reply.headers(appError.headers);
    } else {
      logger.error({ reqId: request.id, err: { type: error.name, message: error.message, stack: error.stack } }, 'unhandled error');
      status = 500;
      entries = [{ key: 'errors.internal', message: `An internal error occurred. Request id: ${request.id}` }];
    }
    const { contentType, payload } = renderErrors(errorFormatOf(request.raw), entries);
    return reply.code(status).type(contentType).send(payload);
  };
}
