import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorEntry } from '../domain/errors.js';
import { encodeJson, encodeJsonValue } from './format/json-codec.js';
import { formatOf } from './format/negotiation.js';
import { encodeXml, encodeXmlErrors } from './format/xml-codec.js';
import type { Format, Wire } from './format/wire.js';

const CONTENT_TYPE: Record<Format, string> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
};

/** Sends `{root: body}` in the request's format. */
export function sendWire(request: FastifyRequest, reply: FastifyReply, status: number, root: string, body: Wire): FastifyReply {
  const format = formatOf(request.raw);
  const payload = format === 'xml' ? encodeXml(root, body) : encodeJson(root, body);
  return reply.code(status).type(CONTENT_TYPE[format]).send(payload);
}

/** Renders the error envelope in `format`. */
export function renderErrors(format: Format, entries: ErrorEntry[]): { contentType: string; payload: string } {
  if (format === 'xml') return { contentType: CONTENT_TYPE.xml, payload: encodeXmlErrors(entries) };
  const errors = entries.map((entry) => {
    const out: Record<string, string> = { key: entry.key, message: entry.message };
    if (entry.attribute !== undefined) out.attribute = entry.attribute;
    return { ...out, ...entry.extra };
  });
  return { contentType: CONTENT_TYPE.json, payload: encodeJsonValue({ errors }) };
}
