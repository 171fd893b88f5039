/**
 * Scrubbing shared by every transcript: anything that looks like a card number, a CVV field,
 * an account number field or credentials is replaced with [FILTERED] before it is stored.
 * Adapters add their own rules on top (field names of their wire format).
 */

import { replaceCardLike } from '../domain/scrubbing/card-like.js';
import { FILTERED } from '../domain/scrubbing/scrubber.js';

/** 12–19 digits, optionally grouped by spaces or dashes, not part of a longer token. */
const PAN_LIKE = /(?<![0-9A-Za-z])(?:\d[ -]?){11,18}\d(?![0-9A-Za-z])/g;

const SECRET_FIELDS = [
  'number',
  'card\\[number\\]',
  'cvc',
  'card\\[cvc\\]',
  'cvv',
  'verification_value',
  'account_number',
  'routing_number',
  'bank_account_number',
  'bank_routing_number',
  'password',
  'login',
  'secret',
];

// form encoding: name=value, where the secret name may be nested (a[b][cvc]=…) and URL-encoded (%5Bcvc%5D)
const FORM_FIELD = new RegExp(`((?:^|[&?\\s])[\\w%\\[\\]]*?(?:^|\\[|%5B|\\b)(?:${SECRET_FIELDS.filter((f) => !f.includes('\\\\')).join('|')})(?:\\]|%5D)?=)[^&\\s"]*`, 'gi');
// JSON: "name": "value" or "name": 123
const JSON_FIELD = new RegExp(`("(?:${SECRET_FIELDS.join('|')})"\\s*:\\s*)("(?:[^"\\\\]|\\\\.)*"|\\d+)`, 'gi');
// XML: <name>value</name>
const XML_FIELD = new RegExp(`(<(${SECRET_FIELDS.filter((f) => !f.includes('\\\\')).join('|')})>)[^<]*(</\\2>)`, 'gi');
const AUTH_HEADER = /(authorization:\s*)(basic|bearer)\s+[^\s"]+/gi;

export function scrubTranscript(text: string): string {
  const byField = text
    .replace(AUTH_HEADER, `$1$2 ${FILTERED}`)
    .replace(FORM_FIELD, `$1${FILTERED}`)
    .replace(JSON_FIELD, `$1"${FILTERED}"`)
    .replace(XML_FIELD, `$1${FILTERED}$3`)
    .replace(PAN_LIKE, FILTERED);
  // Card numbers written any other way (dots, slashes, NBSP, entities, escapes): the shared rules.
  return replaceCardLike(byField, FILTERED);
}
