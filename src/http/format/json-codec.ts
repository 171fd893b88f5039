import { AppError } from '../../domain/errors.js';
import { reportableName } from './input-bounds.js';
import { WireErrors, WireList, WireMessage, WireTime, type Wire } from './wire.js';
import { wireTime } from './wire-time.js';
import { NameCache } from './name-cache.js';
import { readJson, JsonSyntaxError, type JsonDocument } from './json-decoder.js';

export { wireTime } from './wire-time.js';

/**
 * What JSON.stringify escapes in a string: `"`, `\`, control characters, lone surrogates. Any
 * surrogate sends the string to JSON.stringify (a pair is left as it is there, a lone one escaped).
 */
// eslint-disable-next-line no-control-regex -- control characters are among what it looks for
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(text)`; the call is skipped for text with nothing to escape (nearly all). */
function quote(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** Object members' `"name":`, made once per name (a list page writes ~1,800 of them). */
const MEMBER_PREFIXES = new NameCache((field) => `${quote(field)}:`);

function memberPrefix(field: string): string {
  return MEMBER_PREFIXES.get(field);
}

/** Test seam: whether `field`'s quoted form is kept across encodes. */
export function memberNameCached(field: string): boolean {
  return MEMBER_PREFIXES.has(field);
}

/**
 * Past this depth V8's JSON.stringify and a recursive copy get dearer per byte the deeper they go
 * (every collection scans the deep stack) and near 3,000 levels overflow it; values stored before
 * input was bounded (issue 11 §3) can be that deep. Shallower trees (every response since) keep the
 * native writer; deeper ones are written by `writeDeep`, with an explicit stack.
 */
const NATIVE_MAX_DEPTH = 64;

class TooDeep extends Error {}

function plainErrors(errors: WireErrors): unknown[] {
  return errors.entries.map((entry) => (entry.attribute === undefined ? { key: entry.key, message: entry.message } : { attribute: entry.attribute, key: entry.key, message: entry.message }));
}

/**
 * Writes a tree straight to JSON text, in one pass. The version before copied the tree into plain
 * objects for JSON.stringify: every view was built twice, and the copies of 40-field objects, made
 * field by field, were slow dictionary-mode objects (issue 12: a list page of 20 spent more in
 * that copy than in its queries). Same bytes as that version; see test/unit/json-writer.test.ts.
 */
function writeJson(value: unknown, depth: number): string {
  if (depth > NATIVE_MAX_DEPTH) throw new TooDeep();
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return 'null';
  }
  // Wire times are digits, `-`, `:`, `T`, `Z` (and a sign for years outside 0-9999): nothing to escape.
  if (value instanceof WireTime) return `"${value.text()}"`;
  if (value instanceof Date) return `"${wireTime(value)}"`;
  if (value instanceof WireList) return writeArray(value.items, depth);
  if (Array.isArray(value)) return writeArray(value, depth);
  if (value instanceof WireMessage) return writeJson(value.text, depth);
  if (value instanceof WireErrors) return value.entries.length === 0 ? '[]' : JSON.stringify(plainErrors(value));
  const object = value as Record<string, unknown>;
  const prototype: unknown = Object.getPrototypeOf(object);
  return forInIsOwnKeys && (prototype === Object.prototype || prototype === null) ? writeFields(object, depth) : writeKeys(object, Object.keys(object), depth);
}

/**
 * Whether Object.prototype has no enumerable field, so that for-in over an object made by a
 * literal or JSON.parse lists what Object.keys lists, in the same order. Set by each encode.
 */
let forInIsOwnKeys = true;

/**
 * An object's members by for-in: V8 walks a fast object's fields from its shape's cache, where
 * Object.keys allocates an array of them first (a list page: ~12 % of the writer's time).
 */
function writeFields(object: Record<string, unknown>, depth: number): string {
  let out = '{';
  for (const field in object) out = appendMember(out, field, object[field], depth);
  return `${out}}`;
}

function writeKeys(object: Record<string, unknown>, fields: readonly string[], depth: number): string {
  let out = '{';
  for (const field of fields) out = appendMember(out, field, object[field], depth);
  return `${out}}`;
}

/** `out` (an object's text so far, from its `{`) and the member `field`: undefined and functions are skipped, as JSON.stringify does. */
function appendMember(out: string, field: string, child: unknown, depth: number): string {
  if (child === undefined || typeof child === 'function') return out;
  const separator = out.length === 1 ? '' : ',';
  // JSON carries the i18n key as a sibling field placed just before the message.
  if (child instanceof WireMessage) return `${out}${separator}${memberPrefix(`${field}_key`)}${writeJson(child.key, depth + 1)},${memberPrefix(field)}${writeJson(child.text, depth + 1)}`;
  return out + separator + memberPrefix(field) + writeJson(child, depth + 1);
}

function writeArray(items: readonly unknown[], depth: number): string {
  let out = '[';
  for (let index = 0; index < items.length; index += 1) {
    if (index > 0) out += ',';
    // An array's undefined (or function) item is written as null, as JSON.stringify does.
    const item = items[index];
    out += item === undefined || typeof item === 'function' ? 'null' : writeJson(item, depth + 1);
  }
  return `${out}]`;
}

/** Renders `{ root: tree }` as JSON. */
export function encodeJson(root: string, body: Wire): string {
  forInIsOwnKeys = Object.keys(Object.prototype).length === 0;
  try {
    return body === undefined ? '{}' : `{${JSON.stringify(root)}:${writeJson(body, 0)}}`;
  } catch (error) {
    if (error instanceof TooDeep) return writeDeep({ [root]: body });
    throw error;
  }
}

type JsonFrame = { items: readonly unknown[]; index: number } | { entries: ReadonlyArray<[string, unknown]>; index: number };

/** An object's members as JSON writes them: undefined and functions dropped, a WireMessage as `<field>_key` and `<field>`. */
function members(value: object): Array<[string, unknown]> {
  const out: Array<[string, unknown]> = [];
  for (const [field, child] of Object.entries(value)) {
    if (child instanceof WireMessage) out.push([`${field}_key`, child.key], [field, child.text]);
    else if (child !== undefined && typeof child !== 'function') out.push([field, child]);
  }
  return out;
}

/**
 * What encodeJson's native path prints, for a tree of any depth: an explicit stack, no recursion,
 * work linear in the output.
 */
function writeDeep(value: unknown): string {
  const out: string[] = [];
  const stack: JsonFrame[] = [];
  const write = (item: unknown): void => {
    if (typeof item === 'string') out.push(JSON.stringify(item));
    else if (typeof item === 'number') out.push(Number.isFinite(item) ? String(item) : 'null');
    else if (typeof item === 'boolean') out.push(item ? 'true' : 'false');
    else if (item instanceof Date) out.push(JSON.stringify(wireTime(item)));
    else if (item instanceof WireTime) out.push(JSON.stringify(item.text()));
    else if (item instanceof WireMessage) write(item.text);
    else if (item instanceof WireErrors) write(plainErrors(item));
    else if (item instanceof WireList || Array.isArray(item)) {
      out.push('[');
      stack.push({ items: item instanceof WireList ? item.items : item, index: 0 });
    } else if (item !== null && typeof item === 'object') {
      out.push('{');
      stack.push({ entries: members(item), index: 0 });
    } else out.push('null');
  };
  write(value);
  while (stack.length > 0) {
    const top = stack[stack.length - 1] as JsonFrame;
    const items = 'items' in top ? top.items : top.entries;
    if (top.index >= items.length) {
      out.push('items' in top ? ']' : '}');
      stack.pop();
      continue;
    }
    if (top.index > 0) out.push(',');
    if ('items' in top) write(top.items[top.index++]);
    else {
      const [key, child] = top.entries[top.index++] as [string, unknown];
      out.push(JSON.stringify(key), ':');
      write(child);
    }
  }
  return out.join('');
}

/** Renders a plain JSON document (error envelopes). */
export function encodeJsonValue(value: unknown): string {
  return JSON.stringify(value);
}

/** Result of decoding a request body: its root name and the fields under it. */
export interface DecodedBody {
  root: string | null;
  fields: Record<string, unknown>;
  /**
   * XML only: names of the root's child elements (and of its children's children, as
   * `credit_card.first_name`) that were sent empty. `fields` leaves them out (an empty element
   * is "absent" for almost every field); the few fields where empty means "blank it" read this.
   */
  emptyElements?: string[];
}

function malformed(detail: string): AppError {
  return new AppError({ key: 'errors.malformed_request', message: `The request body could not be parsed: ${detail}.` });
}

/**
 * Parses a JSON request body and checks its fields' bounds (input-bounds.ts) in the same pass
 * (json-decoder.ts); prototype-polluting keys are dropped. A malformed body is reported before a
 * broken bound.
 */
export function decodeJson(text: string): DecodedBody {
  let document: JsonDocument;
  try {
    document = readJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw malformed('invalid JSON');
    throw error;
  }
  const body = requestBodyOf(document.value);
  if (document.fault !== null) throw document.fault;
  return body;
}

/** The root key as an error names it: quoted when it reads as a field name, never when it could be anything sent. */
function rootNamed(root: string): string {
  const name = reportableName(root);
  return name === root ? `"${root}"` : "the root key's value";
}

/** A decoded JSON document as a request body: one root key over an object (or null), or none at all. */
export function requestBodyOf(parsed: unknown): DecodedBody {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw malformed('expected a JSON object');
  const keys = Object.keys(parsed);
  if (keys.length === 0) return { root: null, fields: {} };
  if (keys.length !== 1) throw malformed('expected exactly one root key');
  const root = keys[0] as string;
  const inner = (parsed as Record<string, unknown>)[root];
  if (inner === null) return { root, fields: {} };
  if (typeof inner !== 'object' || Array.isArray(inner)) throw malformed(`${rootNamed(root)} must be an object`);
  return { root, fields: inner as Record<string, unknown> };
}
