import type { AppError } from '../../domain/errors.js';
import { controlCharacterError, hasControlCharacter } from './input-bounds.js';
import type { DecodedBody } from './json-codec.js';

/** Keys that would reach Object.prototype; dropped like the JSON decoder drops `__proto__`. */
const UNSAFE = new Set(['__proto__', 'prototype', 'constructor']);

/** The first of `[text, attribute]` pairs holding a forbidden control character, as its error. */
function controlFault(...checks: Array<[string, string]>): AppError | null {
  for (const [text, attribute] of checks) if (hasControlCharacter(text)) return controlCharacterError(attribute);
  return null;
}

/**
 * Decodes an HTML form (`application/x-www-form-urlencoded`) the way Rails reads one:
 * `credit_card[number]=…` becomes `{credit_card: {number: …}}` (one level of brackets, as the
 * transparent redirect's fields use); the last value of a repeated name wins. The fields are
 * those of a `payment_method`.
 *
 * The control-character bound of input-bounds.ts is checked as the pairs are read (a form is at
 * most two levels deep, so nesting cannot break its bound): a fault is kept with the field it
 * belongs to and forgotten when a later pair replaces that field, so only what survives counts.
 */
export function decodeForm(text: string): DecodedBody {
  const fields: Record<string, unknown> = {};
  // Faults by field, then by the name inside its brackets ('' for the field's own value).
  const faults = new Map<string, Map<string, AppError>>();
  const record = (field: string, inner: string, fault: AppError | null) => {
    const own = faults.get(field);
    if (fault === null) own?.delete(inner);
    else if (own === undefined) faults.set(field, new Map([[inner, fault]]));
    else own.set(inner, fault);
  };
  for (const [name, value] of new URLSearchParams(text)) {
    const nested = /^([^[\]]+)\[([^[\]]+)\]$/.exec(name);
    if (nested === null) {
      if (UNSAFE.has(name) || name.includes('[')) continue;
      fields[name] = value;
      faults.delete(name);
      record(name, '', controlFault([name, name], [value, name]));
      continue;
    }
    const [, parent = '', child = ''] = nested;
    if (UNSAFE.has(parent) || UNSAFE.has(child)) continue;
    const existing = fields[parent];
    const group = existing !== null && typeof existing === 'object' ? (existing as Record<string, unknown>) : {};
    // A text replaced by a group takes its faults with it.
    if (group !== existing) faults.delete(parent);
    group[child] = value;
    fields[parent] = group;
    record(parent, child, controlFault([parent, parent], [child, parent], [value, child]));
  }
  for (const own of faults.values()) {
    const fault = own.values().next().value;
    if (fault !== undefined) throw fault;
  }
  return { root: 'payment_method', fields };
}
