import { AppError } from '../../domain/errors.js';
import { WireErrors, WireList, WireMessage, type Wire } from './wire.js';

/** ISO-8601 UTC at second precision, as Spreedly emits. */
export function wireTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

function toPlain(value: Wire): unknown {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return wireTime(value);
  if (value instanceof WireList) return value.items.map(toPlain);
  if (Array.isArray(value)) return value.map(toPlain);
  if (value instanceof WireMessage) return value.text;
  if (value instanceof WireErrors) {
    return value.entries.map((entry) => (entry.attribute === undefined ? { key: entry.key, message: entry.message } : { attribute: entry.attribute, key: entry.key, message: entry.message }));
  }
  const out: Record<string, unknown> = {};
  for (const [field, child] of Object.entries(value)) {
    if (child instanceof WireMessage) {
      // JSON carries the i18n key as a sibling field placed just before the message.
      out[`${field}_key`] = child.key;
      out[field] = child.text;
    } else {
      out[field] = toPlain(child);
    }
  }
  return out;
}

/** Renders `{ root: tree }` as JSON. */
export function encodeJson(root: string, body: Wire): string {
  return JSON.stringify({ [root]: toPlain(body) });
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

/** Parses a JSON request body; prototype-polluting keys are dropped. */
export function decodeJson(text: string): DecodedBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value));
  } catch {
    throw malformed('invalid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw malformed('expected a JSON object');
  const keys = Object.keys(parsed);
  if (keys.length === 0) return { root: null, fields: {} };
  if (keys.length !== 1) throw malformed('expected exactly one root key');
  const root = keys[0] as string;
  const inner = (parsed as Record<string, unknown>)[root];
  if (inner === null) return { root, fields: {} };
  if (typeof inner !== 'object' || Array.isArray(inner)) throw malformed(`"${root}" must be an object`);
  return { root, fields: inner as Record<string, unknown> };
}
