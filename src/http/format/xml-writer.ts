import type { ErrorEntry } from '../../domain/errors.js';
import { wireTime } from './wire-time.js';
import { WireErrors, WireList, WireMessage, WireTime, type Wire } from './wire.js';
import { NameCache } from './name-cache.js';
import { frameAt, SteppedText, TreesBody, type BodyWriter, type ListItems, type WriteBudget } from './body-writer.js';
import { LONG_TEXT, pieceEnd } from './long-text.js';

/*
 * The XML response writer: Rails `to_xml` typing (integers, floats, booleans and datetimes carry
 * `type`, null is `nil="true"`), two-space indentation, one element a line, `<name/>` when empty.
 *
 * Written by hand since fast-xml-parser's generic builder cost four times the JSON encoder (its
 * output is pinned in test/unit/xml-writer.test.ts). It writes the Wire tree in one pass; the
 * version before (until 2026-11-24) copied the tree into a node tree first (`@_name` attributes,
 * `#text`, arrays repeating an element) and then wrote that, with allocations per field in both
 * passes. The copy's quirks are kept, byte for byte: fields whose names are the same once cleaned
 * print once, at the first one's place, with the last one's value (they were assigned to one
 * object), and a field whose cleaned name is `__proto__` prints nothing (the assignment set that
 * object's prototype). test/unit/xml-writer-oracle.test.ts compares the two on random trees, the
 * old writer kept as the oracle (test/helpers/xml-oracle.ts).
 *
 * The text is built by concatenation (V8 joins the pieces once, when it is first read), each line
 * from as few pieces as it can (tags made once per name, see Tag): work linear in the output
 * however deep the tree (a writer that copied each level made one deep record take seconds), and no recursion (see Frame).
 */

const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>\n';

const TEXT_SPECIALS = /[&<>]/;
const ATTRIBUTE_SPECIALS = /[&<>"']/;

// Escape as Rails' Builder does (&, <, > in text), so messages such as "can't be blank" keep
// their apostrophe for clients that compare text; attributes also escape both quotes. Nearly no
// text has any of them: one test, and the replacements only when there is something to replace.
function escapeText(value: string): string {
  return TEXT_SPECIALS.test(value) ? value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;') : value;
}

function escapeAttribute(value: string): string {
  return ATTRIBUTE_SPECIALS.test(value) ? value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;') : value;
}

/** Text of a value that should be a string (messages, keys, error attributes), as `String()` gives it. */
function textOf(value: unknown): string {
  return typeof value === 'string' ? value : String(value);
}

// Free-form keys (data, metadata) may not be valid element names; keep them well-formed.
function elementName(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_.-]/g, '_');
  return /^[A-Za-z_]/.test(cleaned) ? cleaned : `_${cleaned}`;
}

/** An element name and the tags made of it, so that a line is written from few pieces. */
class Tag {
  /** `<name` */
  readonly open: string;
  /** `<name>` */
  readonly start: string;
  /** `<name/>` and its line break */
  readonly empty: string;
  /** `</name>` and its line break */
  readonly close: string;

  constructor(readonly name: string) {
    this.open = `<${name}`;
    this.start = `<${name}>`;
    this.empty = `<${name}/>\n`;
    this.close = `</${name}>\n`;
  }
}

const ITEM = new Tag('item');
const ERROR = new Tag('error');

/** Tags by field name, made once per name (see NameCache: names of card-number length are never kept). */
const TAGS = new NameCache((field) => new Tag(elementName(field)));

function tagOf(field: string): Tag {
  return TAGS.get(field);
}

/** Test seam: whether `field`'s element name is kept across encodes. */
export function elementNameCached(field: string): boolean {
  return TAGS.has(field);
}

/** Indentation by level, made once; views are a few levels deep, stored free-form data at most 32. */
const INDENTS = Array.from({ length: 40 }, (_, level) => '  '.repeat(level));

function indentAt(level: number): string {
  return INDENTS[level] ?? '  '.repeat(level);
}

/**
 * An element whose children are being written: an object (its fields on the stacks from `index`
 * to `end`) or a list or array (its items). Containers are written with these frames, not by
 * recursion, so a tree of any depth is written: stored values from before input was bounded
 * (before the 32-level cap) can be thousands of levels deep, and the old writer's recursion ran out of stack
 * (on Node's default stack) near 1,800 levels of arrays and 3,700 of objects. The frames are also
 * what lets a write stop after any value and go on later (see advance).
 */
class Frame {
  /** The object, or the items. Null once done: frames are reused, and hold no data meanwhile. */
  container: unknown = null;
  /** The items' tag; null for an object's fields, whose tags are on the stack. */
  itemTag: Tag | null = null;
  index = 0;
  end = 0;
  /** An object's first field on the stacks, where `top` goes back when it is done. */
  base = 0;
  /** The children's level. */
  level = 0;
  /** The closing tag's line. */
  close = '';
  /** Values written only for what they may throw (see openMerged): the text before them, put back when done. */
  restore: string | null = null;
  /** A long text escaped a piece at a time (long-text.ts), from `index` to `end`, then `close`. */
  text: string | null = null;
}

function clearFrame(frame: Frame): void {
  frame.container = null;
  frame.itemTag = null;
  frame.close = '';
  frame.restore = null;
  frame.text = null;
}

/**
 * Writes trees of elements: `begin` writes an element (whole, or its opening tag with its children
 * left to a frame), `advance` writes the children, as many as a budget allows. One writer writes
 * one body at a time; a body written in steps has a writer of its own (see XmlBodyWriter), the
 * one-call encoders share one.
 */
class XmlTreeWriter extends SteppedText {
  /**
   * The fields of the objects being written, outermost first, and their tags: an object's fields
   * are looked at once, before any is written, to know whether their names need the old writer's
   * merging (see openMerged); `top` is the first free slot. Emptied by `clear`, so no field name
   * outlives its body.
   */
  private readonly fieldStack: string[] = [];
  private readonly tagStack: Tag[] = [];
  private top = 0;
  private readonly frames: Frame[] = [];
  private depth = 0;
  /** Open frames whose text is put back when done (openMerged's): while there is one, nothing written is final. */
  private restoring = 0;
  /**
   * Whether Object.prototype has no enumerable field, so that for-in over an object made by a
   * literal or JSON.parse lists what Object.keys lists, in the same order. Set by each step.
   */
  private forInIsOwnKeys = true;
  /** Writes the element `tag` holding `value` at `level`: whole, or up to its children (see advance). */
  begin(tag: Tag, value: unknown, level: number): void {
    this.forInIsOwnKeys = Object.keys(Object.prototype).length === 0;
    this.text = this.writeValue(this.text, tag, value, level);
  }

  /** Writes the children of the elements begun, a value a step (see SteppedText). */
  override advance(budget: WriteBudget): boolean {
    this.forInIsOwnKeys = Object.keys(Object.prototype).length === 0;
    return super.advance(budget);
  }

  /** The text written since the last take; '' while values written only for what they may throw are open. */
  override take(): string {
    return this.restoring > 0 ? '' : super.take();
  }

  protected pending(): boolean {
    return this.depth > 0;
  }

  /** The innermost open element's next child (or piece of its long text), or its end. */
  protected step(text: string): string {
    const frame = this.frames[this.depth - 1] as Frame;
    const index = frame.index;
    if (index < frame.end) {
      if (frame.text !== null) {
        frame.index = pieceEnd(frame.text, index);
        return text + escapeText(frame.text.slice(index, frame.index));
      }
      frame.index = index + 1;
      const itemTag = frame.itemTag;
      return itemTag === null
        ? this.writeValue(text, this.tagStack[index] as Tag, (frame.container as Record<string, unknown>)[this.fieldStack[index] as string], frame.level)
        : this.writeValue(text, itemTag, (frame.container as readonly unknown[])[index], frame.level);
    }
    const ended = frame.restore ?? text + frame.close;
    if (frame.restore !== null) this.restoring -= 1;
    if (frame.itemTag === null) this.top = frame.base;
    clearFrame(frame);
    this.depth -= 1;
    return ended;
  }

  /** Drops every frame, field name and text, even half way through a body. */
  clear(): void {
    for (let index = 0; index < this.depth; index += 1) clearFrame(this.frames[index] as Frame);
    this.depth = 0;
    this.top = 0;
    this.restoring = 0;
    this.fieldStack.length = 0;
    this.tagStack.length = 0;
    this.text = '';
  }

  /** Test seam: field names on the stacks and frames holding a value or a name. */
  held(): number {
    return this.fieldStack.length + this.tagStack.length + this.frames.filter((frame) => frame.container !== null || frame.itemTag !== null || frame.close !== '' || frame.restore !== null || frame.text !== null).length;
  }

  private pushFrame(container: unknown, itemTag: Tag | null, index: number, end: number, level: number, close: string, restore: string | null): Frame {
    const frame = frameAt(this.frames, this.depth, () => new Frame());
    this.depth += 1;
    frame.container = container;
    frame.itemTag = itemTag;
    frame.index = index;
    frame.end = end;
    frame.base = index;
    frame.level = level;
    frame.close = close;
    frame.restore = restore;
    if (restore !== null) this.restoring += 1;
    return frame;
  }

  /**
   * `out` followed by the element `tag` holding `value`, at `level`: the whole element for a value
   * without children, else its opening tag, its children and closing tag left to a new frame.
   */
  private writeValue(out: string, tag: Tag, value: unknown, level: number): string {
    const indent = indentAt(level);
    switch (typeof value) {
      case 'string':
        if (value === '') return out + (indent + tag.empty);
        return value.length > LONG_TEXT ? this.openLongText(out, indent, tag, value, level) : out + (indent + tag.start + escapeText(value) + tag.close);
      case 'number':
        // `${-0}` is "0"; NaN and the infinities are floats. Digits, signs, `.`, `e`: nothing to escape.
        return out + (indent + tag.open + (Number.isInteger(value) ? ' type="integer">' : ' type="float">') + `${value}` + tag.close);
      case 'boolean':
        return out + (indent + tag.open + (value ? ' type="boolean">true' : ' type="boolean">false') + tag.close);
      case 'object':
        break;
      default:
        // No Wire value (undefined, a function): its own fields, as the old copy took them;
        // Object.keys throws TypeError for undefined, as Object.entries did.
        return this.openObject(out, indent, tag, value as Record<string, unknown>, Object.keys(value as object), level);
    }
    if (value === null) return out + (indent + tag.open + ' nil="true"/>\n');
    const prototype: unknown = Object.getPrototypeOf(value);
    // A plain object (a view's literal, stored JSON): none of the classes below.
    if (prototype === Object.prototype) return this.openObject(out, indent, tag, value as Record<string, unknown>, this.forInIsOwnKeys ? null : Object.keys(value), level);
    // Wire times are digits, `-`, `:`, `T`, `Z` (and a sign for years outside 0-9999): nothing to escape.
    if (value instanceof Date) return out + (indent + tag.open + ' type="dateTime">' + wireTime(value) + tag.close);
    if (value instanceof WireTime) return out + (indent + tag.open + ' type="dateTime">' + value.text() + tag.close);
    if (value instanceof WireMessage) return writeMessage(out, indent, tag, value);
    if (value instanceof WireErrors) return writeErrors(out, indent, tag, value.entries, level);
    if (value instanceof WireList) return value.items.length === 0 ? out + (indent + tag.empty) : this.openItems(out, indent, tag, '', value.items, tagOf(value.itemName), level);
    if (Array.isArray(value)) return value.length === 0 ? out + (indent + tag.open + ' type="array"/>\n') : this.openItems(out, indent, tag, ' type="array"', value, ITEM, level);
    // for-in over an object without a prototype lists its own fields only.
    return this.openObject(out, indent, tag, value as Record<string, unknown>, prototype === null ? null : Object.keys(value), level);
  }

  /** The opening tag of a long text; advance writes it a piece at a time (long-text.ts), escaped, then closes it. */
  private openLongText(out: string, indent: string, tag: Tag, value: string, level: number): string {
    const frame = this.pushFrame(null, null, 0, value.length, level, tag.close, null);
    frame.text = value;
    // No fields of its own: `top` stays where it is when the frame is done.
    frame.base = this.top;
    return out + (indent + tag.start);
  }

  /**
   * A list's (or an array's) opening tag, its items left to a new frame, each an element `itemTag`
   * (an array's are `<item>`). The caller writes an empty one as `<name/>` (an array's with its
   * `type="array"`), without looking at an empty list's item name, as before.
   */
  private openItems(out: string, indent: string, tag: Tag, attributes: string, items: readonly unknown[], itemTag: Tag, level: number): string {
    this.pushFrame(items, itemTag, 0, items.length, level + 1, indent + tag.close, null);
    return out + (indent + tag.open + attributes + '>\n');
  }

  /** Puts `field` and its tag on the stacks; false when its element name is not the field's own, or is `__proto__`. */
  private pushField(field: string): boolean {
    const fieldTag = tagOf(field);
    this.fieldStack[this.top] = field;
    this.tagStack[this.top] = fieldTag;
    this.top += 1;
    return fieldTag.name === field && field !== '__proto__';
  }

  /**
   * An object's element: its fields by for-in when `fields` is null (no array of them made; only for
   * an object whose prototype chain has no enumerable field), else `fields`. They are put on the
   * stacks first: when every field is its own element name (so no two share one) and none is
   * `__proto__`, as in every view, they are the children as they are; otherwise see openMerged.
   */
  private openObject(out: string, indent: string, tag: Tag, object: Record<string, unknown>, fields: readonly string[] | null, level: number): string {
    const base = this.top;
    let plain = true;
    if (fields === null) {
      for (const field in object) if (!this.pushField(field)) plain = false;
    } else {
      for (const field of fields) if (!this.pushField(field)) plain = false;
    }
    if (this.top === base) return out + (indent + tag.empty);
    if (!plain) return this.openMerged(out, indent, tag, object, base, level);
    this.pushFrame(object, null, base, this.top, level + 1, indent + tag.close, null);
    return out + (indent + tag.start + '\n');
  }

  /**
   * An object with fields whose names had to be cleaned, written as the old writer's copy left it:
   * it assigned `copy[elementName(field)] = child` in field order, so fields with the same cleaned
   * name print once, at the first one's place, with the last one's value, and one cleaned to
   * `__proto__` set the copy's prototype instead of a field (nothing printed). The other values were
   * copied all the same, and one that throws (a time that is no date) threw: they are written too,
   * by a frame that puts the text back when done. Free-form keys only (`my key`, `1st`); views never
   * come here.
   */
  private openMerged(out: string, indent: string, tag: Tag, object: Record<string, unknown>, base: number, level: number): string {
    const { fieldStack, tagStack } = this;
    const end = this.top;
    // By element name, in the order of first use, the last field that has it.
    const last = new Map<string, number>();
    for (let index = base; index < end; index += 1) {
      const name = (tagStack[index] as Tag).name;
      if (name !== '__proto__') last.set(name, index);
    }
    const unwritten: unknown[] = [];
    for (let index = base; index < end; index += 1) if (last.get((tagStack[index] as Tag).name) !== index) unwritten.push(object[fieldStack[index] as string]);
    // The fields written, in place: the k-th comes from a slot at or after base + k.
    this.top = base;
    for (const index of last.values()) {
      fieldStack[this.top] = fieldStack[index] as string;
      tagStack[this.top] = tagStack[index] as Tag;
      this.top += 1;
    }
    let text: string;
    if (this.top === base) text = out + (indent + tag.empty);
    else {
      this.pushFrame(object, null, base, this.top, level + 1, indent + tag.close, null);
      text = out + (indent + tag.start + '\n');
    }
    // On top, so written (and dropped) first.
    if (unwritten.length > 0) this.pushFrame(unwritten, ITEM, 0, unwritten.length, level + 1, '', text);
    return text;
  }
}

/** `<name key="…">text</name>`; a null text is `nil="true"`, written before the key. */
function writeMessage(out: string, indent: string, tag: Tag, message: WireMessage): string {
  const { key, text } = message;
  let attributes = text === null ? ' nil="true"' : '';
  if (key !== null && key !== undefined) attributes += ` key="${escapeAttribute(textOf(key))}"`;
  const body = text === null || text === undefined ? '' : escapeText(textOf(text));
  return body === '' ? out + (indent + tag.open + attributes + '/>\n') : out + (indent + tag.open + attributes + '>' + body + tag.close);
}

type ErrorLike = { key: string; message: string; attribute?: string | undefined; extra?: Record<string, string> | undefined };

/** `<name><error key="…" attribute="…">message</error>…</name>`, or `<name/>` when there is none. */
function writeErrors(out: string, indent: string, tag: Tag, entries: ReadonlyArray<ErrorLike>, level: number): string {
  if (entries.length === 0) return out + (indent + tag.empty);
  const inner = indentAt(level + 1);
  let text = out + (indent + tag.start + '\n');
  for (let index = 0; index < entries.length; index += 1) {
    const entry = entries[index] as ErrorLike;
    const attributes = entry.extra === undefined || entry.extra === null ? errorAttributes(entry) : errorAttributesWithExtra(entry, entry.extra);
    const message = entry.message === undefined ? '' : escapeText(textOf(entry.message));
    text += message === '' ? inner + ERROR.open + attributes + '/>\n' : inner + ERROR.open + attributes + '>' + message + ERROR.close;
  }
  return text + (indent + tag.close);
}

/** ` key="…"` and, for field errors, ` attribute="…"`; an undefined one is left out. */
function errorAttributes(entry: ErrorLike): string {
  const key = entry.key === undefined ? '' : ` key="${escapeAttribute(textOf(entry.key))}"`;
  return entry.attribute === undefined ? key : `${key} attribute="${escapeAttribute(textOf(entry.attribute))}"`;
}

/**
 * With extra attributes (error envelopes: `gateway_name`, `ability`), after key and attribute, as
 * they were assigned onto one object: an extra named `key` (or `attribute`) replaces that one's
 * value in its place.
 */
function errorAttributesWithExtra(entry: ErrorLike, extra: Record<string, unknown>): string {
  const attributes = new Map<string, unknown>([['key', entry.key]]);
  if (entry.attribute !== undefined) attributes.set('attribute', entry.attribute);
  for (const field of Object.keys(extra)) attributes.set(field, extra[field]);
  let text = '';
  for (const [attribute, value] of attributes) if (value !== undefined) text += ` ${attribute}="${escapeAttribute(textOf(value))}"`;
  return text;
}

/** The writer of the one-call encoders: one body at a time, cleared after each. */
const shared = new XmlTreeWriter();

/** Test seam: field names on the stacks and frames holding a value or a name (none between encodes). */
export function heldBetweenEncodes(): number {
  return shared.held();
}

/** Runs a write of the whole body and leaves no field name or value behind, even when it throws. */
function encode(write: (writer: XmlTreeWriter) => void): string {
  try {
    write(shared);
    shared.advance({ values: Number.POSITIVE_INFINITY, chars: Number.POSITIVE_INFINITY });
    return shared.take();
  } finally {
    shared.clear();
  }
}

/** Renders `<root>tree</root>` with the XML prolog; the root name is written as given. */
export function encodeXml(root: string, body: Wire): string {
  return encode((writer) => {
    writer.write(PROLOG);
    writer.begin(new Tag(root), body, 0);
  });
}

/** `<errors><error key="…" attribute="…">message</error></errors>` */
export function encodeXmlErrors(entries: ErrorEntry[]): string {
  return encode((writer) => writer.write(writeErrors(PROLOG, '', new Tag('errors'), entries, 0)));
}

/** What encodeXml(root, body) prints, written in steps. */
export function xmlBodyWriter(root: string, body: Wire): BodyWriter {
  return new XmlBodyWriter(root, body, null);
}

/** What encodeXml(root, new WireList(itemName, items)) prints, written in steps, each item made when it is written. */
export function xmlListWriter(root: string, itemName: string, items: ListItems): BodyWriter {
  return new XmlBodyWriter(root, itemName, items);
}

/**
 * A body written in steps (see body-writer.ts), by a tree writer of its own. A list's items go
 * one after another into it, each at the level encodeXml writes a list's items, so the text is
 * the same as the list's in one call.
 */
class XmlBodyWriter extends TreesBody<XmlTreeWriter> {
  private readonly rootTag: Tag;
  /** The list items' tag, made when the first is written (an empty list's item name is never looked at). */
  private itemTag: Tag | null = null;

  constructor(
    root: string,
    private readonly bodyOrItemName: Wire | string,
    items: ListItems | null,
  ) {
    super(new XmlTreeWriter(), items);
    this.rootTag = new Tag(root);
  }

  protected open(): void {
    const writer = this.writer;
    writer.write(PROLOG);
    if (this.items === null) writer.begin(this.rootTag, this.bodyOrItemName, 0);
    // As writeValue opens a list at level 0: `<root/>` when empty, else `<root>` and items at level 1.
    else writer.write(this.items.count === 0 ? this.rootTag.empty : `${this.rootTag.start}\n`);
  }

  protected beginItem(_index: number, item: Wire): void {
    this.itemTag ??= tagOf(this.bodyOrItemName as string);
    this.writer.begin(this.itemTag, item, 1);
  }

  protected finish(): void {
    if (this.items !== null && this.items.count > 0) this.writer.write(this.rootTag.close);
  }
}
