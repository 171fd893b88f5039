import { wireTime } from '../../src/http/format/wire-time.js';
import { WireErrors, WireList, WireMessage, WireTime, type Wire } from '../../src/http/format/wire.js';

/*
 * The XML response writer as it was before it wrote the Wire tree in one pass (2026-11-24): the
 * tree was first copied into a node tree (`toNode`: `@_name` attributes, `#text`, arrays repeating
 * an element), then that tree written out (`writeElement`). Copied unchanged from
 * src/http/format/xml-codec.ts; kept only as the oracle the one-pass writer is compared with
 * (test/unit/xml-writer.test.ts) and as the "before" of its benchmark. Do not tidy it: its quirks
 * (a field named `__proto__` assigned onto a plain object, field names that collide once cleaned)
 * are part of what the writer must reproduce.
 */

function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(value: string): string {
  return escapeText(value).replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>\n';

function elementName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

type Node = string | Record<string, unknown> | Node[];

function typed(type: string, text: string): Node {
  return { '@_type': type, '#text': text };
}

function toNode(value: Wire): Node {
  if (value === null) return { '@_nil': 'true' };
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return typed('boolean', String(value));
  if (typeof value === 'number') return typed(Number.isInteger(value) ? 'integer' : 'float', String(value));
  if (value instanceof Date) return typed('dateTime', wireTime(value));
  if (value instanceof WireTime) return typed('dateTime', value.text());
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

const INDENT = '  ';

function writeElement(out: string[], name: string, node: Node, level: number): void {
  if (Array.isArray(node)) {
    for (const item of node) writeElement(out, name, item, level);
    return;
  }
  const indent = INDENT.repeat(level);
  if (typeof node === 'string') {
    out.push(node === '' ? `${indent}<${name}/>\n` : `${indent}<${name}>${escapeText(node)}</${name}>\n`);
    return;
  }
  const opening = out.length;
  out.push('');
  let attributes = '';
  let text = '';
  for (const key of Object.keys(node)) {
    const value = node[key];
    if (value === undefined) continue;
    if (key.startsWith('@_')) attributes += ` ${key.slice(2)}="${escapeAttribute(String(value))}"`;
    else if (key === '#text') text += escapeText(String(value));
    else writeElement(out, key, value as Node, level + 1);
  }
  if (out.length === opening + 1) {
    out[opening] = text === '' ? `${indent}<${name}${attributes}/>\n` : `${indent}<${name}${attributes}>${text}</${name}>\n`;
    return;
  }
  out[opening] = `${indent}<${name}${attributes}>\n${text}`;
  out.push(`${indent}</${name}>\n`);
}

function writeDocument(root: string, node: Node): string {
  const out: string[] = [PROLOG];
  writeElement(out, root, node, 0);
  return out.join('');
}

function errorNode(entry: { key: string; message: string; attribute?: string | undefined; extra?: Record<string, string> | undefined }): Record<string, unknown> {
  const node: Record<string, unknown> = { '@_key': entry.key };
  if (entry.attribute !== undefined) node['@_attribute'] = entry.attribute;
  for (const [name, value] of Object.entries(entry.extra ?? {})) node[`@_${name}`] = value;
  node['#text'] = entry.message;
  return node;
}

/** What `encodeXml(root, body)` printed before the one-pass writer. */
export function oracleXml(root: string, body: Wire): string {
  return writeDocument(root, toNode(body));
}

/** What `encodeXmlErrors(entries)` printed before the one-pass writer. */
export function oracleXmlErrors(entries: Array<{ key: string; message: string; attribute?: string | undefined; extra?: Record<string, string> | undefined }>): string {
  return writeDocument('errors', { error: entries.map(errorNode) });
}
