import { digitLikeCount, projectDigits } from './digit-projection.js';
import { compact, mayBeSplit } from './compaction.js';
import { decodingsOf, isAsciiText, runsIn, type Decoding, type Glance } from './run-decodings.js';
import { mergeSpans, type Span } from './spans.js';

/**
 * This call's numbers (card number, CVV, bank numbers) where the scrubber's patterns cannot see
 * them (docs/security.md, "Scrubbing"):
 * - a card number in the text's digits-only projection (digit-projection.ts): any separators,
 *   any script's digits, escaped digits in any mix;
 * - any of the numbers in the hex and the base64 decodings of the text, at every alignment, read
 *   word by word and also with white space and invisible characters removed (line-wrapped
 *   base64, `34 31 31 …`), and in the decodings of those decodings (base64 of base64, hex in
 *   base64).
 * What is found is given as spans of the text, so only the characters that carry the number are
 * replaced; the rest of the text is kept.
 */

/** Numbers this long or longer are looked for in the projection: 12 digits is the shortest card. */
const PROJECTED_MIN = 12;
/** How many decodings deep to look: base64 of base64 is two. */
const MAX_DEPTH = 2;

/** Numbers shorter than this (a CVV) count only as a whole token, as in exact-values.ts. */
const WHOLE_TOKEN_BELOW = 6;
const ALPHANUMERIC = /^[A-Za-z0-9]$/;

/** Where the base64 padding (`=`, `==`) after a run ends in the original text; `from` when there is none. */
function paddingEnd(text: string, runEnd: number, origin: Int32Array | null, from: number): number {
  let end = runEnd;
  while (end < text.length && end - runEnd < 2 && text[end] === '=') end += 1;
  return end === runEnd ? from : (origin === null ? end - 1 : (origin[end - 1] as number)) + 1;
}

export class HiddenValues {
  private readonly projected: readonly string[];
  private readonly fewestProjected: number;
  private readonly fewestDigits: number;

  /** @param numbers this call's values made only of digits (at least one) */
  constructor(private readonly numbers: readonly string[]) {
    this.projected = numbers.filter((number) => number.length >= PROJECTED_MIN);
    this.fewestProjected = Math.min(...this.projected.map((number) => number.length));
    this.fewestDigits = Math.min(...numbers.map((number) => number.length));
  }

  /**
   * Spans of `text` that hold one of the numbers, sorted and merged. With `bytes`, `text` is a
   * latin1 view of bytes (see digit-projection.ts).
   */
  find(text: string, bytes = false): Span[] {
    const spans = this.projectionSpans(text, bytes);
    spans.push(...this.decodedSpans(text, 0));
    return mergeSpans(spans);
  }

  private projectionSpans(text: string, bytes: boolean): Span[] {
    if (this.projected.length === 0 || digitLikeCount(text, this.fewestProjected, bytes) < this.fewestProjected) return [];
    const spans: Span[] = [];
    const readings = /[&%\\]/.test(text) ? (['plain', 'unescaped'] as const) : (['plain'] as const);
    for (const reading of readings) {
      const projection = projectDigits(text, reading, bytes);
      for (const number of this.projected) {
        for (let at = projection.digits.indexOf(number); at !== -1; at = projection.digits.indexOf(number, at + 1)) {
          spans.push([projection.starts[at] as number, projection.ends[at + number.length - 1] as number]);
        }
      }
    }
    return spans;
  }

  /**
   * Spans of `text` whose decodings hold a number. Runs are read as they are written (a word is
   * decoded alone, so `cvc NTMx` is read right) and, where white space splits a run, joined
   * across it.
   */
  private decodedSpans(text: string, depth: number): Span[] {
    const spans = this.runSpans(text, null, depth);
    if (mayBeSplit(text)) spans.push(...this.runSpans(...compact(text), depth));
    return spans;
  }

  /** Spans of the runs of `text`; with `origin` (`text` is compacted), only of runs that were split. */
  private runSpans(text: string, origin: Int32Array | null, depth: number): Span[] {
    const spans: Span[] = [];
    const original = (index: number): number => (origin === null ? index : (origin[index] as number));
    const readFurther = depth + 1 < MAX_DEPTH;
    const worth = (glance: Glance): boolean =>
      glance.digits >= this.fewestDigits || glance.leads >= this.fewestProjected || (readFurther && isAsciiText(glance));
    for (const { encoding, start: runStart, end: runEnd } of runsIn(text)) {
      if (origin !== null && original(runEnd - 1) - original(runStart) === runEnd - 1 - runStart) continue;
      const run = text.slice(runStart, runEnd);
      for (const decoding of decodingsOf(run, encoding, worth)) {
        for (const span of this.spansOfDecoded(decoding, depth + 1)) {
          const [start, end] = decoding.back(span);
          const last = original(runStart + end - 1) + 1;
          // A span that ends the run takes its padding with it: `[FILTERED]==` reads as base64 left over.
          spans.push([original(runStart + start), end === run.length ? paddingEnd(text, runEnd, origin, last) : last]);
        }
      }
    }
    return spans;
  }

  /**
   * Spans of a decoding that hold a number: as it is (a short number, a CVV, only as a whole
   * token, as the scrubber's patterns take it), in its projection, and, when it is ASCII text
   * (what a further encoding is written in), in its own decodings. The projection is made even
   * of what reads as random bytes: a run joined across white space starts with the decoding of
   * the words before it, so only part of a decoding may be text.
   */
  private spansOfDecoded({ text: decoded, glance }: Decoding, depth: number): Span[] {
    const spans: Span[] = [];
    for (const number of this.numbers) {
      for (let at = decoded.indexOf(number); at !== -1; at = decoded.indexOf(number, at + 1)) {
        const end = at + number.length;
        if (number.length < WHOLE_TOKEN_BELOW && (ALPHANUMERIC.test(decoded[at - 1] ?? '') || ALPHANUMERIC.test(decoded[end] ?? ''))) continue;
        spans.push([at, end]);
      }
    }
    spans.push(...this.projectionSpans(decoded, true));
    if (depth < MAX_DEPTH && isAsciiText(glance)) spans.push(...this.decodedSpans(decoded, depth));
    return spans;
  }
}
