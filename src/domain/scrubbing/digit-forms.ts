/**
 * The ways one decimal digit, and the gap between two digits, can be written in text Coffer
 * receives from gateways and receivers. Both scrubbing passes (this call's exact values and
 * card-like runs) build their patterns from these, so a PAN is found whatever mix of forms it
 * is written in (`4&#50;４\u0032 4242…`) without first rewriting the rest of the text.
 */

/** Regex source matching one digit in any supported form. */
export const ANY_DIGIT = [
  '[0-9]',
  '[\\uFF10-\\uFF19]', // full-width digits
  '&#0*(?:4[89]|5[0-7]);', // HTML decimal reference
  '&#[xX]0*3[0-9];', // HTML hexadecimal reference
  '\\\\[uU]003[0-9]', // JSON / JavaScript escape
  '\\\\[uU][fF][fF]1[0-9]', // escaped full-width digit
  '%3[0-9]', // percent-encoded
].join('|');

/** Regex source matching the given ASCII digit in any supported form. */
export function digitForms(digit: string): string {
  const code = digit.charCodeAt(0);
  const hex = (code - 0x30).toString(16);
  return [
    digit,
    String.fromCharCode(0xff10 + code - 0x30),
    `&#0*${code};`,
    `&#[xX]0*3${hex};`,
    `\\\\[uU]003${hex}`,
    `\\\\[uU][fF][fF]1${hex}`,
    `%3${hex}`,
  ].join('|');
}

/**
 * Regex source matching one separator between digits: space, no-break and narrow spaces, dot,
 * dash (ASCII, Unicode hyphens and dashes, full-width), slash, plus, and their HTML, JSON and
 * percent encodings.
 */
export const SEPARATOR = [
  '[ .\\-/+\\u00A0\\u2007\\u2009\\u202F\\u3000\\u2010-\\u2015\\uFF0D\\uFF0E\\uFF0F]',
  '&nbsp;',
  '&#0*(?:32|45|46|47|160);',
  '&#[xX]0*(?:20|2[dDeEfF]|[aA]0);',
  '\\\\[uU]00(?:20|2[dDeEfF]|[aA]0)',
  '%(?:20|2[dDeEfF]|[cC]2%[aA]0)',
].join('|');

/** At most this many separators between two digits of one number. */
export const MAX_SEPARATORS = 3;

/** The ASCII digit a single digit form stands for. */
export function digitValue(form: string): string {
  if (form.length === 1) {
    const code = form.charCodeAt(0);
    return code >= 0xff10 ? String.fromCharCode(code - 0xff10 + 0x30) : form;
  }
  if (form.startsWith('&#x') || form.startsWith('&#X')) return String.fromCharCode(Number.parseInt(form.slice(3, -1), 16));
  if (form.startsWith('&#')) return String.fromCharCode(Number(form.slice(2, -1)));
  if (form.startsWith('%')) return String.fromCharCode(Number.parseInt(form.slice(1), 16));
  // \u0034 or \uFF14
  const code = Number.parseInt(form.slice(2), 16);
  return String.fromCharCode(code >= 0xff10 ? code - 0xff10 + 0x30 : code);
}
