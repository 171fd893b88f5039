/**
 * Bounds on receiver templates (docs/security.md, "Limits on input and templates"). Sections multiply: a section over a list renders its
 * content once per item, and a nested section over the same list does so again for each of those,
 * so a 961-byte template could ask for billions of steps. Every template is checked before any
 * work (nesting, and the worst case its sections can cost for the number of payment methods
 * given) and rendered with a budget of steps and output bytes, yielding to the event loop often.
 */

/** The deepest `{{#…}}` / `{{^…}}` nesting a template may have. */
export const MAX_SECTION_NESTING = 4;

/** The longest template (url, headers or body) a request may carry, in characters. */
export const MAX_TEMPLATE_CHARS = 64 * 1024;

/** At most this many payment method tokens in one export (documented in docs/security.md). */
export const MAX_EXPORT_TOKENS = 10_000;

/** What one render may cost. */
export interface RenderBudget {
  /** The rendered text's size in UTF-8 bytes. */
  maxOutputBytes: number;
  /** Tokens visited, counting each repetition of a section's content (loops that print nothing cost too). */
  maxSteps: number;
  /** What the output is called in messages ("an export file", "a delivery"). */
  label: string;
}

/** An export's file: 10 MiB, and 10,000 payment methods of a rich template (~200 tags each). */
export const EXPORT_BUDGET: RenderBudget = { maxOutputBytes: 10 * 1024 * 1024, maxSteps: 2_000_000, label: 'an export file' };

/** One delivery's url, headers and body together: 1 MiB; there are no lists in a delivery's view. */
export const DELIVER_BUDGET: RenderBudget = { maxOutputBytes: 1024 * 1024, maxSteps: 200_000, label: 'a delivery' };

/** The longest the main thread runs a render before letting other requests in, in milliseconds. */
export const RENDER_SLICE_MS = 2;

export function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${bytes / (1024 * 1024)} MiB` : `${bytes / 1024} KiB`;
}
