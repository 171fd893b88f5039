import type { DecodedBody } from './json-codec.js';

/** Keys that would reach Object.prototype; dropped like the JSON decoder drops `__proto__`. */
const UNSAFE = new Set(['__proto__', 'prototype', 'constructor']);

/**
 * Decodes an HTML form (`application/x-www-form-urlencoded`) the way Rails reads one:
 * `credit_card[number]=…` becomes `{credit_card: {number: …}}` (one level of brackets, as the
 * transparent redirect's fields use); the last value of a repeated name wins. The fields are
 * those of a `payment_method`.
 */
export function decodeForm(text: string): DecodedBody {
  const fields: Record<string, unknown> = {};
  for (const [name, value] of new URLSearchParams(text)) {
    const nested = /^([^[\]]+)\[([^[\]]+)\]$/.exec(name);
    if (nested === null) {
      if (!UNSAFE.has(name) && !name.includes('[')) fields[name] = value;
      continue;
    }
    const [, parent = '', child = ''] = nested;
    if (UNSAFE.has(parent) || UNSAFE.has(child)) continue;
    const existing = fields[parent];
    const group = existing !== null && typeof existing === 'object' ? (existing as Record<string, unknown>) : {};
    group[child] = value;
    fields[parent] = group;
  }
  return { root: 'payment_method', fields };
}
