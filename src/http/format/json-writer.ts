import { WireErrors, WireList, WireMessage, WireTime, type Wire } from './wire.js';
import { wireTime } from './wire-time.js';
import { NameCache } from './name-cache.js';
import { frameAt, SteppedText, TreesBody, type BodyWriter, type ListItems, type WriteBudget } from './body-writer.js';
import { LONG_TEXT, pieceEnd } from './long-text.js';

/*
 * The JSON response writer. It writes a Wire tree straight to JSON text, in one pass. The version
 * before copied the tree into plain objects for JSON.stringify: every view was built twice, and the
 * copies of 40-field objects, made field by field, were slow dictionary-mode objects (docs/benchmarks.md: a
 * list page of 20 spent more in that copy than in its queries). Same bytes as that version; see
 * test/unit/json-writer.test.ts.
 *
 * Two writers print the same text: a recursive one (fast, for the trees of every view) and one
 * with an explicit stack (JsonTreeWriter), for trees deeper than the recursion should go and for
 * bodies written in steps (body-writer.ts), which stops after any value and goes on later.
 */

/**
 * What JSON.stringify escapes in a string: `"`, `\`, control characters, lone surrogates. Any
 * surrogate sends the string to JSON.stringify (a pair is left as it is there, a lone one escaped).
 */
// eslint-disable-next-line no-control-regex -- control characters are among what it looks for
const NEEDS_ESCAPE = /["\\\u0000-\u001f\ud800-\udfff]/;

/** `JSON.stringify(text)`; the call is skipped for text with nothing to escape (nearly all). */
function quote(text: string): string {
  return NEEDS_ESCAPE.test(text) ? JSON.stringify(text) : `"${text}"`;
}

/** Object members' `"name":`, made once per name (a list page writes ~1,800 of them). */
const MEMBER_PREFIXES = new NameCache((field) => `${quote(field)}:`);

function memberPrefix(field: string): string {
  return MEMBER_PREFIXES.get(field);
}

/** Test seam: whether `field`'s quoted form is kept across encodes. */
export function memberNameCached(field: string): boolean {
  return MEMBER_PREFIXES.has(field);
}

/**
 * Past this depth V8's JSON.stringify and a recursive copy get dearer per byte the deeper they go
 * (every collection scans the deep stack) and near 3,000 levels overflow it; values stored before
 * input was bounded (docs/security.md, "Limits on input and templates") can be that deep. Shallower trees (every response since) keep the
 * recursive writer; deeper ones are written by JsonTreeWriter.
 */
const NATIVE_MAX_DEPTH = 64;

/**
 * A tree of a body written in steps is tried with the recursive writer when it has at most this
 * many values (a view of a transaction with its payment method has ~150), else written by
 * JsonTreeWriter, which can stop half way: a payment method whose `data` holds 30,000 values.
 */
const RECURSIVE_MAX_VALUES = 512;

/** Thrown by the recursive writer past NATIVE_MAX_DEPTH, its values or (with a limit of values) at a long text; the tree goes to JsonTreeWriter. */
class OffRecursivePath extends Error {}

/** Values the recursive writer may still write (one-call encodes: no limit). */
let valuesLeft = Number.POSITIVE_INFINITY;

function plainErrors(errors: WireErrors): unknown[] {
  return errors.entries.map((entry) => (entry.attribute === undefined ? { key: entry.key, message: entry.message } : { attribute: entry.attribute, key: entry.key, message: entry.message }));
}

function writeErrors(errors: WireErrors): string {
  return errors.entries.length === 0 ? '[]' : JSON.stringify(plainErrors(errors));
}

/** The recursive writer. */
function writeJson(value: unknown, depth: number): string {
  if (depth > NATIVE_MAX_DEPTH) throw new OffRecursivePath();
  valuesLeft -= 1;
  if (valuesLeft < 0) throw new OffRecursivePath();
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      // Written whole by a one-call encode; in pieces by JsonTreeWriter in a body written in steps.
      if (value.length > LONG_TEXT && valuesLeft !== Number.POSITIVE_INFINITY) throw new OffRecursivePath();
      return quote(value);
    case 'number':
      return Number.isFinite(value) ? String(value) : 'null';
    case 'boolean':
      return value ? 'true' : 'false';
    case 'object':
      break;
    default:
      return 'null';
  }
  // Wire times are digits, `-`, `:`, `T`, `Z` (and a sign for years outside 0-9999): nothing to escape.
  if (value instanceof WireTime) return `"${value.text()}"`;
  if (value instanceof Date) return `"${wireTime(value)}"`;
  if (value instanceof WireList) return writeArray(value.items, depth);
  if (Array.isArray(value)) return writeArray(value, depth);
  if (value instanceof WireMessage) return writeJson(value.text, depth);
  if (value instanceof WireErrors) return writeErrors(value);
  const object = value as Record<string, unknown>;
  const prototype: unknown = Object.getPrototypeOf(object);
  return forInIsOwnKeys && (prototype === Object.prototype || prototype === null) ? writeFields(object, depth) : writeKeys(object, Object.keys(object), depth);
}

/**
 * Whether Object.prototype has no enumerable field, so that for-in over an object made by a
 * literal or JSON.parse lists what Object.keys lists, in the same order. Set by each encode.
 */
let forInIsOwnKeys = true;

/**
 * An object's members by for-in: V8 walks a fast object's fields from its shape's cache, where
 * Object.keys allocates an array of them first (a list page: ~12 % of the writer's time).
 */
function writeFields(object: Record<string, unknown>, depth: number): string {
  let out = '{';
  for (const field in object) out = appendMember(out, field, object[field], depth);
  return `${out}}`;
}

function writeKeys(object: Record<string, unknown>, fields: readonly string[], depth: number): string {
  let out = '{';
  for (const field of fields) out = appendMember(out, field, object[field], depth);
  return `${out}}`;
}

/** `out` (an object's text so far, from its `{`) and the member `field`: undefined and functions are skipped, as JSON.stringify does. */
function appendMember(out: string, field: string, child: unknown, depth: number): string {
  if (child === undefined || typeof child === 'function') return out;
  const separator = out.length === 1 ? '' : ',';
  // JSON carries the i18n key as a sibling field placed just before the message.
  if (child instanceof WireMessage) return `${out}${separator}${memberPrefix(`${field}_key`)}${writeJson(child.key, depth + 1)},${memberPrefix(field)}${writeJson(child.text, depth + 1)}`;
  return out + separator + memberPrefix(field) + writeJson(child, depth + 1);
}

function writeArray(items: readonly unknown[], depth: number): string {
  let out = '[';
  for (let index = 0; index < items.length; index += 1) {
    if (index > 0) out += ',';
    // An array's undefined (or function) item is written as null, as JSON.stringify does.
    const item = items[index];
    out += item === undefined || typeof item === 'function' ? 'null' : writeJson(item, depth + 1);
  }
  return `${out}]`;
}

/**
 * `value` by the recursive writer, or null when it is too deep or, with a `budget`, has more than
 * RECURSIVE_MAX_VALUES values (nothing written then); what it wrote is taken off the budget.
 */
function writeRecursive(value: unknown, budget: WriteBudget | null): string | null {
  forInIsOwnKeys = Object.keys(Object.prototype).length === 0;
  const maxValues = budget === null ? Number.POSITIVE_INFINITY : RECURSIVE_MAX_VALUES;
  valuesLeft = maxValues;
  try {
    const text = writeJson(value, 0);
    if (budget !== null) {
      budget.values -= maxValues - valuesLeft;
      budget.chars -= text.length;
    }
    return text;
  } catch (error) {
    if (error instanceof OffRecursivePath) return null;
    throw error;
  } finally {
    valuesLeft = Number.POSITIVE_INFINITY;
  }
}

const ARRAY = 0;
const OBJECT = 1;
/** A member holding a WireMessage: `"<field>_key":key,"<field>":text`, written in two values. */
const MESSAGE = 2;
/** A long text, quoted a piece at a time (long-text.ts). */
const TEXT = 3;

/** A container being written by JsonTreeWriter; frames are reused, and hold no data once done. */
class JsonFrame {
  kind = ARRAY;
  /** The items, the object, the WireMessage or the text. */
  container: unknown = null;
  /** An object's members (Object.keys: what for-in lists for a plain object, see writeJson). */
  fields: readonly string[] = [];
  index = 0;
  /** An object's: whether a member was written (the next gets a comma). */
  wrote = false;
  /** A message member's field name. */
  field = '';
}

/**
 * The writer with an explicit stack: no recursion, so a tree of any depth is written in work
 * linear in its output, and `advance` can stop after any value and go on later. Prints what the
 * recursive writer prints (test/unit/json-writer.test.ts, test/unit/sliced-body.test.ts).
 */
class JsonTreeWriter extends SteppedText {
  private readonly frames: JsonFrame[] = [];
  private depth = 0;

  /** Writes `value`: whole, or up to its members or items (see SteppedText.advance). */
  begin(value: unknown): void {
    this.text = this.writeValue(this.text, value);
  }

  protected pending(): boolean {
    return this.depth > 0;
  }

  /** The innermost open container's next member, item or piece of text, or its end. */
  protected step(text: string): string {
    const frame = this.frames[this.depth - 1] as JsonFrame;
    const index = frame.index;
    switch (frame.kind) {
      case ARRAY: {
        const items = frame.container as readonly unknown[];
        if (index >= items.length) return this.end(`${text}]`);
        frame.index = index + 1;
        const item = items[index];
        const before = index > 0 ? `${text},` : text;
        return item === undefined || typeof item === 'function' ? `${before}null` : this.writeValue(before, item);
      }
      case OBJECT:
        return this.nextMember(text, frame);
      case TEXT: {
        const whole = frame.container as string;
        if (index >= whole.length) return this.end(`${text}"`);
        frame.index = pieceEnd(whole, index);
        const piece = whole.slice(index, frame.index);
        return text + (NEEDS_ESCAPE.test(piece) ? JSON.stringify(piece).slice(1, -1) : piece);
      }
      default:
        if (index > 0) return this.end(text);
        frame.index = 1;
        return this.writeValue(`${text},${memberPrefix(frame.field)}`, (frame.container as WireMessage).text);
    }
  }

  /** An object's next member that is written (undefined and functions are skipped, as JSON.stringify does), or its end. */
  private nextMember(text: string, frame: JsonFrame): string {
    const object = frame.container as Record<string, unknown>;
    for (let index = frame.index; index < frame.fields.length; index += 1) {
      const field = frame.fields[index] as string;
      const child = object[field];
      if (child === undefined || typeof child === 'function') continue;
      frame.index = index + 1;
      const before = frame.wrote ? `${text},` : text;
      frame.wrote = true;
      if (!(child instanceof WireMessage)) return this.writeValue(before + memberPrefix(field), child);
      // The key, then (when this frame is on top again) the text.
      this.push(MESSAGE, child, field);
      return this.writeValue(before + memberPrefix(`${field}_key`), child.key);
    }
    return this.end(`${text}}`);
  }

  /** `text`, the innermost container being done. */
  private end(text: string): string {
    this.pop();
    return text;
  }

  clear(): void {
    while (this.depth > 0) this.pop();
    this.text = '';
  }

  /** `text` and `value`, whole for a scalar; a container's opening bracket, its contents left to a frame. */
  private writeValue(text: string, value: unknown): string {
    let unwrapped = value;
    // A message outside a member prints its text (writeJson's WireMessage case), without recursion.
    while (unwrapped instanceof WireMessage) unwrapped = unwrapped.text;
    if (unwrapped === null) return `${text}null`;
    switch (typeof unwrapped) {
      case 'string':
        if (unwrapped.length <= LONG_TEXT) return text + quote(unwrapped);
        this.push(TEXT, unwrapped, '');
        return `${text}"`;
      case 'number':
        return text + (Number.isFinite(unwrapped) ? String(unwrapped) : 'null');
      case 'boolean':
        return text + (unwrapped ? 'true' : 'false');
      case 'object':
        break;
      default:
        return `${text}null`;
    }
    if (unwrapped instanceof WireTime) return `${text}"${unwrapped.text()}"`;
    if (unwrapped instanceof Date) return `${text}"${wireTime(unwrapped)}"`;
    if (unwrapped instanceof WireList || Array.isArray(unwrapped)) {
      this.push(ARRAY, unwrapped instanceof WireList ? unwrapped.items : unwrapped, '');
      return `${text}[`;
    }
    if (unwrapped instanceof WireErrors) return text + writeErrors(unwrapped);
    const frame = this.push(OBJECT, unwrapped, '');
    frame.fields = Object.keys(unwrapped);
    return `${text}{`;
  }

  private push(kind: number, container: unknown, field: string): JsonFrame {
    const frame = frameAt(this.frames, this.depth, () => new JsonFrame());
    this.depth += 1;
    frame.kind = kind;
    frame.container = container;
    frame.index = 0;
    frame.wrote = false;
    frame.field = field;
    return frame;
  }

  private pop(): void {
    const frame = this.frames[this.depth - 1] as JsonFrame;
    frame.container = null;
    frame.fields = [];
    frame.field = '';
    this.depth -= 1;
  }
}

/** `value` as JSON text, whatever its depth. */
function writeTree(value: Wire): string {
  const text = writeRecursive(value, null);
  if (text !== null) return text;
  const writer = new JsonTreeWriter();
  writer.begin(value);
  writer.advance({ values: Number.POSITIVE_INFINITY, chars: Number.POSITIVE_INFINITY });
  return writer.take();
}

/** Renders `{ root: tree }` as JSON. */
export function encodeJson(root: string, body: Wire): string {
  return body === undefined ? '{}' : `{${JSON.stringify(root)}:${writeTree(body)}}`;
}

/** Renders a plain JSON document (error envelopes). */
export function encodeJsonValue(value: unknown): string {
  return JSON.stringify(value);
}

/** What encodeJson(root, body) prints, written in steps. */
export function jsonBodyWriter(root: string, body: Wire): BodyWriter {
  return new JsonBodyWriter(root, body, null);
}

/** What encodeJson(root, new WireList(itemName, items)) prints, written in steps, each item made when it is written. */
export function jsonListWriter(root: string, items: ListItems): BodyWriter {
  return new JsonBodyWriter(root, undefined, items);
}

/**
 * A body written in steps (see body-writer.ts): `{"root":` and the tree, or a list's items one
 * after another between `[` and `]`. A tree (an item) of at most RECURSIVE_MAX_VALUES values is
 * written whole by the recursive writer; a larger or deeper one by JsonTreeWriter, a budget at a
 * time.
 */
class JsonBodyWriter extends TreesBody<JsonTreeWriter> {
  constructor(
    private readonly root: string,
    private readonly body: Wire | undefined,
    items: ListItems | null,
  ) {
    super(new JsonTreeWriter(), items);
  }

  protected open(budget: WriteBudget): void {
    if (this.items !== null) this.writer.write(`{${JSON.stringify(this.root)}:[`);
    else if (this.body === undefined) this.writer.write('{}');
    else {
      this.writer.write(`{${JSON.stringify(this.root)}:`);
      this.writeTree(this.body, budget);
    }
  }

  protected beginItem(index: number, item: Wire, budget: WriteBudget): void {
    if (index > 0) this.writer.write(',');
    // An undefined (or function) item is null, as writeArray writes it.
    if (item === undefined || typeof item === 'function') this.writer.write('null');
    else this.writeTree(item, budget);
  }

  protected finish(): void {
    if (this.items !== null) this.writer.write(']}');
    else if (this.body !== undefined) this.writer.write('}');
  }

  /** `value` whole when the recursive writer takes it, else begun in the tree writer (advance writes the rest). */
  private writeTree(value: Wire, budget: WriteBudget): void {
    const text = writeRecursive(value, budget);
    if (text === null) this.writer.begin(value);
    else this.writer.write(text);
  }
}
