import { containsCardLike, luhn } from '../../src/domain/scrubbing/card-like.js';
import { leaves } from '../helpers/card-data-guard.js';
import { parseXml } from '../helpers/client.js';
import { findCardData, maskCardData } from '../helpers/leak-scan.js';
import { escapeXml } from '../helpers/xml.js';

/*
 * Building blocks of the no-echo suite (docs/security.md, "Errors: messages never include
 * submitted values"): the leaves of a request body's JSON Schema, a body with one leaf replaced,
 * the Rails-style XML of a body, and the search of an error answer for the probe card number in
 * any spelling.
 */

/**
 * The probe: a Luhn-valid Visa number that is no test card. A known test card in a free-text
 * field that a request stores would trip the at-rest leak guard of startServer; the echo check
 * below finds this one anyway (card-like detection, the exact forms, the digits).
 */
export const PROBE_PAN = '4929420573595709';
/** A card number as clients write it: plain, in groups of four with spaces, with dashes. */
export function cardForms(pan: string): string[] {
  const groups = pan.match(/.{1,4}/g) as string[];
  return [pan, groups.join(' '), groups.join('-')];
}

export const PROBE_FORMS: readonly string[] = cardForms(PROBE_PAN);

/** The `n`th of a series of distinct Luhn-valid 16-digit Visa numbers, none a test card. */
export function numberedProbe(n: number): string {
  const body = `4929${String(n).padStart(11, '0')}`;
  const check = [...'0123456789'].find((digit) => luhn(`${body}${digit}`)) as string;
  return `${body}${check}`;
}

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  enum?: unknown[];
}

export type Step = string | number;

/** A place in a body that can hold text: a string field, or a free-form one (`data`, `amount`). */
export interface Leaf {
  path: Step[];
  freeForm: boolean;
}

/** Every leaf of a body schema that takes text; array items as their first item. */
export function textLeaves(schema: JsonSchema, path: Step[] = []): Leaf[] {
  if (schema.properties !== undefined) {
    return Object.entries(schema.properties).flatMap(([name, inner]) => textLeaves(inner, [...path, name]));
  }
  if (schema.items !== undefined) return textLeaves(schema.items, [...path, 0]);
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes('string')) return [{ path, freeForm: false }];
  // No type at all: z.unknown() (free-form data, a number given as text, an inline card).
  if (types.length === 0) return [{ path, freeForm: true }];
  return [];
}

/** A copy of `document` with `value` at `path`, the objects and arrays on the way created. */
export function withValueAt(document: Record<string, unknown>, path: readonly Step[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(document);
  let node = copy as Record<Step, unknown>;
  path.forEach((step, index) => {
    if (index === path.length - 1) {
      node[step] = value;
      return;
    }
    const existing = node[step];
    if (existing === null || typeof existing !== 'object') node[step] = typeof path[index + 1] === 'number' ? [] : {};
    node = node[step] as Record<Step, unknown>;
  });
  return copy;
}

/** Every text leaf of `schema` set to `value` at once. */
export function everyLeaf(schema: JsonSchema, value: unknown): Record<string, unknown> {
  return textLeaves(schema).reduce((document, leaf) => withValueAt(document, leaf.path, value), {} as Record<string, unknown>);
}

/*
 * XML lists are a wrapper of repeated items named by the list (`<rules><rule>`); two lists of the
 * workflow body name their items otherwise (src/http/routes/workflows.schemas.ts).
 */
const ITEM_NAMES: Record<string, string> = { split: 'share', backup_gateway_tokens: 'gateway_token' };

function itemName(list: string): string {
  if (ITEM_NAMES[list] !== undefined) return ITEM_NAMES[list];
  if (list.endsWith('ies')) return `${list.slice(0, -3)}y`;
  if (list.endsWith('xes')) return list.slice(0, -2);
  return list.endsWith('s') ? list.slice(0, -1) : list;
}

/** A body as the Ruby clients write it in XML: one element per field, typed numbers and booleans. */
export function toXml(name: string, value: unknown): string {
  if (Array.isArray(value)) return `<${name}>${value.map((item) => toXml(itemName(name), item)).join('')}</${name}>`;
  if (value !== null && typeof value === 'object') {
    return `<${name}>${Object.entries(value).map(([key, inner]) => toXml(key, inner)).join('')}</${name}>`;
  }
  if (typeof value === 'number') return `<${name} type="integer">${value}</${name}>`;
  if (typeof value === 'boolean') return `<${name} type="boolean">${value}</${name}>`;
  return `<${name}>${escapeXml(String(value))}</${name}>`;
}

function parsed(text: string): unknown {
  const trimmed = text.trim();
  try {
    if (trimmed.startsWith('{')) return JSON.parse(trimmed);
    if (trimmed.startsWith('<')) return parseXml(trimmed);
  } catch {
    // Not a document: searched as text.
  }
  return undefined;
}

/** The values under `message`, `errors` and `error` anywhere in a document. */
function messagesOf(document: unknown, out: string[] = []): string[] {
  if (document === null || typeof document !== 'object') return out;
  for (const [key, value] of Object.entries(document as Record<string, unknown>)) {
    if (key === 'message' || key === 'errors' || key === 'error') leaves(value, out);
    else messagesOf(value, out);
  }
  return out;
}

/**
 * What of an error answer must not hold a submitted value. The error envelope (`{"errors": …}`,
 * `<errors>`) or any text that is not a document: all of it, raw and decoded. An answer that is
 * a record (a declined transaction, 422) shows the fields the client stored by design (its
 * `description`, `order_id`): only its messages and error lists are Coffer's words.
 */
export function errorTexts(status: number, text: string): string[] {
  if (status < 400) return [];
  const document = parsed(text);
  if (document === undefined) return [text];
  const top = document as Record<string, unknown>;
  if ('errors' in top) return [...leaves(document), text];
  return messagesOf(document);
}

/** Every Unicode decimal digit as its ASCII digit, everything else dropped. */
export function digitsOnly(text: string): string {
  let out = '';
  for (const character of text) {
    if (!/\p{Nd}/u.test(character)) continue;
    // Decimal digits come in runs of whole sets of ten, from a zero: the distance to the run's start.
    let start = character.codePointAt(0) as number;
    while (/\p{Nd}/u.test(String.fromCodePoint(start - 1))) start -= 1;
    out += String(((character.codePointAt(0) as number) - start) % 10);
  }
  return out;
}

/** Whether `text` holds `pan` in any of its written forms, or among its digits. */
export function holds(text: string, pan: string): boolean {
  return cardForms(pan).some((form) => text.includes(form)) || digitsOnly(text).includes(pan);
}

/** The first of `texts` that holds the probe (or any card-like number), masked for a report; null when none does. */
export function probeFinding(texts: readonly string[]): string | null {
  const leaked = texts.find((text) => findCardData(text, PROBE_FORMS).length > 0 || containsCardLike(text) || holds(text, PROBE_PAN));
  return leaked === undefined ? null : maskCardData(leaked.replace(/\p{Nd}/gu, (digit) => digitsOnly(digit)), PROBE_FORMS).slice(0, 300);
}
