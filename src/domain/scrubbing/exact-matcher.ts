import { ANY_DIGIT, digitValue, MAX_SEPARATORS, SEPARATOR } from './digit-forms.js';
import { literalForms, SEPARATED_MIN, SHORT } from './exact-values.js';
import { leftmostSpans, type RankedMatch, type Span } from './spans.js';

/**
 * Finds this call's exact values in a text without building a regex for them: the spans
 * `text.replace(exactValuesPattern(values), …)` would replace, found the same way (leftmost
 * first; at one position, the first form in the pattern's order wins).
 *
 * Why not the pattern: a value's digit forms with up to three separators between digits are
 * a 4 KB source that V8 must parse and compile for every new card number (0.5 to several ms
 * of CPU per gateway call on this machine; docs/benchmarks.md, "Through a gateway"). Here
 * the only regexes are two sticky ones built once for every call (one digit in any form, one
 * separator), and a value's literal forms are found with `indexOf`.
 *
 * Where a digit or a separator is read at a position is decided by the characters there
 * (`&#52;` is a 4, `%20` a space, a bare digit itself), never by what follows, so a value's digit
 * forms match at most one way from a given start, as the pattern's would.
 */

/** One digit in any form, at exactly `lastIndex`. */
const DIGIT_AT = new RegExp(ANY_DIGIT, 'y');
/** One separator in any form, at exactly `lastIndex`. */
const SEPARATOR_AT = new RegExp(SEPARATOR, 'y');
const ALPHANUMERIC = /[A-Za-z0-9]/;

/** Characters a digit form can begin with: ASCII and full-width digits, `&`, `\`, `%`. */
function mayStartDigit(code: number): boolean {
  return (code >= 0x30 && code <= 0x39) || (code >= 0xff10 && code <= 0xff19) || code === 0x26 || code === 0x5c || code === 0x25;
}

interface ValueForms {
  value: string;
  literals: readonly string[];
  /** All digits: also matched as its digits in any form. */
  digits: boolean;
  /** Shorter than SHORT letters or digits: matched only as a whole token. */
  whole: boolean;
}

function isAlphanumericAt(text: string, index: number): boolean {
  return index >= 0 && index < text.length && ALPHANUMERIC.test(text[index] as string);
}

export class ExactMatcher {
  private readonly forms: readonly ValueForms[];

  /** @param values non-empty values; duplicates are ignored, longest first as in the pattern. */
  constructor(values: readonly string[], literalsOf: (value: string) => readonly string[] = literalForms) {
    const unique = [...new Set(values.filter((value) => value !== ''))].sort((a, b) => b.length - a.length);
    this.forms = unique.map((value) => ({
      value,
      literals: literalsOf(value),
      digits: /^[0-9]+$/.test(value),
      whole: value.length < SHORT && /^[A-Za-z0-9]+$/.test(value),
    }));
  }

  /** The spans to replace, sorted and apart. */
  spans(text: string): Span[] {
    const candidates: RankedMatch[] = [];
    let order = 0;
    let digitsAt: Map<number, { digit: string; end: number } | null> | undefined;
    for (const form of this.forms) {
      for (const literal of form.literals) {
        for (let at = text.indexOf(literal); at !== -1; at = text.indexOf(literal, at + 1)) {
          const end = at + literal.length;
          if (!form.whole || (!isAlphanumericAt(text, at - 1) && !isAlphanumericAt(text, end))) candidates.push({ start: at, end, order });
        }
        order += 1;
      }
      if (form.digits) {
        digitsAt ??= new Map();
        for (let at = 0; at < text.length; at += 1) {
          if (!mayStartDigit(text.charCodeAt(at))) continue;
          const end = this.digitFormsEnd(text, at, form, digitsAt);
          if (end !== -1 && (!form.whole || (!isAlphanumericAt(text, at - 1) && !isAlphanumericAt(text, end)))) candidates.push({ start: at, end, order });
        }
        order += 1;
      }
    }
    return leftmostSpans(candidates);
  }

  /** Where the value's digits, written in any forms from `at`, end; -1 when they are not there. */
  private digitFormsEnd(text: string, at: number, form: ValueForms, digitsAt: Map<number, { digit: string; end: number } | null>): number {
    const gaps = form.value.length >= SEPARATED_MIN ? MAX_SEPARATORS : 0;
    let position = at;
    for (let index = 0; index < form.value.length; index += 1) {
      if (index > 0) {
        // The pattern's gap is greedy, and a separator never starts where a digit does.
        for (let skipped = 0; skipped < gaps; skipped += 1) {
          SEPARATOR_AT.lastIndex = position;
          if (SEPARATOR_AT.exec(text) === null) break;
          position = SEPARATOR_AT.lastIndex;
        }
      }
      const read = digitAt(text, position, digitsAt);
      if (read === null || read.digit !== form.value[index]) return -1;
      position = read.end;
    }
    return position;
  }
}

/** The digit written at `position` and where it ends (memoized per text), or null. */
function digitAt(text: string, position: number, memo: Map<number, { digit: string; end: number } | null>): { digit: string; end: number } | null {
  let read = memo.get(position);
  if (read === undefined) {
    DIGIT_AT.lastIndex = position;
    const match = position < text.length && mayStartDigit(text.charCodeAt(position)) ? DIGIT_AT.exec(text) : null;
    read = match === null ? null : { digit: digitValue(match[0]), end: position + match[0].length };
    memo.set(position, read);
  }
  return read;
}
