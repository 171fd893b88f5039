import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ErrorEntry } from '../domain/errors.js';
import { listItems, type BodyWriter } from './format/body-writer.js';
import { encodeJsonValue, jsonBodyWriter, jsonListWriter } from './format/json-writer.js';
import { formatOf } from './format/negotiation.js';
import { encodeXmlErrors } from './format/xml-codec.js';
import { xmlBodyWriter, xmlListWriter } from './format/xml-writer.js';
import type { Format, Wire } from './format/wire.js';
import { STREAM_AFTER_BYTES, writeInSlices } from './sliced-body.js';

const CONTENT_TYPE: Record<Format, string> = {
  json: 'application/json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
};

/**
 * Sends what `writer` writes, written a slice at a time (sliced-body.ts). A body done in one slice
 * (nearly all) is sent at once; a longer one later, and a body past `streamAfter` bytes as a
 * stream. Either way the handler returns the reply, which Fastify awaits. A throw while writing is
 * the handler's error, as it was when the body was written in one call.
 */
function sendWritten(reply: FastifyReply, status: number, format: Format, writer: BodyWriter, streamAfter: number): FastifyReply {
  const written = writeInSlices(writer, streamAfter);
  if (!(written instanceof Promise)) return reply.code(status).type(CONTENT_TYPE[format]).send(written);
  void written.then((payload) => reply.code(status).type(CONTENT_TYPE[format]).send(payload)).catch((error: unknown) => reply.send(error));
  return reply;
}

/** Sends `{root: body}` in the request's format; held whole until sent (a single resource; idempotent replays store it). */
export function sendWire(request: FastifyRequest, reply: FastifyReply, status: number, root: string, body: Wire): FastifyReply {
  const format = formatOf(request.raw);
  return sendWritten(reply, status, format, format === 'xml' ? xmlBodyWriter(root, body) : jsonBodyWriter(root, body), Number.POSITIVE_INFINITY);
}

/**
 * Sends a list, `{root: [view(row), …]}` (XML: an element `itemName` per row), 200. Each row's view
 * is made when it is written and dropped after, and a list longer than STREAM_AFTER_BYTES is
 * streamed: a page of large rows never holds the event loop for long, nor the whole text in memory.
 * Every row is written: a page is never cut short (docs/wire-compatibility.md, "Large pages").
 */
export function sendWireList<Row>(request: FastifyRequest, reply: FastifyReply, root: string, itemName: string, rows: readonly Row[], view: (row: Row) => Wire): FastifyReply {
  const format = formatOf(request.raw);
  const items = listItems(rows, view);
  return sendWritten(reply, 200, format, format === 'xml' ? xmlListWriter(root, itemName, items) : jsonListWriter(root, items), STREAM_AFTER_BYTES);
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
