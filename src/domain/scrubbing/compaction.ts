import { escapeAt } from './digit-projection.js';

/**
 * A text with what can split a base64 or hex run taken out: white space, invisible characters
 * (zero-width spaces, soft hyphens) and their escapes (`\n`, `\r\n` written in JSON as a
 * transcript holds it, `\u200b`, `&#10;`, `&nbsp;`, `%0A`, `%20`). Line-wrapped base64 in a
 * JSON string reads `…MTEx\nMTEx…`: without the escape taken out, neither half holds the number.
 */

/** White space (as `\s` has it) and the invisible characters that can sit inside a number. */
export function isInvisible(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 || code === 0xad || code === 0x1680 || (code >= 0x2000 && code <= 0x200d) || code === 0x2028 || code === 0x2029 || code === 0x202f || code === 0x205f || code === 0x2060 || code === 0x3000 || code === 0xfeff
  );
}

/** Backslash escapes of white space: `\n`, `\r`, `\t`, `\f`, `\v`. */
const SHORT_ESCAPES = new Set(['n', 'r', 't', 'f', 'v']);

/** How many characters at `at` are white space, invisible, or an escape of one; 0 when none. */
function invisibleLength(text: string, at: number): number {
  const code = text.charCodeAt(at);
  if (isInvisible(code)) return 1;
  if (code === 0x5c && SHORT_ESCAPES.has(text[at + 1] ?? '')) return 2;
  if (code === 0x26 && text.startsWith('&nbsp;', at)) return 6;
  if (code !== 0x26 && code !== 0x25 && code !== 0x5c) return 0;
  const escape = escapeAt(text, at, code);
  return escape !== null && isInvisible(escape.codePoint) ? escape.length : 0;
}

const MAY_BE_SPLIT = /[\s\u200B-\u200D\u2060\u00AD\\%&]/;

/** False when `text` has nothing `compact` would take out. */
export function mayBeSplit(text: string): boolean {
  return MAY_BE_SPLIT.test(text);
}

/** `text` without what can split a run, and where each remaining character came from. */
export function compact(text: string): [string, Int32Array] {
  const origin = new Int32Array(text.length);
  let kept = '';
  let length = 0;
  let from = 0;
  let index = 0;
  while (index < text.length) {
    const skip = invisibleLength(text, index);
    if (skip === 0) {
      origin[length++] = index;
      index += 1;
      continue;
    }
    kept += text.slice(from, index);
    index += skip;
    from = index;
  }
  return [kept + text.slice(from), origin.subarray(0, length)];
}
