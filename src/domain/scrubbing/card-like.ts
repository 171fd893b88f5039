import { ANY_DIGIT, digitValue, MAX_SEPARATORS, SEPARATOR } from './digit-forms.js';

/**
 * Card-like numbers that are not this call's: a run of 12 to 19 digits that passes Luhn,
 * written with any separators between digits (see digit-forms.ts). The rules, also in
 * docs/security.md:
 * - a chain is digits with at most 3 separators between two digits; a group that touches a
 *   letter on either side belongs to that token and is not part of a card (so hex ids, base64
 *   and tokens are left alone);
 * - a chain of 12–19 digits is tested whole; a longer chain is tested by windows of whole
 *   groups (the parts between separators), so `ref 7 4111 1111 1111 1111 12/34` still finds
 *   the card; a single group longer than 19 digits is an identifier, not a card;
 * - a number starting with 0 is never a card (no brand issues one);
 * - an unseparated 13, 16 or 19 digit number starting with 1 is taken for an epoch timestamp
 *   (ms, µs, ns) — no brand issues cards of those lengths starting with 1;
 * - what is left is a card when it passes Luhn.
 */

const CHAIN = new RegExp(`(?<![0-9A-Za-z\\uFF10-\\uFF19])(?:${ANY_DIGIT})(?:(?:${SEPARATOR}){0,${MAX_SEPARATORS}}(?:${ANY_DIGIT}))*`, 'g');
const TOKEN = new RegExp(`(${ANY_DIGIT})|(?:${SEPARATOR})`, 'y');
const TOUCHING = /[0-9A-Za-z\uFF10-\uFF19]/;

export const MIN_CARD_DIGITS = 12;
export const MAX_CARD_DIGITS = 19;

export function luhn(digits: string): boolean {
  let sum = 0;
  for (let index = 0; index < digits.length; index += 1) {
    let digit = digits.charCodeAt(digits.length - 1 - index) - 48;
    if (index % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

/** One group of a chain: its digits and where it sits in the chain's text. */
interface Group {
  digits: string;
  start: number;
  end: number;
}

function groupsOf(chain: string): Group[] {
  const groups: Group[] = [];
  let current: Group | null = null;
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < chain.length) {
    const start = TOKEN.lastIndex;
    const token = TOKEN.exec(chain);
    if (token === null) break;
    if (token[1] === undefined) {
      current = null;
      continue;
    }
    if (current === null) {
      current = { digits: '', start, end: start };
      groups.push(current);
    }
    current.digits += digitValue(token[1]);
    current.end = TOKEN.lastIndex;
  }
  return groups;
}

/**
 * Spans [start, end) of the chain that read as cards: from each group, the longest window of
 * whole groups that is a card, taken left to right. Luhn sums are built incrementally from each
 * window's last digit leftwards, so a chain of n groups costs O(19·n), whatever a hostile answer
 * of "1 1 1 1 …" holds.
 */
function cardSpans(groups: Group[]): Array<[number, number]> {
  // longest[s]: the last group of the longest card window starting at group s, or -1.
  const longest = new Array<number>(groups.length).fill(-1);
  for (let last = 0; last < groups.length; last += 1) {
    let sum = 0;
    let length = 0;
    for (let first = last; first >= 0; first -= 1) {
      const digits = (groups[first] as Group).digits;
      if (length + digits.length > MAX_CARD_DIGITS) break;
      for (let index = digits.length - 1; index >= 0; index -= 1, length += 1) {
        let digit = digits.charCodeAt(index) - 48;
        if (length % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
        sum += digit;
      }
      if (length < MIN_CARD_DIGITS || sum % 10 !== 0 || digits[0] === '0') continue;
      // Unseparated 13/16/19 digits starting with 1: an epoch timestamp in ms, µs or ns.
      if (first === last && digits[0] === '1' && (length === 13 || length === 16 || length === 19)) continue;
      if (last > (longest[first] as number)) longest[first] = last;
    }
  }
  const spans: Array<[number, number]> = [];
  for (let first = 0; first < groups.length; first += 1) {
    const last = longest[first] as number;
    if (last === -1) continue;
    spans.push([(groups[first] as Group).start, (groups[last] as Group).end]);
    first = last;
  }
  return spans;
}

/** `text` with every card-like number (separators included) replaced by `replacement`. */
export function replaceCardLike(text: string, replacement: string): string {
  return text.replace(CHAIN, (chain: string, offset: number) => {
    const groups = groupsOf(chain);
    // The last group runs into a letter or digit: it belongs to that token, not to a card.
    const after = text[offset + chain.length];
    if (after !== undefined && TOUCHING.test(after)) groups.pop();
    const spans = cardSpans(groups);
    if (spans.length === 0) return chain;
    let out = '';
    let position = 0;
    for (const [start, end] of spans) {
      out += chain.slice(position, start) + replacement;
      position = end;
    }
    return out + chain.slice(position);
  });
}

/** True when `text` holds a card-like number (for values that are refused or replaced whole). */
export function containsCardLike(text: string): boolean {
  return replaceCardLike(text, '\u0000') !== text;
}
