import { decimalDigitValue } from './unicode-digits.js';

/**
 * A text's digits-only projection: every decimal digit it holds, of any script, as ASCII, with
 * where each one sits in the text. Whatever separates the digits of a number (tabs, line breaks,
 * underscores, commas, zero-width spaces, any number of spaces) is gone from it, so this call's
 * card number is found however it was spread out (docs/security.md, "Scrubbing").
 *
 * Two readings are made. `plain` takes every character as it is. `unescaped` reads escapes as
 * the character they stand for (`&#52;` and `&#52` without its semicolon, `&#x34;`, `\u0034`,
 * `\x34`, octal `\064`, CSS `\34 ` and `\000034`, `%34`, `%2534` encoded twice or more): an
 * escape of a digit gives that digit, any other escape gives nothing, so the digits inside
 * `&#160;` or `%2520` do not break the number up. Both are needed: a plain number right after a
 * `%` or `\` can read as an escape (`%41…`).
 */
export interface DigitProjection {
  /** The digits, ASCII. */
  readonly digits: string;
  /** For the digit at index i, where it begins in the text ... */
  readonly starts: Int32Array;
  /** ... and where it ends (after its last character). */
  readonly ends: Int32Array;
}

const HEX = /^[0-9A-Fa-f]$/;
const OCTAL = /^[0-7]$/;
const DECIMAL = /^[0-9]$/;

/** The longest run of characters of `kind` at `from`, at most `most` long. */
function runOf(text: string, from: number, kind: RegExp, most: number): string {
  let end = from;
  while (end < text.length && end - from < most && kind.test(text[end] as string)) end += 1;
  return text.slice(from, end);
}

/** An escape at `at`: the code point it stands for and its length; null when there is none. */
export interface Escape {
  codePoint: number;
  length: number;
}

function htmlReference(text: string, at: number): Escape | null {
  if (text[at + 1] !== '#') return null;
  const hex = text[at + 2] === 'x' || text[at + 2] === 'X';
  const from = at + (hex ? 3 : 2);
  const digits = runOf(text, from, hex ? HEX : DECIMAL, 8);
  if (digits === '') return null;
  const end = from + digits.length;
  return { codePoint: Number.parseInt(digits, hex ? 16 : 10), length: end - at + (text[end] === ';' ? 1 : 0) };
}

function percentEscape(text: string, at: number): Escape | null {
  let from = at + 1;
  // `%25` is `%` itself: `%2534` is `%34` encoded once more.
  while (text.startsWith('25', from) && HEX.test(text[from + 2] ?? '') && HEX.test(text[from + 3] ?? '')) from += 2;
  const digits = runOf(text, from, HEX, 2);
  if (digits.length !== 2) return null;
  return { codePoint: Number.parseInt(digits, 16), length: from + 2 - at };
}

function backslashEscape(text: string, at: number): Escape | null {
  const kind = text[at + 1];
  if (kind === 'u' || kind === 'U' || kind === 'x' || kind === 'X') {
    const size = kind === 'x' || kind === 'X' ? 2 : 4;
    const digits = runOf(text, at + 2, HEX, size);
    return digits.length === size ? { codePoint: Number.parseInt(digits, 16), length: 2 + size } : null;
  }
  // Octal (`\064`) is tried first: as CSS the same characters are letters (`\64` is `d`).
  const octal = runOf(text, at + 1, OCTAL, 3);
  const octalCode = octal === '' ? -1 : Number.parseInt(octal, 8);
  if (octalCode >= 0x30 && octalCode <= 0x39) return { codePoint: octalCode, length: 1 + octal.length };
  // CSS: up to six hex digits, then one optional white space that belongs to the escape.
  const css = runOf(text, at + 1, HEX, 6);
  if (css === '') return null;
  const end = at + 1 + css.length;
  const space = text.startsWith('\r\n', end) ? 2 : /^[ \t\n\r\f]$/.test(text[end] ?? '') ? 1 : 0;
  return { codePoint: Number.parseInt(css, 16), length: end + space - at };
}

/** The escape (HTML reference, percent, backslash) at `at`, whose character code is `code`. */
export function escapeAt(text: string, at: number, code: number): Escape | null {
  if (code === 0x26) return htmlReference(text, at);
  if (code === 0x25) return percentEscape(text, at);
  if (code === 0x5c) return backslashEscape(text, at);
  return null;
}

/**
 * Characters that may be, or be part of, a digit, counted no further than `enough`: an upper
 * bound on either projection's length. In bytes, a digit of another script starts with a UTF-8
 * lead byte.
 */
export function digitLikeCount(text: string, enough: number, bytes = false): number {
  const otherScripts = bytes ? 0xc2 : 0x660;
  let count = 0;
  for (let index = 0; index < text.length && count < enough; index += 1) {
    const code = text.charCodeAt(index);
    if ((code >= 0x30 && code <= 0x39) || code >= otherScripts) count += 1;
  }
  return count;
}

/**
 * The code point of the UTF-8 sequence of two to four bytes at `at` of a latin1 view of bytes,
 * and its length; null when none starts there.
 */
function utf8At(bytes: string, at: number, lead: number): Escape | null {
  const length = lead >= 0xf0 ? 4 : lead >= 0xe0 ? 3 : 2;
  if (lead < 0xc2 || lead > 0xf4 || at + length > bytes.length) return null;
  let codePoint = lead & (0x7f >> length);
  for (let index = 1; index < length; index += 1) {
    const next = bytes.charCodeAt(at + index);
    if ((next & 0xc0) !== 0x80) return null;
    codePoint = (codePoint << 6) | (next & 0x3f);
  }
  return { codePoint, length };
}

/**
 * The digits-only projection of `text`, escapes read (`unescaped`) or not (`plain`). With
 * `bytes`, `text` is a latin1 view of bytes (a decoding, a body that is not text), read as UTF-8
 * where it is, so digits of other scripts are found there too.
 */
export function projectDigits(text: string, reading: 'plain' | 'unescaped', bytes = false): DigitProjection {
  const digits = new Uint8Array(text.length);
  const starts = new Int32Array(text.length);
  const ends = new Int32Array(text.length);
  let count = 0;
  let index = 0;
  while (index < text.length) {
    const code = text.charCodeAt(index);
    const escape = bytes && code >= 0x80 ? utf8At(text, index, code) : reading === 'unescaped' ? escapeAt(text, index, code) : null;
    const codePoint = escape === null ? (bytes ? code : (text.codePointAt(index) as number)) : escape.codePoint;
    const length = escape === null ? (codePoint > 0xffff ? 2 : 1) : escape.length;
    const value = codePoint > 0x10ffff ? -1 : decimalDigitValue(codePoint);
    if (value !== -1) {
      digits[count] = 0x30 + value;
      starts[count] = index;
      ends[count] = index + length;
      count += 1;
    }
    index += length;
  }
  return { digits: Buffer.from(digits.buffer, 0, count).toString('latin1'), starts: starts.subarray(0, count), ends: ends.subarray(0, count) };
}
