/** A part of a text to replace: [start, end) in UTF-16 code units. */
export type Span = [start: number, end: number];

/** Spans sorted, overlapping and touching ones joined. */
export function mergeSpans(spans: Span[]): Span[] {
  if (spans.length < 2) return spans;
  spans.sort((a, b) => a[0] - b[0]);
  const merged: Span[] = [spans[0] as Span];
  for (const span of spans.slice(1)) {
    const last = merged[merged.length - 1] as Span;
    if (span[0] <= last[1]) last[1] = Math.max(last[1], span[1]);
    else merged.push(span);
  }
  return merged;
}

/** `text` with each span (sorted, apart) replaced by `replacement`. */
export function replaceSpans(text: string, spans: readonly Span[], replacement: string): string {
  let out = '';
  let position = 0;
  for (const [start, end] of spans) {
    out += text.slice(position, start) + replacement;
    position = end;
  }
  return out + text.slice(position);
}

/** A match found: where, and its place among the alternatives of one search (lower wins). */
export interface RankedMatch {
  start: number;
  end: number;
  order: number;
}

/**
 * The spans a global regex alternation of the same alternatives would replace: leftmost first; at
 * one position, the alternative earliest in order; a match starting inside an earlier one skipped.
 * Sorts `found`.
 */
export function leftmostSpans(found: RankedMatch[]): Span[] {
  found.sort((a, b) => a.start - b.start || a.order - b.order);
  const spans: Span[] = [];
  let cursor = 0;
  for (const match of found) {
    if (match.start < cursor) continue;
    spans.push([match.start, match.end]);
    cursor = match.end;
  }
  return spans;
}
