import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeJson, wireTime } from '../../src/http/format/json-codec.js';
import { WireErrors, WireList, WireMessage, type Wire } from '../../src/http/format/wire.js';

/*
 * encodeJson writes the Wire tree to text in one pass (issue 12). Its output must stay byte for
 * byte what the encoder before printed: a copy of the tree into plain objects, then
 * JSON.stringify. That encoder is kept here as the oracle.
 */
function oracle(root: string, body: Wire): string {
  const plainErrors = (errors: WireErrors) => errors.entries.map((entry) => (entry.attribute === undefined ? { key: entry.key, message: entry.message } : { attribute: entry.attribute, key: entry.key, message: entry.message }));
  const toPlain = (value: Wire): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (value instanceof Date) return wireTime(value);
    if (value instanceof WireList) return value.items.map(toPlain);
    if (Array.isArray(value)) return value.map(toPlain);
    if (value instanceof WireMessage) return value.text;
    if (value instanceof WireErrors) return plainErrors(value);
    const out: Record<string, unknown> = {};
    // Defined, not assigned: assigning `__proto__` would set the prototype and drop the member,
    // where a view (or stored JSON.parse output) holding that key has it as an own field.
    const define = (field: string, child: unknown) => Object.defineProperty(out, field, { value: child, enumerable: true, writable: true, configurable: true });
    for (const [field, child] of Object.entries(value)) {
      if (child instanceof WireMessage) {
        define(`${field}_key`, child.key);
        define(field, child.text);
      } else define(field, toPlain(child));
    }
    return out;
  };
  return JSON.stringify({ [root]: toPlain(body) });
}

const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.constantFrom('', '"', '\\', '\u2028', '\ud800', '<a&b>', 'ünïcødé'));
const scalar: fc.Arbitrary<Wire> = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.constantFrom(-0, Number.NaN, Number.POSITIVE_INFINITY),
  fc.boolean(),
  fc.constant(null),
  fc.date({ noInvalidDate: true }),
  fc.record({ key: fc.option(text), text: fc.option(text) }).map(({ key, text: body }) => new WireMessage(key, body)),
  fc.array(fc.record({ key: text, message: text, attribute: fc.option(text, { nil: undefined }) }), { maxLength: 3 }).map((entries) => new WireErrors(entries)),
);
const tree: fc.Arbitrary<Wire> = fc.letrec<{ node: Wire }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    fc.array(tie('node'), { maxLength: 4 }),
    fc.array(tie('node'), { maxLength: 4 }).map((items) => new WireList('item', items)),
    fc.dictionary(fc.oneof(text, fc.constantFrom('__proto__x', 'constructor', '1', '01')), tie('node'), { maxKeys: 6 }),
  ),
})).node;

/**
 * The one place the two differ, on purpose: a WireMessage under an array-index key ("1"). An
 * object lists such keys first, so the copy printed "1" before "1_key"; the writer keeps the key
 * pair in order. Views name message fields `message`, so no real tree has one.
 */
function messageUnderIndexKey(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || value instanceof Date || value instanceof WireMessage || value instanceof WireErrors) return false;
  if (value instanceof WireList) return value.items.some(messageUnderIndexKey);
  if (Array.isArray(value)) return value.some(messageUnderIndexKey);
  return Object.entries(value).some(([key, child]) => (child instanceof WireMessage && /^(0|[1-9]\d*)$/.test(key)) || messageUnderIndexKey(child));
}

describe('JSON writer', () => {
  it('prints what copying to plain objects and JSON.stringify printed, for any tree', () => {
    fc.assert(
      fc.property(text, tree, (root, body) => {
        fc.pre(!messageUnderIndexKey(body));
        expect(encodeJson(root, body)).toBe(oracle(root, body));
      }),
      { numRuns: 3000 },
    );
  });

  it('writes a `__proto__` member like any other (stored JSON can hold one)', () => {
    const body = JSON.parse('{"__proto__":"x","a":{"__proto__":{"b":1}}}') as Wire;
    expect(encodeJson('r', body)).toBe('{"r":{"__proto__":"x","a":{"__proto__":{"b":1}}}}');
    expect(encodeJson('r', body)).toBe(oracle('r', body));
  });

  it('skips undefined members and writes undefined list items as null, as JSON.stringify does', () => {
    const body = { a: undefined, b: [undefined, 1], c: new WireList('x', [undefined as unknown as Wire]) } as unknown as Wire;
    expect(encodeJson('r', body)).toBe(oracle('r', body));
    expect(encodeJson('r', body)).toBe('{"r":{"b":[null,1],"c":[null]}}');
  });

  it('a tree deeper than the native limit still encodes, by the explicit-stack writer', () => {
    let body: Wire = 'leaf';
    for (let level = 0; level < 200; level += 1) body = { child: body };
    expect(JSON.parse(encodeJson('r', body))).toEqual(JSON.parse(oracle('r', body)));
  });
});
