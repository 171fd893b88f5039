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
