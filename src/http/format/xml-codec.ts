import { XMLBuilder, XMLParser, XMLValidator } from 'fast-xml-parser';
import { AppError, type ErrorEntry } from '../../domain/errors.js';
import { wireTime, type DecodedBody } from './json-codec.js';
import { WireErrors, WireList, WireMessage, type Wire } from './wire.js';

const builder = new XMLBuilder({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  format: true,
  indentBy: '  ',
  suppressEmptyNode: true,
  // `nil="true"` must keep its value: the builder would otherwise print a bare `nil`.
  suppressBooleanAttributes: false,
  // Escape as Rails' Builder does (&, <, > in text; also " in attributes), so messages such as
  // "can't be blank" keep their apostrophe for clients that compare text.
  processEntities: false,
  tagValueProcessor: (_name: string, value: unknown) => escapeText(String(value)),
  attributeValueProcessor: (_name: string, value: unknown) => escapeText(String(value)).replace(/"/g, '&quot;'),
});

function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

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
  processEntities: true,
  htmlEntities: false,
});

const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>\n';

// Free-form keys (data, metadata) may not be valid element names; keep them well-formed.
function elementName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

type Node = string | Record<string, unknown> | Node[];

function typed(type: string, text: string): Node {
  return { '@_type': type, '#text': text };
}

/** Rails `to_xml` typing: integers, booleans and datetimes carry `type`, nil carries `nil="true"`. */
function toNode(value: Wire): Node {
  if (value === null) return { '@_nil': 'true' };
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return typed('boolean', String(value));
  if (typeof value === 'number') return typed(Number.isInteger(value) ? 'integer' : 'float', String(value));
  if (value instanceof Date) return typed('dateTime', wireTime(value));
  if (value instanceof WireMessage) {
    const node: Record<string, unknown> = value.text === null ? { '@_nil': 'true' } : { '#text': value.text };
    if (value.key !== null) node['@_key'] = value.key;
    return node;
  }
  if (value instanceof WireErrors) return value.entries.length === 0 ? '' : { error: value.entries.map(errorNode) };
  if (value instanceof WireList) return value.items.length === 0 ? '' : { [elementName(value.itemName)]: value.items.map(toNode) };
  if (Array.isArray(value)) {
    return value.length === 0 ? { '@_type': 'array' } : { '@_type': 'array', item: value.map(toNode) };
  }
  const out: Record<string, unknown> = {};
  for (const [field, child] of Object.entries(value)) out[elementName(field)] = toNode(child);
  return Object.keys(out).length === 0 ? '' : out;
}

/** Renders `<root>tree</root>` with the XML prolog. */
export function encodeXml(root: string, body: Wire): string {
  return PROLOG + (builder.build({ [root]: toNode(body) }) as string);
}

function errorNode(entry: { key: string; message: string; attribute?: string | undefined; extra?: Record<string, string> | undefined }): Record<string, unknown> {
  const node: Record<string, unknown> = { '@_key': entry.key };
  if (entry.attribute !== undefined) node['@_attribute'] = entry.attribute;
  for (const [name, value] of Object.entries(entry.extra ?? {})) node[`@_${name}`] = value;
  node['#text'] = entry.message;
  return node;
}

/** `<errors><error key="…" attribute="…">message</error></errors>` */
export function encodeXmlErrors(entries: ErrorEntry[]): string {
  return PROLOG + (builder.build({ errors: { error: entries.map(errorNode) } }) as string);
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
  if (Array.isArray(value)) return value.map(normalize).filter((v) => v !== undefined);
  if (value !== null && typeof value === 'object') {
    const node = value as Record<string, unknown>;
    if (node['@_nil'] === 'true') return undefined;
    if ('#text' in node && Object.keys(node).every((k) => k === '#text' || k.startsWith('@_'))) {
      return normalize(typedValue(String(node['#text']), node['@_type']));
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

/** Parses an XML request body into its root name and untyped fields. */
export function decodeXml(text: string): DecodedBody {
  // Document type declarations are never needed by clients and open entity-expansion attacks.
  if (/<!DOCTYPE/i.test(text)) throw malformed('document type declarations are not allowed');
  if (XMLValidator.validate(text) !== true) throw malformed('invalid XML');
  const parsed = parser.parse(text) as Record<string, unknown>;
  const roots = Object.keys(parsed);
  if (roots.length !== 1) throw malformed('expected exactly one root element');
  const root = roots[0] as string;
  const inner = normalize(parsed[root]);
  if (inner === undefined) return { root, fields: {} };
  if (typeof inner !== 'object' || Array.isArray(inner)) throw malformed(`<${root}> must contain elements`);
  return { root, fields: inner as Record<string, unknown> };
}
