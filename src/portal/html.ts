/**
 * Auto-escaping HTML templates. Every interpolated value is escaped unless it is already a
 * `SafeHtml` (the result of another `html` template or of `raw` on a constant), so a name, a
 * message or a search term can never become markup or script.
 */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);
}

/** What a template accepts: text (escaped), markup, lists of either, and nothing. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | readonly HtmlValue[];

function render(value: HtmlValue): string {
  if (value === null || value === undefined || value === false) return '';
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map((v: HtmlValue) => render(v)).join('');
  return escapeHtml(String(value));
}

export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? '';
  values.forEach((value, i) => {
    out += render(value) + (strings[i + 1] ?? '');
  });
  return new SafeHtml(out);
}

/** Markup written in the code (never user input). */
export function raw(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

/** The `selected`/`checked`-style boolean attribute when `on`. */
export function attr(name: string, on: boolean): SafeHtml {
  return new SafeHtml(on ? ` ${name}` : '');
}
