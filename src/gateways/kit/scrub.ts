/**
 * Scrubbing shared by every transcript: anything that looks like a card number, a CVV field,
 * an account number field or credentials is replaced with [FILTERED] before it is stored.
 * Adapters add their own rules on top (field names of their wire format).
 */

import { replaceCardLike } from '../../domain/scrubbing/card-like.js';
import { FILTERED } from '../../domain/scrubbing/scrubber.js';
import { leftmostSpans, replaceSpans, type RankedMatch } from '../../domain/scrubbing/spans.js';

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

/** A transcript rule: text in, text out with something replaced by [FILTERED]. */
export type ScrubRule = (text: string) => string;

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Applies rules in order. */
export function scrubWith(...rules: ScrubRule[]): ScrubRule {
  return (text) => rules.reduce((current, rule) => rule(current), text);
}

/** Values of these JSON keys, at any depth (`"cvc": "737"`, `"number": 4111…`), become "[FILTERED]". */
export function scrubJsonKeys(...keys: string[]): ScrubRule {
  const pattern = new RegExp(`("(?:${keys.map(escapeRegExp).join('|')})"\\s*:\\s*)("(?:[^"\\\\]|\\\\.)*"|-?\\d+(?:\\.\\d+)?|true|false)`, 'gi');
  return (text) => text.replace(pattern, `$1"${FILTERED}"`);
}

/** Text of these XML elements (`<cardCode>123</cardCode>`, with or without a namespace prefix). */
export function scrubXmlElements(...names: string[]): ScrubRule {
  const pattern = new RegExp(`(<((?:[\\w-]+:)?(?:${names.map(escapeRegExp).join('|')}))(?:\\s[^>]*)?>)[^<]*(</\\2>)`, 'gi');
  return (text) => text.replace(pattern, `$1${FILTERED}$3`);
}

/** Values of these form fields, nested or not, URL-encoded or not (`card[cvc]=`, `card%5Bcvc%5D=`). */
export function scrubFormFields(...names: string[]): ScrubRule {
  const pattern = new RegExp(`((?:^|[&?\\s]|\\]|%5D|\\[|%5B)(?:${names.map(escapeRegExp).join('|')})(?:\\]|%5D)?=)[^&\\s"]*`, 'gi');
  return (text) => text.replace(pattern, `$1${FILTERED}`);
}

/** Whole values of these request headers (`X-API-Key: …`), as the transcript writes them (`name: value`). */
export function scrubHeaders(...names: string[]): ScrubRule {
  const pattern = new RegExp(`^((?:${names.map(escapeRegExp).join('|')}):\\s*).+$`, 'gim');
  return (text) => text.replace(pattern, `$1${FILTERED}`);
}

/**
 * Every occurrence of these literal values (a call's secret credentials, its card number): the
 * last line of defence for whatever a gateway echoes in a field no rule names. Values under 6
 * characters are left to the field rules, where replacing them everywhere would mangle amounts.
 * Found with `indexOf`, as a regex alternation of them would (leftmost, then longest): a regex
 * holding the card number would be compiled anew for every card.
 */
export function scrubLiterals(values: ReadonlyArray<string | null | undefined>): ScrubRule {
  const usable = [...new Set(values.filter((value): value is string => typeof value === 'string' && value.length >= 6))].sort((a, b) => b.length - a.length);
  if (usable.length === 0) return (text) => text;
  return (text) => {
    const found: RankedMatch[] = [];
    usable.forEach((value, order) => {
      for (let at = text.indexOf(value); at !== -1; at = text.indexOf(value, at + 1)) found.push({ start: at, end: at + value.length, order });
    });
    return found.length === 0 ? text : replaceSpans(text, leftmostSpans(found), FILTERED);
  };
}
