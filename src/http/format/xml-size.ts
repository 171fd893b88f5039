import { AppError } from '../../domain/errors.js';

/**
 * How many elements and attributes an XML body may hold, counted before anything is parsed
 * (docs/wire-compatibility.md, "Request body limits"). fast-xml-parser spends microseconds on
 * each element and more on each attribute (an element with 100,000 attributes took 1.5 s to
 * validate and parse), so a body is refused on its count, with a scan that builds nothing.
 */
export interface XmlBounds {
  elements: number;
  attributes: number;
  attributesPerElement: number;
}

/**
 * A legitimate element takes at least this many bytes on average (`<first_name>Ada</first_name>`
 * is 28): a body within its route's byte limit has room for every element a client really sends.
 */
const BYTES_PER_ELEMENT = 32;
/** Rails typing (`type`, `nil`) and namespace declarations: a handful on one element. */
const ATTRIBUTES_PER_ELEMENT = 16;

/** The bounds of a route that takes bodies up to `bodyLimit` bytes. */
export function xmlBoundsFor(bodyLimit: number): XmlBounds {
  const elements = Math.max(64, Math.floor(bodyLimit / BYTES_PER_ELEMENT));
  return { elements, attributes: elements, attributesPerElement: ATTRIBUTES_PER_ELEMENT };
}

function tooMuch(what: string): AppError {
  return new AppError({ key: 'errors.payload_too_large', message: `The request body has ${what}.` });
}

const LESS_THAN = 0x3c;
const GREATER_THAN = 0x3e;
const EQUALS = 0x3d;
const DOUBLE_QUOTE = 0x22;
const SINGLE_QUOTE = 0x27;

/**
 * Counts the start tags and their attributes (an `=` outside quotes) in one pass; comments, CDATA
 * sections, processing instructions and end tags are skipped whole. Throws 413
 * `errors.payload_too_large` past a bound. A document cut short ends the count: the parser then
 * refuses it as malformed.
 */
export function checkXmlSize(text: string, bounds: XmlBounds): void {
  let elements = 0;
  let attributes = 0;
  let at = text.indexOf('<');
  while (at !== -1) {
    const end = endOfMarkup(text, at);
    if (end === -1) return;
    if (isStartTag(text, at)) {
      elements += 1;
      if (elements > bounds.elements) throw tooMuch(`more than ${bounds.elements} XML elements`);
      const own = countAttributes(text, at + 1, end);
      if (own > bounds.attributesPerElement) throw tooMuch(`an XML element with more than ${bounds.attributesPerElement} attributes`);
      attributes += own;
      if (attributes > bounds.attributes) throw tooMuch(`more than ${bounds.attributes} XML attributes`);
    }
    at = text.indexOf('<', end + 1);
  }
}

function isStartTag(text: string, at: number): boolean {
  const next = text.charCodeAt(at + 1);
  return next !== 0x21 && next !== 0x3f && next !== 0x2f;
}

/** Where the markup opened at `at` ends (its last character), or -1 when it never does. */
function endOfMarkup(text: string, at: number): number {
  if (text.startsWith('<![CDATA[', at)) return closing(text, ']]>', at + 9);
  if (text.startsWith('<!--', at)) return closing(text, '-->', at + 4);
  if (text.startsWith('<?', at)) return closing(text, '?>', at + 2);
  if (!isStartTag(text, at)) return text.indexOf('>', at + 1);
  // A start tag ends at the first `>` outside its quoted attribute values.
  let pos = at + 1;
  for (;;) {
    const code = text.charCodeAt(pos);
    if (code === GREATER_THAN) return pos;
    if (Number.isNaN(code) || code === LESS_THAN) return pos - 1;
    if (code === DOUBLE_QUOTE || code === SINGLE_QUOTE) {
      const close = text.indexOf(code === DOUBLE_QUOTE ? '"' : "'", pos + 1);
      if (close === -1) return -1;
      pos = close + 1;
    } else pos += 1;
  }
}

function closing(text: string, marker: string, from: number): number {
  const found = text.indexOf(marker, from);
  return found === -1 ? -1 : found + marker.length - 1;
}

/** The attributes of the start tag between `from` and `to`: each `=` outside quotes. */
function countAttributes(text: string, from: number, to: number): number {
  let count = 0;
  for (let pos = from; pos < to; pos += 1) {
    const code = text.charCodeAt(pos);
    if (code === EQUALS) count += 1;
    else if (code === DOUBLE_QUOTE || code === SINGLE_QUOTE) {
      const close = text.indexOf(code === DOUBLE_QUOTE ? '"' : "'", pos + 1);
      if (close === -1 || close >= to) return count;
      pos = close;
    }
  }
  return count;
}
