import { AppError, humanize } from '../../domain/errors.js';
import { containsCardLike } from '../../domain/scrubbing/card-like.js';

/**
 * Bounds on every decoded request body, all formats (docs/security.md, "Limits on input and templates"), checked before any
 * route sees the fields: by the JSON and form decoders as they decode (json-decoder.ts,
 * form-codec.ts), by `checkInputBounds` for XML:
 *
 * - Nesting: no field's value may be nested more than MAX_NESTING levels (`{"data": {"a": 1}}` is
 *   one level). Free-form fields (`data`, `metadata`, `gateway_specific_fields`, …) are the only
 *   ones a schema does not bound; a deeper value made every later read of the record slow.
 * - Free-form size: each free-form field at most MAX_FREE_FORM_KEYS keys (all levels together)
 *   and MAX_FREE_FORM_BYTES of JSON (see `freeFormError`).
 * - Control characters: no string or key may hold a C0 control character other than tab, line
 *   feed and carriage return; XML 1.0 cannot carry them, so a stored one broke every XML page
 *   that showed it.
 *
 * The walk is iterative (no recursion to exhaust) and linear in the body's size; the decoders
 * that check as they go report the same errors.
 */

export const MAX_NESTING = 32;
export const MAX_FREE_FORM_KEYS = 1000;
export const MAX_FREE_FORM_BYTES = 64 * 1024;

/** C0 controls but tab (0x09), line feed (0x0A) and carriage return (0x0D). */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const FORBIDDEN_CONTROL = /[\u0000-\u0008\u000B\u000C\u000E-\u001F]/;

/** A name that reads as a field name: what an error may repeat. */
const FIELD_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/**
 * The name an error gives: the key as sent when it reads as a field name and holds nothing
 * card-like, else "value". Keys of free-form fields (`metadata`, `data`, …) and unknown fields are
 * the client's own text, and errors never repeat what was submitted (docs/security.md).
 */
export function reportableName(name: string): string {
  return FIELD_NAME.test(name) && !/\d{12,}/.test(name) && !containsCardLike(name) ? name : 'value';
}

function invalid(name: string, detail: string): AppError {
  const attribute = reportableName(name);
  return new AppError({ key: 'errors.invalid', attribute, message: `${humanize(attribute)} ${detail}` });
}

/** 422 for the field whose value is nested more than MAX_NESTING levels deep. */
export function nestingError(field: string): AppError {
  return invalid(field, `is nested more than ${MAX_NESTING} levels deep`);
}

/** 422 for a string or key holding a forbidden control character, named by the nearest key above it. */
export function controlCharacterError(attribute: string): AppError {
  return invalid(attribute, 'contains a control character');
}

/** Whether `text` holds a C0 control character other than tab, line feed and carriage return. */
export function hasControlCharacter(text: string): boolean {
  return FORBIDDEN_CONTROL.test(text);
}

/** Throws 422 errors.invalid on the first field nested too deep or holding a control character. */
export function checkInputBounds(fields: Record<string, unknown>): void {
  // [value, depth of the value, the field it belongs to (top-level name), the nearest key above it]
  const stack: Array<[unknown, number, string, string]> = Object.entries(fields).map(([key, value]) => [value, 0, key, key]);
  for (const key of Object.keys(fields)) checkText(key, key);
  while (stack.length > 0) {
    const [value, depth, field, nearest] = stack.pop() as [unknown, number, string, string];
    if (typeof value === 'string') {
      checkText(value, nearest);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth + 1 > MAX_NESTING) throw nestingError(field);
    if (Array.isArray(value)) {
      for (const item of value) stack.push([item, depth + 1, field, nearest]);
      continue;
    }
    for (const [key, child] of Object.entries(value)) {
      checkText(key, nearest);
      stack.push([child, depth + 1, field, key]);
    }
  }
}

function checkText(text: string, attribute: string): void {
  if (FORBIDDEN_CONTROL.test(text)) throw controlCharacterError(attribute);
}

/**
 * Checks a free-form value's size: keys at every level and JSON length. Returns the message of
 * the error, or null. (Depth and control characters are the body decoder's.)
 */
export function freeFormError(value: unknown): string | null {
  if (value === undefined || value === null || typeof value !== 'object') return null;
  let keys = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const current = stack.pop();
    if (current === null || typeof current !== 'object') continue;
    if (Array.isArray(current)) for (const item of current) stack.push(item);
    else {
      const entries = Object.entries(current);
      keys += entries.length;
      if (keys > MAX_FREE_FORM_KEYS) return `cannot have more than ${MAX_FREE_FORM_KEYS} keys`;
      for (const [, child] of entries) stack.push(child);
    }
  }
  if (Buffer.byteLength(JSON.stringify(value)) > MAX_FREE_FORM_BYTES) return `cannot be larger than ${MAX_FREE_FORM_BYTES / 1024} KiB`;
  return null;
}
