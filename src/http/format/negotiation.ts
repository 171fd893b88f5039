import type { IncomingMessage } from 'node:http';
import type { Format } from './wire.js';

const SUFFIX = /\.(json|xml)$/;

/**
 * Splits the format suffix off a request URL: `/v1/gateways/abc.xml?x=1` → `/v1/gateways/abc?x=1`
 * with format `xml`. Paths without a suffix are JSON (the caller decides exceptions such as
 * the plain-text transcript).
 */
export function splitFormat(url: string): { url: string; format: Format; suffixed: boolean } {
  const queryAt = url.indexOf('?');
  const pathPart = queryAt === -1 ? url : url.slice(0, queryAt);
  const query = queryAt === -1 ? '' : url.slice(queryAt);
  const match = SUFFIX.exec(pathPart);
  if (match === null) return { url, format: 'json', suffixed: false };
  return { url: pathPart.slice(0, match.index) + query, format: match[1] as Format, suffixed: true };
}

// The router sees the rewritten URL; the format chosen from the original one is kept here.
const formats = new WeakMap<IncomingMessage, Format>();
const suffixless = new WeakSet<IncomingMessage>();

export function rememberFormat(req: IncomingMessage, format: Format, suffixed = true): void {
  formats.set(req, format);
  if (!suffixed) suffixless.add(req);
}

/** True when Accept names JSON (with a non-zero q) explicitly. */
function acceptAsksJson(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';');
    const q = params.map((p) => p.trim()).find((p) => p.toLowerCase().startsWith('q='));
    return type.trim().toLowerCase() === 'application/json' && (q === undefined || Number(q.slice(2)) > 0);
  });
}

/**
 * The format of an error body. A suffix decides; without one (the plain-text transcript, any
 * path called bare) errors are XML unless Accept asks for JSON, as Spreedly answers them.
 */
export function errorFormatOf(req: IncomingMessage): Format {
  if (!suffixless.has(req) && formats.has(req)) return formatOf(req);
  return acceptAsksJson(req.headers.accept) ? 'json' : 'xml';
}

export function formatOf(req: IncomingMessage): Format {
  return formats.get(req) ?? 'json';
}

function mediaType(header: string): string {
  return (header.split(';')[0] ?? '').trim().toLowerCase();
}

/** Media types whose bodies each format accepts (parameters such as charset are ignored). */
export function contentTypeMatches(format: Format, contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const type = mediaType(contentType);
  return format === 'json' ? type === 'application/json' : type === 'application/xml' || type === 'text/xml';
}

const ACCEPTABLE: Record<Format, readonly string[]> = {
  json: ['*/*', 'application/*', 'application/json'],
  xml: ['*/*', 'application/*', 'application/xml', 'text/*', 'text/xml'],
};

/** True when the Accept header (absent = anything) allows a response in `format`. */
export function acceptAllows(format: Format, accept: string | undefined): boolean {
  if (accept === undefined || accept.trim() === '') return true;
  return accept.split(',').some((range) => {
    const [type = '', ...params] = range.split(';');
    const q = params.map((p) => p.trim()).find((p) => p.toLowerCase().startsWith('q='));
    if (q !== undefined && !(Number(q.slice(2)) > 0)) return false;
    return ACCEPTABLE[format].includes(type.trim().toLowerCase());
  });
}
