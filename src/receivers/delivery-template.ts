import Mustache from 'mustache';
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { TemplateError, TemplateLimitError } from './delivery-errors.js';
import { formatBytes, MAX_SECTION_NESTING, RENDER_SLICE_MS, type RenderBudget } from './template-limits.js';

export { TemplateError, TemplateLimitError } from './delivery-errors.js';

/**
 * Delivery templates (wire-reference §7): mustache with `{{ var }}` HTML-escaped, `{{{ var }}}`
 * raw and sections, over a view of plain data.
 *
 * - mustache.js parses (a fresh `Writer` per template: its default writer caches every template
 *   it has parsed, without bound, for the life of the process). Rendering is ours: mustache's
 *   renderer is recursive, unbounded and synchronous, so one template with nested sections over
 *   the payment methods could hold the event loop for minutes (961 bytes froze every tenant for 23 s). Ours walks the
 *   tokens with an explicit stack, counts steps and output bytes against a budget, and yields to
 *   the event loop every few milliseconds.
 * - No partials: a `{{> name}}` tag is refused rather than silently rendered as nothing.
 * - Names are looked up as own properties only, and names that reach into the JavaScript object
 *   model (`constructor`, `__proto__`, `prototype`, Object.prototype's methods) are refused; a
 *   function found in a view (there is none: views are plain data) would render as nothing.
 * - Escaping is Ruby's CGI.escapeHTML (`& < > " '`), what Spreedly's templates do, rather than
 *   mustache.js's wider set that would also rewrite `/`, `=` and backticks in API keys.
 */

const FORBIDDEN_NAMES: ReadonlySet<string> = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);

/** Token types (mustache.js) whose second element is a name looked up in the view. */
const NAME_TOKENS: ReadonlySet<string> = new Set(['name', '&', '#', '^']);
const SECTION_TOKENS: ReadonlySet<string> = new Set(['#', '^']);

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** HTML escaping as the receiver templates define it. */
export function escapeHtml(value: unknown): string {
  return String(value).replace(/[&<>"']/g, (char) => HTML_ESCAPES[char] as string);
}

type Token = [string, string, number, number, Token[]?, number?];

function checkTokens(tokens: readonly Token[], depth: number): void {
  for (const token of tokens) {
    const [type, value] = token;
    if (type === '>') throw new TemplateError('partials are not supported');
    if (NAME_TOKENS.has(type) && value !== '.' && value.split('.').some((segment) => FORBIDDEN_NAMES.has(segment))) {
      throw new TemplateError('it names a reserved property');
    }
    if (SECTION_TOKENS.has(type) && depth + 1 > MAX_SECTION_NESTING) {
      throw new TemplateLimitError(`sections are nested more than ${MAX_SECTION_NESTING} deep`);
    }
    if (token[4] !== undefined) checkTokens(token[4], depth + 1);
  }
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
 * Parses a template and checks it: syntax, partials, reserved names, section nesting. Parsing is
 * linear in the template's length (at most MAX_TEMPLATE_CHARS) and nesting is checked on the
 * tokens, whose tree mustache builds with a stack.
 */
function parseChecked(template: string): Token[] {
  let tokens: Token[];
  try {
    tokens = new Mustache.Writer().parse(template) as Token[];
  } catch (error) {
    throw new TemplateError(syntaxReason(error));
  }
  checkTokens(tokens, 0);
  return tokens;
}

/** The most a template can cost: tokens visited and literal text written, for lists of the given lengths. */
function worstCase(tokens: readonly Token[], listLengths: Readonly<Record<string, number>>, repeat: number, cost: { steps: number; bytes: number }): void {
  for (const token of tokens) {
    cost.steps += repeat;
    if (token[0] === 'text') cost.bytes += repeat * Buffer.byteLength(token[1]);
    if (token[4] === undefined) continue;
    // A `#` section over a list repeats its content once per item; any other section renders it at most once.
    const times = token[0] === '#' ? Math.max(1, listLengths[token[1]] ?? 1) : 1;
    cost.steps += repeat * (times - 1);
    worstCase(token[4], listLengths, repeat * times, cost);
  }
}

/**
 * Checks a template before any work (docs/security.md, "Limits on input and templates"): syntax, nesting, and whether its worst case over
 * lists of `listLengths` (the export's payment methods) fits `budget`. Throws TemplateError or
 * TemplateLimitError; the messages never contain the template.
 */
export function checkTemplate(template: string, budget: RenderBudget, listLengths: Readonly<Record<string, number>> = {}): void {
  const cost = { steps: 0, bytes: 0 };
  worstCase(parseChecked(template), listLengths, 1, cost);
  if (cost.steps > budget.maxSteps) {
    throw new TemplateLimitError(`its sections would repeat too often (${cost.steps} steps, at most ${budget.maxSteps} for ${budget.label})`);
  }
  if (cost.bytes > budget.maxOutputBytes) {
    throw new TemplateLimitError(`it would render more than ${formatBytes(budget.maxOutputBytes)} for ${budget.label}`);
  }
}

type Context = { view: unknown; parent: Context | null };

/** mustache.js's lookup (dotted names, walking out through enclosing sections), on own properties only. */
function lookup(context: Context, name: string): unknown {
  if (name === '.') return context.view;
  const names = name.split('.');
  for (let current: Context | null = context; current !== null; current = current.parent) {
    let value: unknown = current.view;
    let hit = false;
    for (const [index, segment] of names.entries()) {
      if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) break;
      value = (value as Record<string, unknown>)[segment];
      if (index === names.length - 1) hit = true;
    }
    if (hit) return typeof value === 'function' ? null : value;
  }
  return undefined;
}

type Frame = { tokens: readonly Token[]; index: number; context: Context } | { items: readonly unknown[]; next: number; body: readonly Token[]; context: Context };

/** One render in progress: an explicit stack instead of recursion, so it can stop and resume. */
class BoundedRender {
  private readonly stack: Frame[];
  /** Pieces written in the current slice; joined into `chunks` at its end, so no single join at the end copies millions of pieces. */
  private output: string[] = [];
  private readonly chunks: string[] = [];
  private bytes = 0;
  private steps = 0;

  constructor(
    tokens: readonly Token[],
    view: unknown,
    private readonly budget: RenderBudget,
  ) {
    this.stack = [{ tokens, index: 0, context: { view, parent: null } }];
  }

  get text(): string {
    return this.chunks.join('');
  }

  /** Renders until done (true) or until `deadline` (performance.now()) has passed (false). */
  advance(deadline: number): boolean {
    try {
      return this.run(deadline);
    } finally {
      this.chunks.push(this.output.join(''));
      this.output = [];
    }
  }

  private run(deadline: number): boolean {
    for (let count = 1; this.stack.length > 0; count += 1) {
      if (count % 256 === 0 && performance.now() > deadline) return false;
      const top = this.stack[this.stack.length - 1] as Frame;
      if ('items' in top) {
        if (top.next >= top.items.length) this.stack.pop();
        else {
          this.step();
          this.stack.push({ tokens: top.body, index: 0, context: { view: top.items[top.next++], parent: top.context } });
        }
        continue;
      }
      const token = top.tokens[top.index++];
      if (token === undefined) {
        this.stack.pop();
        continue;
      }
      this.step();
      this.visit(token, top.context);
    }
    return true;
  }

  private visit(token: Token, context: Context): void {
    const [type, name] = token;
    if (type === 'text') this.emit(name);
    else if (type === 'name' || type === '&') {
      const value = lookup(context, name);
      if (value !== null && value !== undefined) this.emit(type === 'name' ? escapeHtml(value) : String(value));
    } else if (type === '#' || type === '^') {
      const value = lookup(context, name);
      const body = token[4] ?? [];
      const empty = !value || (Array.isArray(value) && value.length === 0);
      if (type === '^') {
        if (empty) this.stack.push({ tokens: body, index: 0, context });
      } else if (Array.isArray(value)) {
        if (value.length > 0) this.stack.push({ items: value, next: 0, body, context });
      } else if (!empty) {
        // As mustache.js: an object, string or number becomes the section's context; `true` keeps the current one.
        const pushed = typeof value === 'object' || typeof value === 'string' || typeof value === 'number';
        this.stack.push({ tokens: body, index: 0, context: pushed ? { view: value, parent: context } : context });
      }
    }
    // Comments ('!') and delimiter changes ('=') render nothing.
  }

  private step(): void {
    this.steps += 1;
    if (this.steps > this.budget.maxSteps) throw new TemplateLimitError(`its sections repeat too often (more than ${this.budget.maxSteps} steps for ${this.budget.label})`);
  }

  private emit(text: string): void {
    this.bytes += Buffer.byteLength(text);
    if (this.bytes > this.budget.maxOutputBytes) throw new TemplateLimitError(`it renders more than ${formatBytes(this.budget.maxOutputBytes)} for ${this.budget.label}`);
    this.output.push(text);
  }
}

/**
 * Renders a delivery template (url, headers or body) over `view` within `budget`, a few
 * milliseconds at a time. Throws TemplateError for a syntax error or a forbidden name and
 * TemplateLimitError past a limit; the message never contains the template nor the view.
 */
export async function renderTemplate(template: string, view: object, budget: RenderBudget): Promise<string> {
  const render = new BoundedRender(parseChecked(template), view, budget);
  while (!render.advance(performance.now() + RENDER_SLICE_MS)) await yieldToEventLoop();
  return render.text;
}
