import Mustache from 'mustache';
import { TemplateError } from './delivery-errors.js';

export { TemplateError } from './delivery-errors.js';

/**
 * Delivery templates (wire-reference §7): mustache with `{{ var }}` HTML-escaped, `{{{ var }}}`
 * raw and sections, over a view of plain data.
 *
 * - A fresh `Writer` per render: mustache's default writer caches every template it has parsed,
 *   without bound, for the life of the process; a template holds no secret but the cache would
 *   grow with every merchant's template and outlive the request.
 * - No partials: a `{{> name}}` tag is refused rather than silently rendered as nothing.
 * - The view is copied into null-prototype objects and arrays, and names that reach into the
 *   JavaScript object model (`constructor`, `__proto__`, `prototype`, Object.prototype's methods)
 *   are refused: mustache calls any function it finds, and through `x.constructor.constructor`
 *   a template could reach `Function`.
 * - Escaping is Ruby's CGI.escapeHTML (`& < > " '`), what Spreedly's templates do, rather than
 *   mustache.js's wider set that would also rewrite `/`, `=` and backticks in API keys.
 */

const FORBIDDEN_NAMES: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/** Token types (mustache.js) whose second element is a name looked up in the view. */
const NAME_TOKENS: ReadonlySet<string> = new Set(['name', '&', '#', '^']);

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** HTML escaping as the receiver templates define it. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] as string);
}

type Token = [string, string, number, number, Token[]?, number?];

function checkTokens(tokens: readonly Token[]): void {
  for (const token of tokens) {
    const [type, value] = token;
    if (type === '>') throw new TemplateError('partials are not supported');
    if (NAME_TOKENS.has(type) && value !== '.' && value.split('.').some((segment) => FORBIDDEN_NAMES.has(segment))) {
      throw new TemplateError('it names a reserved property');
    }
    if (token[4] !== undefined) checkTokens(token[4]);
  }
}

/** A copy of `value` with only data: null-prototype objects and arrays, no functions. */
function dataOnly(value: unknown, depth = 0): unknown {
  if (depth > 32) return null;
  if (value === null || value === undefined) return null;
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  if (Array.isArray(value)) {
    const copy = value.map((item) => dataOnly(item, depth + 1));
    // Still an array to mustache (Array.isArray holds), but without Array.prototype to reach into.
    return Object.setPrototypeOf(copy, null) as unknown[];
  }
  if (typeof value === 'object') {
    const copy = Object.create(null) as Record<string, unknown>;
    for (const [key, item] of Object.entries(value)) copy[key] = dataOnly(item, depth + 1);
    return copy;
  }
  return null;
}

/** Mustache's parse errors name the kind of problem; keep that, drop the template text it quotes. */
function syntaxReason(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const kinds = ['Unclosed section', 'Unclosed tag', 'Unopened section', 'Invalid tags', 'Invalid tag'];
  const kind = kinds.find((candidate) => message.startsWith(candidate));
  const position = /\bat (\d+)$/.exec(message)?.[1];
  if (kind === undefined) return 'syntax error';
  return position === undefined ? kind.toLowerCase() : `${kind.toLowerCase()} at ${position}`;
}

/**
 * Renders a delivery template (url, headers or body) over `view`. Throws `TemplateError` for a
 * syntax error or a forbidden name; the message never contains the template nor the view.
 */
export function renderTemplate(template: string, view: object): string {
  const writer = new Mustache.Writer();
  let tokens: Token[];
  try {
    tokens = writer.parse(template) as Token[];
  } catch (error) {
    throw new TemplateError(syntaxReason(error));
  }
  checkTokens(tokens);
  try {
    return writer.render(template, dataOnly(view), undefined, { escape: escapeHtml });
  } catch {
    // Nothing in a data-only view throws; reaching here means a pathological template (e.g. nesting deep enough to exhaust the stack).
    throw new TemplateError('it cannot be rendered');
  }
}
