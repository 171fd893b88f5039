import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { AppError } from '../../domain/errors.js';
import { MAX_BODY_LIMIT } from '../body-limits.js';
import { checkInputBounds, reportableName } from './input-bounds.js';
import type { DecodedBody } from './json-codec.js';
import { checkXmlSize, xmlBoundsFor, type XmlBounds } from './xml-size.js';

// The response writer has its own module; its callers import it from here, with the reader.
export { encodeXml, encodeXmlErrors } from './xml-writer.js';

const parser = new XMLParser({
  // Attributes are read only to honour Rails typing (`type`, `nil`) on values; others are dropped.
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  ignoreDeclaration: true,
  ignorePiTags: true,
  // References are decoded by `decodeReferences` (the parser kept `&#xE9;` literally and let
  // `&unknown;` through); CDATA apart, so its text is never decoded.
  processEntities: false,
  htmlEntities: false,
  cdataPropName: '#cdata',
});

const PREDEFINED: Record<string, string> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };

/** XML 1.0 `Char`: what a character reference may name. */
function xmlAllows(code: number): boolean {
  return code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) || (code >= 0xe000 && code <= 0xfffd) || (code >= 0x10000 && code <= 0x10ffff);
}

/**
 * Decodes the five predefined entities and numeric character references of a text node (stored
 * literally, `caf&#xE9;` would reach the vault as typed). An undefined entity (there is no DTD to define one) or a reference to a character XML
 * forbids (`&#0;`) makes the document not well-formed: 422 errors.malformed_request. The messages
 * never quote the reference.
 */
function decodeReferences(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9A-Fa-f]+|#[0-9]+|[^;&\s]*);/g, (_match, reference: string) => {
    if (reference.startsWith('#')) {
      const code = reference.startsWith('#x') ? Number.parseInt(reference.slice(2), 16) : Number.parseInt(reference.slice(1), 10);
      if (!xmlAllows(code)) throw malformed('a character reference names a character XML does not allow');
      return String.fromCodePoint(code);
    }
    const predefined = PREDEFINED[reference];
    if (predefined === undefined) throw malformed('it refers to an undefined entity');
    return predefined;
  });
}

/** A text node's value: its decoded text, then its CDATA sections as written. */
function textOf(node: Record<string, unknown>): string {
  const cdata = node['#cdata'];
  const raw = Array.isArray(cdata) ? cdata.join('') : typeof cdata === 'string' ? cdata : '';
  return decodeReferences(String(node['#text'] ?? '')) + raw;
}

function malformed(detail: string): AppError {
  return new AppError({ key: 'errors.malformed_request', message: `The request body could not be parsed: ${detail}.` });
}

/** A value Rails typed with `type="integer|boolean"`; integers beyond 2^53 stay text (no lost digits). */
function typedValue(text: string, type: unknown): unknown {
  if (type === 'integer' && /^-?\d+$/.test(text) && Number.isSafeInteger(Number(text))) return Number(text);
  if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
  return text;
}

// Most clients send untyped text; an empty element (or nil="true") means "absent".
function normalize(value: unknown): unknown {
  if (value === '') return undefined;
  if (typeof value === 'string') {
    const text = decodeReferences(value);
    return text === '' ? undefined : text;
  }
  if (Array.isArray(value)) return value.map(normalize).filter((v) => v !== undefined);
  if (value !== null && typeof value === 'object') {
    const node = value as Record<string, unknown>;
    if (node['@_nil'] === 'true') return undefined;
    const isText = (k: string) => k === '#text' || k === '#cdata' || k.startsWith('@_');
    if (('#text' in node || '#cdata' in node) && Object.keys(node).every(isText)) {
      const text = textOf(node);
      return text === '' ? undefined : typedValue(text, node['@_type']);
    }
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(node)) {
      if (k === '__proto__' || k.startsWith('@_')) continue;
      const cleaned = normalize(v);
      if (cleaned !== undefined) out[k] = cleaned;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return value;
}

/**
 * Parses an XML request body into its root name and untyped fields, refusing it first when it
 * holds more elements or attributes than `bounds` allow (xml-size.ts), and checking the fields'
 * bounds (input-bounds.ts) last.
 */
export function decodeXml(text: string, bounds: XmlBounds = xmlBoundsFor(MAX_BODY_LIMIT)): DecodedBody {
  // Document type declarations are never needed by clients and open entity-expansion attacks.
  if (/<!DOCTYPE/i.test(text)) throw malformed('document type declarations are not allowed');
  checkXmlSize(text, bounds);
  if (XMLValidator.validate(text) !== true) throw malformed('invalid XML');
  let parsed: Record<string, unknown>;
  try {
    parsed = parser.parse(text) as Record<string, unknown>;
  } catch {
    // Valid XML the parser still refuses (its nesting limit, for one) is a client's body, not a fault.
    throw malformed('invalid XML');
  }
  const roots = Object.keys(parsed);
  if (roots.length !== 1) throw malformed('expected exactly one root element');
  const root = roots[0] as string;
  const inner = normalize(parsed[root]);
  const emptyElements = emptyElementsOf(parsed[root]);
  if (inner === undefined) return { root, fields: {}, emptyElements };
  if (typeof inner !== 'object' || Array.isArray(inner)) throw malformed(`${reportableName(root) === root ? `<${root}>` : 'the root element'} must contain elements`);
  checkInputBounds(inner as Record<string, unknown>);
  return { root, fields: inner as Record<string, unknown>, emptyElements };
}

function isEmptyElement(value: unknown): boolean {
  if (value === '') return true;
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const node = value as Record<string, unknown>;
  return node['@_nil'] === 'true' || ('#text' in node ? node['#text'] === '' : Object.keys(node).every((k) => k.startsWith('@_')));
}

/** Names of empty children of `node`, two levels deep (`first_name`, `credit_card.first_name`). */
function emptyElementsOf(node: unknown): string[] {
  if (node === null || typeof node !== 'object' || Array.isArray(node)) return [];
  const names: string[] = [];
  for (const [name, child] of Object.entries(node as Record<string, unknown>)) {
    if (name.startsWith('@_') || name === '#text') continue;
    if (isEmptyElement(child)) names.push(name);
    else if (child !== null && typeof child === 'object' && !Array.isArray(child)) {
      for (const [inner, grandchild] of Object.entries(child as Record<string, unknown>)) {
        if (!inner.startsWith('@_') && inner !== '#text' && isEmptyElement(grandchild)) names.push(`${name}.${inner}`);
      }
    }
  }
  return names;
}
