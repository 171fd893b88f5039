import type { AppError } from '../../domain/errors.js';
import { controlCharacterError, MAX_NESTING, nestingError } from './input-bounds.js';

/**
 * A JSON request body decoded and bound-checked in one linear pass (docs/wire-compatibility.md,
 * "Request body limits"). It replaces `JSON.parse` with a reviver followed by a walk of the tree: on a 1 MiB
 * body of `[1,1,1,…]` the reviver cost 15 to 20 times the parse, and the walk as much again.
 *
 * The values are those `JSON.parse` gives, byte for byte: numbers through `Number` of their text
 * (a small integer is summed, which is exact), strings with every escape decoded, duplicate keys
 * the last one winning in the first one's place. `__proto__` members are dropped, at every level
 * (what the reviver did). Nothing recurses, so no input can exhaust the stack.
 *
 * The bounds of input-bounds.ts are checked on the way, for the fields: the members of the one
 * object under the document's root key. A fault is kept with the member it belongs to and
 * forgotten when a duplicate key or `__proto__` drops that member, so only what survives counts;
 * the caller throws the fault once the document's shape is right (a malformed body is reported as
 * malformed first, as before). A container too deep to keep is checked for syntax and not built.
 */

/** The text is not JSON. */
export class JsonSyntaxError extends Error {}

/** A decoded document and the first bound its fields break (null when none). */
export interface JsonDocument {
  value: unknown;
  fault: AppError | null;
}

/**
 * Document depths: the root object is 1, the object under its key 2, a field's container 3. A
 * field's value may hold MAX_NESTING levels, so containers deeper than this break the bound.
 */
const DEEPEST_KEPT = MAX_NESTING + 2;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const MINUS = 0x2d;
const ZERO = 0x30;
const NINE = 0x39;

/** A container being filled. */
interface Frame {
  value: Record<string, unknown> | unknown[];
  isArray: boolean;
  depth: number;
  /** Objects: the key of the member being read, and the fault of that key itself. */
  key: string;
  keyFault: AppError | null;
  /** The top-level field this container is part of ('' above the fields). */
  field: string;
  /** The nearest key above this container's own members: what a faulty string here is reported as. */
  nearest: string;
  /** Arrays: the first fault of an item. Objects: the faults of members, by key. */
  fault: AppError | null;
  members: Map<string, AppError> | null;
}

function isDigit(code: number): boolean {
  return code >= ZERO && code <= NINE;
}

function hexDigit(code: number): number {
  if (code >= ZERO && code <= NINE) return code - ZERO;
  if (code >= 0x61 && code <= 0x66) return code - 0x57;
  if (code >= 0x41 && code <= 0x46) return code - 0x37;
  return -1;
}

/** C0 controls but tab, line feed and carriage return: what input-bounds.ts refuses. */
function forbiddenControl(code: number): boolean {
  return code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d;
}

/** Object.prototype's own names: a member by that name is defined, never assigned through a setter. */
const PROTOTYPE_NAMES: ReadonlySet<string> = new Set(Object.getOwnPropertyNames(Object.prototype));

function assign(object: Record<string, unknown>, key: string, value: unknown): void {
  if (PROTOTYPE_NAMES.has(key)) Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}

class JsonReader {
  private pos = 0;
  /** Set by `string()` when the text it read holds a forbidden control character. */
  private sawControl = false;

  constructor(private readonly text: string) {}

  read(): JsonDocument {
    const text = this.text;
    const stack: Frame[] = [];
    let frame: Frame | null = null;
    this.skipSpace();
    for (;;) {
      // A value starts at pos.
      let value: unknown;
      let fault: AppError | null = null;
      const code = text.charCodeAt(this.pos);
      if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
        const isArray = code === OPEN_ARRAY;
        const depth = frame === null ? 1 : frame.depth + 1;
        if (depth > DEEPEST_KEPT) {
          this.skipContainer();
          value = null;
          fault = nestingError(fieldBelow(frame as Frame));
        } else {
          const child = openFrame(frame, isArray, depth);
          this.pos += 1;
          this.skipSpace();
          if (text.charCodeAt(this.pos) === (isArray ? CLOSE_ARRAY : CLOSE_OBJECT)) {
            this.pos += 1;
            value = child.value;
          } else {
            if (frame !== null) stack.push(frame);
            frame = child;
            if (!isArray) this.readKey(child);
            continue;
          }
        }
      } else if (code === QUOTE) {
        value = this.string();
        if (this.sawControl) {
          this.sawControl = false;
          if (frame !== null && frame.depth >= 2) fault = controlCharacterError(frame.isArray ? frame.nearest : frame.key);
        }
      } else {
        value = this.scalar(code);
      }
      // The value is complete: store it, then close every container it completes.
      for (;;) {
        if (frame === null) {
          this.skipSpace();
          if (this.pos !== text.length) throw new JsonSyntaxError();
          return { value, fault };
        }
        store(frame, value, fault);
        this.skipSpace();
        const next = text.charCodeAt(this.pos);
        if (next === COMMA) {
          this.pos += 1;
          this.skipSpace();
          if (!frame.isArray) {
            this.readKey(frame);
            break;
          }
          // An array's next number or literal is read here, without a turn of the outer loop.
          const first = text.charCodeAt(this.pos);
          if (first === OPEN_OBJECT || first === OPEN_ARRAY || first === QUOTE) break;
          value = this.scalar(first);
          fault = null;
          continue;
        }
        if (next !== (frame.isArray ? CLOSE_ARRAY : CLOSE_OBJECT)) throw new JsonSyntaxError();
        this.pos += 1;
        value = frame.value;
        fault = faultOf(frame);
        frame = stack.pop() ?? null;
      }
    }
  }

  private skipSpace(): void {
    const text = this.text;
    let pos = this.pos;
    // Most values have no space around them: one comparison and out.
    if (text.charCodeAt(pos) > 0x20) return;
    for (;;) {
      const code = text.charCodeAt(pos);
      if (code !== 0x20 && code !== 0x0a && code !== 0x0d && code !== 0x09) break;
      pos += 1;
    }
    this.pos = pos;
  }

  /** `"key"`, the colon and the space around it; the key's own fault is kept on the frame. */
  private readKey(frame: Frame): void {
    if (this.text.charCodeAt(this.pos) !== QUOTE) throw new JsonSyntaxError();
    frame.key = this.string();
    frame.keyFault = null;
    if (this.sawControl) {
      this.sawControl = false;
      // Keys of the fields object are reported by their own name, deeper keys by the key above.
      if (frame.depth >= 2) frame.keyFault = controlCharacterError(frame.depth === 2 ? frame.key : frame.nearest);
    }
    this.skipSpace();
    if (this.text.charCodeAt(this.pos) !== COLON) throw new JsonSyntaxError();
    this.pos += 1;
    this.skipSpace();
  }

  /**
   * The string starting at pos (on its quote). Without escapes it is a slice of the text; with
   * them, the quoted text goes to the engine's own JSON string decoder once its end is found
   * (same result, and far faster than decoding escape by escape here).
   */
  private string(): string {
    const text = this.text;
    const start = this.pos;
    let pos = start + 1;
    let escaped = false;
    for (;;) {
      const code = text.charCodeAt(pos);
      if (code === QUOTE) break;
      if (code === BACKSLASH) {
        escaped = true;
        pos = this.skipEscape(pos + 1);
        continue;
      }
      // Raw control characters (and the end of the text: NaN) are not JSON.
      if (!(code >= 0x20)) throw new JsonSyntaxError();
      pos += 1;
    }
    this.pos = pos + 1;
    if (!escaped) return text.slice(start + 1, pos);
    try {
      return JSON.parse(text.slice(start, pos + 1)) as string;
    } catch {
      throw new JsonSyntaxError();
    }
  }

  /** Moves past the escape at `at` (after its backslash), noting a control character it names. */
  private skipEscape(at: number): number {
    const text = this.text;
    const code = text.charCodeAt(at);
    // \b and \f name control characters; \", \\, \/, \n, \r and \t are allowed.
    if (code === 0x62 || code === 0x66) this.sawControl = true;
    if (code !== 0x75) return at + 1;
    let unit = 0;
    for (let index = 1; index <= 4; index += 1) {
      const digit = hexDigit(text.charCodeAt(at + index));
      if (digit < 0) throw new JsonSyntaxError();
      unit = unit * 16 + digit;
    }
    if (forbiddenControl(unit)) this.sawControl = true;
    return at + 5;
  }

  /** A number or a literal starting at pos. */
  private scalar(code: number): unknown {
    if (code === MINUS || isDigit(code)) return this.number();
    for (const [word, value] of LITERALS) {
      if (this.text.startsWith(word, this.pos)) {
        this.pos += word.length;
        return value;
      }
    }
    throw new JsonSyntaxError();
  }

  private number(): number {
    const text = this.text;
    const start = this.pos;
    let pos = start;
    let code = text.charCodeAt(pos);
    const negative = code === MINUS;
    if (negative) code = text.charCodeAt((pos += 1));
    const digitsFrom = pos;
    if (code === ZERO) code = text.charCodeAt((pos += 1));
    else if (isDigit(code)) while (isDigit(code)) code = text.charCodeAt((pos += 1));
    else throw new JsonSyntaxError();
    const digitsTo = pos;
    let integer = true;
    if (code === 0x2e) {
      integer = false;
      code = text.charCodeAt((pos += 1));
      if (!isDigit(code)) throw new JsonSyntaxError();
      while (isDigit(code)) code = text.charCodeAt((pos += 1));
    }
    if (code === 0x65 || code === 0x45) {
      integer = false;
      code = text.charCodeAt((pos += 1));
      if (code === 0x2b || code === MINUS) code = text.charCodeAt((pos += 1));
      if (!isDigit(code)) throw new JsonSyntaxError();
      while (isDigit(code)) code = text.charCodeAt((pos += 1));
    }
    this.pos = pos;
    // An integer of up to nine digits is summed in 32-bit arithmetic (exact, and kept unboxed);
    // anything else is what Number makes of its text, as JSON.parse does.
    if (integer && digitsTo - digitsFrom <= 9) {
      let sum = 0;
      for (let index = digitsFrom; index < digitsTo; index += 1) sum = (sum * 10 + (text.charCodeAt(index) - ZERO)) | 0;
      return negative ? (sum === 0 ? -0 : -sum) : sum;
    }
    return Number(text.slice(start, pos));
  }

  /** Checks the syntax of the container at pos and moves past it, building nothing. */
  private skipContainer(): void {
    const text = this.text;
    const closers: number[] = [];
    for (;;) {
      const code = text.charCodeAt(this.pos);
      if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
        const closer = code === OPEN_ARRAY ? CLOSE_ARRAY : CLOSE_OBJECT;
        this.pos += 1;
        this.skipSpace();
        if (text.charCodeAt(this.pos) !== closer) {
          closers.push(closer);
          if (closer === CLOSE_OBJECT) this.skipKey();
          continue;
        }
        this.pos += 1;
      } else if (code === QUOTE) this.string();
      else this.scalar(code);
      // A value ended: close what it completes.
      for (;;) {
        if (closers.length === 0) {
          this.sawControl = false;
          return;
        }
        this.skipSpace();
        const next = text.charCodeAt(this.pos);
        const closer = closers[closers.length - 1];
        if (next === COMMA) {
          this.pos += 1;
          this.skipSpace();
          if (closer === CLOSE_OBJECT) this.skipKey();
          break;
        }
        if (next !== closer) throw new JsonSyntaxError();
        this.pos += 1;
        closers.pop();
      }
    }
  }

  private skipKey(): void {
    if (this.text.charCodeAt(this.pos) !== QUOTE) throw new JsonSyntaxError();
    this.string();
    this.skipSpace();
    if (this.text.charCodeAt(this.pos) !== COLON) throw new JsonSyntaxError();
    this.pos += 1;
    this.skipSpace();
  }
}

const LITERALS: ReadonlyArray<[string, unknown]> = [
  ['true', true],
  ['false', false],
  ['null', null],
];

function openFrame(parent: Frame | null, isArray: boolean, depth: number): Frame {
  return {
    value: isArray ? [] : {},
    isArray,
    depth,
    key: '',
    keyFault: null,
    field: parent === null ? '' : fieldBelow(parent),
    nearest: parent === null ? '' : parent.isArray ? parent.nearest : parent.key,
    fault: null,
    members: null,
  };
}

/** The top-level field a value read in `parent` belongs to. */
function fieldBelow(parent: Frame): string {
  if (parent.depth < 2) return '';
  if (parent.depth === 2) return parent.isArray ? '' : parent.key;
  return parent.field;
}

function store(frame: Frame, value: unknown, fault: AppError | null): void {
  if (frame.isArray) storeItem(frame, frame.value as unknown[], value, fault);
  else storeMember(frame, frame.value as Record<string, unknown>, value, fault);
}

function storeItem(frame: Frame, items: unknown[], value: unknown, fault: AppError | null): void {
  items.push(value);
  if (fault !== null && frame.fault === null) frame.fault = fault;
}

function storeMember(frame: Frame, object: Record<string, unknown>, value: unknown, fault: AppError | null): void {
  const key = frame.key;
  if (key === '__proto__') return;
  assign(object, key, value);
  // A duplicate key replaces the member, and with it the member's faults.
  frame.members?.delete(key);
  const memberFault = frame.keyFault ?? fault;
  if (memberFault !== null) (frame.members ??= new Map()).set(key, memberFault);
}

function faultOf(frame: Frame): AppError | null {
  if (frame.isArray) return frame.fault;
  return frame.members?.values().next().value ?? null;
}

/** Decodes a JSON text; throws JsonSyntaxError when it is not JSON. */
export function readJson(text: string): JsonDocument {
  return new JsonReader(text).read();
}
