import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import { isPublicFormPost } from './auth.js';
import { MAX_BODY_LIMIT } from './body-limits.js';
import { decodeJson, type DecodedBody } from './format/json-codec.js';
import { contentTypeMatches, formatOf } from './format/negotiation.js';
import { decodeXml } from './format/xml-codec.js';
import { xmlBoundsFor } from './format/xml-size.js';
import { decodeForm } from './format/form-codec.js';

/**
 * Replaces Fastify's parsers with one that reads any body as bytes and decodes it by the
 * format the path suffix chose. An empty body means "no parameters" whatever its headers.
 * Each route's byte limit (body-limits.ts) applies as the body arrives (body-intake.ts); each
 * decoder checks the fields' bounds (input-bounds.ts) itself, JSON and forms as they decode.
 */
export function registerBodyDecoder(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: MAX_BODY_LIMIT }, (request, body, done) => {
    try {
      done(null, decodeBody(request, body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

function decodeBody(request: FastifyRequest, body: Buffer): DecodedBody {
  const text = body.toString('utf8');
  if (text.trim() === '') return { root: null, fields: {} };
  // The transparent redirect's HTML form (only where the route takes one).
  if (isPublicFormPost(request)) return decodeForm(text);
  const format = formatOf(request.raw);
  if (!contentTypeMatches(format, request.headers['content-type'])) {
    const expected = format === 'xml' ? 'application/xml or text/xml' : 'application/json';
    throw new AppError({ key: 'errors.unsupported_media_type', message: `Content-Type must be ${expected} for this request.` });
  }
  return format === 'xml' ? decodeXml(text, xmlBoundsFor(request.routeOptions.bodyLimit)) : decodeJson(text);
}

/** The fields under `root`; {} when there was no body. A different root is a malformed request. */
export function fieldsOf(request: FastifyRequest, root: string): Record<string, unknown> {
  const body = request.body as DecodedBody | undefined;
  if (body === undefined || body === null || body.root === null) return {};
  if (body.root !== root) {
    throw new AppError({ key: 'errors.malformed_request', message: `The request body's root must be "${root}".` });
  }
  return body.fields;
}

/** Names of the fields under `root` sent as empty XML elements (JSON keeps "" and null in the fields). */
export function emptyFieldsOf(request: FastifyRequest, root: string): string[] {
  const body = request.body as DecodedBody | undefined;
  if (body === undefined || body === null || body.root !== root) return [];
  return body.emptyElements ?? [];
}
