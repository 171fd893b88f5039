import { base32Cores } from './base32.js';
import { digitForms, MAX_SEPARATORS, SEPARATOR } from './digit-forms.js';

/**
 * Patterns for the exact sensitive values of one call (PAN, CVV, bank account and routing
 * numbers, credentials). Each value is matched in every form listed in docs/security.md:
 * - as is, URL-encoded (%20 and +), form-encoded, JSON-escaped, HTML-escaped;
 * - a value of digits: each digit also as a full-width digit, an HTML numeric reference, a JSON
 *   `\u00XX` escape or percent-encoded, and (8 digits or more) with up to 3 separators between
 *   any two digits (`4242.4242 4242-4242`);
 * - 8 characters or more: base64 and base64url of the value, at each of the three byte
 *   alignments it can have inside a longer base64 text (so `Basic dTpzZWNyZXQ=` is found too),
 *   and base32 (upper or lower case) at each of its five;
 * - in binary bodies (`binary`), also UTF-16LE and UTF-16BE.
 * Values shorter than 6 letters or digits (a CVV) match only as a whole token, so `123` does not
 * eat `1234`; longer values match anywhere.
 */

/** Values shorter than this (letters or digits only) match only as a whole token. */
export const SHORT = 6;
/** Values of digits this long or longer may have separators between their digits. */
export const SEPARATED_MIN = 8;
const BASE64_MIN = 8;

function escapeRegex(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** The base64 characters that depend only on `value`, for each alignment inside a longer text. */
export function base64Cores(value: Buffer): string[] {
  const whole = value.toString('base64');
  // The whole encoding (with its padding) first: alternatives are tried in order.
  const cores: string[] = [whole, whole.replace(/\+/g, '-').replace(/\//g, '_')];
  for (let offset = 0; offset < 3; offset += 1) {
    const encoded = Buffer.concat([Buffer.alloc(offset), value]).toString('base64');
    const first = Math.ceil((offset * 8) / 6);
    const last = Math.floor(((offset + value.length) * 8) / 6);
    const core = encoded.slice(first, last);
    cores.push(core, core.replace(/\+/g, '-').replace(/\//g, '_'));
  }
  return cores.filter((core) => core.length >= BASE64_MIN);
}

/** Literal (non-pattern) forms of a value, in the order the pattern tries them. */
export function literalForms(value: string): string[] {
  const uri = encodeURIComponent(value);
  const forms = [value, uri, uri.replace(/%20/g, '+'), new URLSearchParams([['', value]]).toString().slice(1), JSON.stringify(value).slice(1, -1), escapeHtml(value)];
  if (value.length >= BASE64_MIN) {
    const bytes = Buffer.from(value, 'utf8');
    const base32 = base32Cores(bytes);
    forms.push(...base64Cores(bytes), ...base32, ...base32.map((core) => core.toLowerCase()));
  }
  return forms;
}

function bounded(source: string, value: string): string {
  return value.length < SHORT && /^[A-Za-z0-9]+$/.test(value) ? `(?<![A-Za-z0-9])(?:${source})(?![A-Za-z0-9])` : source;
}

/** Up to MAX_SEPARATORS separators between two digits of a long value. */
const GAP = `(?:${SEPARATOR}){0,${MAX_SEPARATORS}}`;

/**
 * Each ASCII digit's group of forms, built once: a pattern is built per gateway call, and building
 * these per digit was a third of it. They depend on the digit alone, never on a value.
 */
const DIGIT_GROUPS = new Map([...'0123456789'].map((digit) => [digit, `(?:${digitForms(digit)})`]));

/** Regex sources matching `value` in text. */
function textSources(value: string): string[] {
  const sources = literalForms(value).map((form) => bounded(escapeRegex(form), value));
  if (/^[0-9]+$/.test(value)) {
    const gap = value.length >= SEPARATED_MIN ? GAP : '';
    sources.push(bounded([...value].map((digit) => DIGIT_GROUPS.get(digit) as string).join(gap), value));
  }
  return sources;
}

/** Regex sources matching `value` in a latin1 view of bytes. */
function binarySources(value: string): string[] {
  const utf16le = Buffer.from(value, 'utf16le');
  const utf16be = Buffer.from(utf16le).swap16();
  const forms = [...literalForms(value).map((form) => Buffer.from(form, 'utf8')), utf16le, utf16be];
  if (value.length >= BASE64_MIN) forms.push(...[utf16le, utf16be].flatMap((bytes) => base64Cores(bytes).map((core) => Buffer.from(core))));
  return forms.map((bytes) => bounded(escapeRegex(bytes.toString('latin1')), value));
}

/**
 * What a text must hold for a value's text pattern to match anywhere in it: one of the value's
 * literal forms (as is, encoded, base64), or, for a value of digits, at least as many digit
 * characters as the value has, since every form of a digit holds one, ASCII or full-width (`4`,
 * `４`, `&#52;`, `&#x34;`, `\u0034`, `\uFF14`, `%34`).
 */
export interface ValueProbe {
  literals: readonly string[];
  /** The value's length when it is all digits, else 0 (its pattern has no digit forms). */
  digits: number;
}

export function valueProbe(value: string): ValueProbe {
  return { literals: literalForms(value), digits: /^[0-9]+$/.test(value) ? value.length : 0 };
}

/** ASCII and full-width digits in `text`, counting no further than `enough`. */
export function digitCharacters(text: string, enough: number): number {
  let count = 0;
  for (let index = 0; index < text.length && count < enough; index += 1) {
    const code = text.charCodeAt(index);
    if ((code >= 0x30 && code <= 0x39) || (code >= 0xff10 && code <= 0xff19)) count += 1;
  }
  return count;
}

/** False only when `value`'s text pattern cannot match in `text`; `digits` is digitCharacters(text, …). */
export function mayHold(text: string, probe: ValueProbe, digits: number): boolean {
  if (probe.digits > 0 && digits >= probe.digits) return true;
  return probe.literals.some((literal) => text.includes(literal));
}

/** One regex for every value, longest forms first; null when there is nothing to match. */
export function exactValuesPattern(values: readonly string[], binary = false): RegExp | null {
  const unique = [...new Set(values.filter((value) => value !== ''))].sort((a, b) => b.length - a.length);
  if (unique.length === 0) return null;
  const sources = unique.flatMap((value) => (binary ? binarySources(value) : textSources(value)));
  return new RegExp([...new Set(sources)].join('|'), 'g');
}
