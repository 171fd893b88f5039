import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../domain/errors.js';
import { decodeJson, type DecodedBody } from './format/json-codec.js';
import { contentTypeMatches, formatOf } from './format/negotiation.js';
import { checkInputBounds } from './format/input-bounds.js';
import { decodeXml } from './format/xml-codec.js';
import { decodeForm } from './format/form-codec.js';
import { isFormEncoded } from './auth.js';

export const BODY_LIMIT = 1024 * 1024;

/**
 * Replaces Fastify's parsers with one that reads any body as bytes and decodes it by the
 * format the path suffix chose. An empty body means "no parameters" whatever its headers.
 */
export function registerBodyDecoder(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: BODY_LIMIT }, (request, body, done) => {
    try {
      done(null, decodeBody(request, body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
}

function decodeBody(request: FastifyRequest, body: Buffer): DecodedBody {
  if (body.length === 0 || body.toString('utf8').trim() === '') return { root: null, fields: {} };
  // The transparent redirect's HTML form (only where the route takes one).
  if (request.routeOptions.config.formPost === true && isFormEncoded(request.headers['content-type'])) return decodeForm(body.toString('utf8'));
  const format = formatOf(request.raw);
  if (!contentTypeMatches(format, request.headers['content-type'])) {
    const expected = format === 'xml' ? 'application/xml or text/xml' : 'application/json';
    throw new AppError({ key: 'errors.unsupported_media_type', message: `Content-Type must be ${expected} for this request.` });
  }
  const text = body.toString('utf8');
  const decoded = format === 'xml' ? decodeXml(text) : decodeJson(text);
  // Depth and control characters, for every field of every route (issue 11 §3, §8).
  checkInputBounds(decoded.fields);
  return decoded;
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
