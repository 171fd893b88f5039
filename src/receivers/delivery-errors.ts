import { AppError, fieldError } from '../domain/errors.js';
import { EgressRefusedError } from './egress.js';

/**
 * Typed failures of a delivery. None of their messages carries the URL's path or query, a header,
 * the body or a template: those may hold card data or credentials once rendered.
 */

/** The part of a delivery request a client error points at. */
export type DeliveryAttribute = 'url' | 'headers' | 'body';

/**
 * A template (url, headers or body) that mustache cannot parse, or that names something only a
 * program could reach (`constructor`, `__proto__`). The service knows which field it rendered.
 */
export class TemplateError extends Error {
  constructor(readonly reason: string) {
    super(`The template is invalid: ${reason}.`);
    this.name = 'TemplateError';
  }

  /** 422 `errors.invalid` on the field whose template failed. */
  toAppError(attribute: DeliveryAttribute): AppError {
    return new AppError(fieldError.invalid(attribute));
  }
}

/**
 * A template over its limits (section nesting, steps, rendered size; template-limits.ts). Its reason
 * is the answer's message, so the client learns which limit: it names numbers, never content.
 */
export class TemplateLimitError extends TemplateError {
  override toAppError(attribute: DeliveryAttribute): AppError {
    const field = attribute.charAt(0).toUpperCase() + attribute.slice(1);
    return new AppError({ key: 'errors.invalid', attribute, message: `${field} is over a template limit: ${this.reason}` });
  }
}

/** The rendered request cannot be sent as HTTP: a malformed header line, an unusable URL. */
export class DeliveryInputError extends Error {
  constructor(
    readonly attribute: DeliveryAttribute,
    readonly reason: string,
  ) {
    super(`The delivery ${attribute} is invalid: ${reason}.`);
    this.name = 'DeliveryInputError';
  }

  /** 422 `errors.invalid` on `attribute`. */
  toAppError(): AppError {
    return new AppError(fieldError.invalid(this.attribute));
  }
}

/** What the client saw of a failed exchange, for the transaction's transcript. */
interface FailedExchange {
  /** The scrubbed transcript up to the failure. */
  transcript: string;
  latencyMs: number;
}

/** Nothing can have reached the receiver: DNS, refused connection, TLS handshake, connect timeout. */
export class DeliveryFaultError extends Error implements FailedExchange {
  constructor(
    message: string,
    /** A short code for logs (ECONNREFUSED, ERR_TLS_CERT_ALTNAME_INVALID, too_large); never a value. */
    readonly detail: string,
    readonly transcript: string,
    readonly latencyMs: number,
  ) {
    super(message);
    this.name = 'DeliveryFaultError';
  }
}

/** The request may have reached the receiver: a timeout after connecting, a connection lost mid-way. */
export class DeliveryResultUnknownError extends Error implements FailedExchange {
  constructor(
    message: string,
    readonly detail: string,
    readonly transcript: string,
    readonly latencyMs: number,
  ) {
    super(message);
    this.name = 'DeliveryResultUnknownError';
  }
}

/** 422 `errors.egress_refused` on `url`, with the guard's message (host and category only). */
export function egressRefusedAppError(error: EgressRefusedError): AppError {
  return new AppError({ key: 'errors.egress_refused', attribute: 'url', message: error.message });
}

export { EgressRefusedError };
