import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeJson, memberNameCached, wireTime } from '../../src/http/format/json-codec.js';
import { WireErrors, WireList, WireMessage, WireTime, type Wire } from '../../src/http/format/wire.js';
import { storedWireTime } from '../../src/http/format/wire-time.js';
import { withPollutedObjectPrototype } from '../helpers/polluted-prototype.js';
import { expectSameAcrossNameCacheReset } from '../helpers/name-cache-reset.js';

/*
 * encodeJson writes the Wire tree to text in one pass (docs/benchmarks.md). Its output must stay byte for
 * byte what the encoder before printed: a copy of the tree into plain objects, then
 * JSON.stringify. That encoder is kept here as the oracle. Views held Dates then; a WireTime (the
 * stored text, since the third round of docs/benchmarks.md) must print what the Date parsed from that text printed.
 */
function oracle(root: string, body: Wire): string {
  const plainErrors = (errors: WireErrors) => errors.entries.map((entry) => (entry.attribute === undefined ? { key: entry.key, message: entry.message } : { attribute: entry.attribute, key: entry.key, message: entry.message }));
  const toPlain = (value: Wire): unknown => {
    if (value === null || typeof value !== 'object') return value;
    if (value instanceof Date) return wireTime(value);
    if (value instanceof WireTime) return wireTime(value.toDate());
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

/**
 * One UTF-16 unit of any kind, the escaped ones often: quote, backslash, control characters, DEL,
 * U+2028/2029, lone high and low surrogates, and pairs (an emoji) that JSON.stringify leaves as is.
 */
const anyUnit = fc.oneof(
  fc.constantFrom('"', '\\', '/', '\n', '\r', '\t', '\b', '\f', '\u0000', '\u0001', '\u001f', '\u007f', '\u2028', '\u2029', '\ud800', '\udbff', '\udc00', '\udfff', '😀', 'é'),
  fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)),
);
const text = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.string({ unit: anyUnit }), fc.constantFrom('', '"', '\\', '\u2028', '\ud800', '<a&b>', 'ünïcødé'));

/** Stored timestamp text: mostly what toISOString writes, sometimes odd or no date at all. */
const storedTime = fc.oneof(
  fc.date({ noInvalidDate: true }).map((date) => date.toISOString()),
  fc.date({ noInvalidDate: true, min: new Date('0000-01-01T00:00:00Z'), max: new Date('9999-12-31T23:59:59.999Z') }).map((date) => `${date.toISOString().slice(0, 19)}Z`),
  fc.constantFrom('2026-02-29T10:00:00Z', '2024-02-29T10:00:00.000Z', '2026-11-24T24:00:00Z', '2026-11-24 10:11:12', '2026-11-24T10:11:12+01:00', '2026-11-24T10:11:12.5Z', '2026-11-24'),
);
const validStoredTime = storedTime.filter((stored) => !Number.isNaN(new Date(stored).getTime()));
const scalar: fc.Arbitrary<Wire> = fc.oneof(
  text,
  fc.integer(),
  fc.double(),
  fc.constantFrom(-0, Number.NaN, Number.POSITIVE_INFINITY),
  fc.boolean(),
  fc.constant(null),
  fc.date({ noInvalidDate: true }),
  validStoredTime.map((stored) => new WireTime(stored)),
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

  it('a deep tree of every kind of value prints the same bytes, beyond 64 levels', () => {
    const kinds = (level: number): Wire => ({
      at: new WireTime('2026-11-24T10:11:12.345Z'),
      odd_at: new WireTime('2026-11-24T10:11:12+01:00'),
      date: new Date(Date.UTC(2026, 10, 24, level % 24)),
      message: new WireMessage('messages.k', `level "${level}"\u2028\ud800`),
      list: new WireList('item', [new WireMessage(null, 'as item'), null, `😀\u0000`]),
      errors: new WireErrors(level % 2 === 0 ? [] : [{ key: 'errors.blank', message: "can't be \\ blank", attribute: 'x' }]),
    });
    for (const depth of [63, 64, 65, 66, 150]) {
      let body: Wire = kinds(depth);
      for (let level = 0; level < depth; level += 1) body = level % 3 === 0 ? new WireList('x', [{ ...(kinds(level) as object), child: body } as Wire]) : { ...(kinds(level) as object), child: body };
      expect(encodeJson('r', body)).toBe(oracle('r', body));
    }
  });

  it('writes only own members: not those of a prototype, even when Object.prototype has one', () => {
    const inherited = Object.assign(Object.create({ inherited: 'no' }) as object, { own: 'yes' }) as Wire;
    const bare = Object.assign(Object.create(null) as object, { b: 1, a: new WireTime('2026-01-01T00:00:00Z') }) as Wire;
    const body: Wire = { inherited, bare, plain: { x: [1, { y: 2 }] } };
    expect(encodeJson('r', body)).toBe('{"r":{"inherited":{"own":"yes"},"bare":{"b":1,"a":"2026-01-01T00:00:00Z"},"plain":{"x":[1,{"y":2}]}}}');
    withPollutedObjectPrototype(() => {
      expect(encodeJson('r', body)).toBe(oracle('r', body));
      expect(encodeJson('r', body)).not.toContain('polluted');
    });
  });

  it('member names print the same once cached, and after the cache of names starts over', () => {
    expectSameAcrossNameCacheReset(encodeJson, oracle, fc.sample(text, { numRuns: 300, seed: 12 }));
  });

  it('a stored time that is no date throws RangeError, as its Date did', () => {
    for (const stored of ['', 'not a date', '2026-13-01T00:00:00Z']) {
      expect(() => encodeJson('r', { at: new WireTime(stored) })).toThrow(RangeError);
      expect(() => oracle('r', { at: new WireTime(stored) })).toThrow(RangeError);
    }
  });
});

describe('member names kept across encodes', () => {
  it('keeps view names, never a name with enough digits to be part of a card number, and writes both alike', () => {
    const names = ['address1', '4111111111111111', 'card 4242 4242', '\uff14\uff12\uff14\uff12'];
    const body = { metadata: Object.fromEntries(names.map((name) => [name, 1])) };
    expect(encodeJson('payment_method', body)).toBe(JSON.stringify({ payment_method: body }));
    expect(names.map(memberNameCached)).toEqual([true, false, false, false]);
    expect(encodeJson('payment_method', body)).toBe(JSON.stringify({ payment_method: body }));
  });
});

describe('stored times on the wire', () => {
  const viaDate = (stored: string): string => {
    try {
      return wireTime(new Date(stored));
    } catch (error) {
      return `throws ${(error as Error).name}`;
    }
  };
  const viaWireTime = (stored: string): string => {
    try {
      return storedWireTime(stored);
    } catch (error) {
      return `throws ${(error as Error).name}`;
    }
  };
  const pad = (value: number, width: number) => String(value).padStart(width, '0');

  it('print what the Date round trip printed, for every day of leap and common years and every field bound', () => {
    for (const year of [0, 4, 100, 1900, 2000, 2024, 2026, 9999]) {
      for (let month = 0; month <= 13; month += 1) {
        for (let day = 0; day <= 32; day += 1) {
          const date = `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}`;
          for (const time of ['00:00:00', '23:59:59', '24:00:00', '23:60:00', '23:59:60']) {
            for (const suffix of ['Z', '.999Z', '.5Z', '', '+00:00']) {
              const stored = `${date}T${time}${suffix}`;
              expect(viaWireTime(stored), stored).toBe(viaDate(stored));
            }
          }
        }
      }
    }
  });

  it('print what the Date round trip printed, for any text shaped like a timestamp', () => {
    const digits = (count: number) => fc.string({ unit: fc.constantFrom('0', '1', '2', '3', '5', '9', 'x', ' '), minLength: count, maxLength: count });
    const shaped = fc.tuple(digits(4), fc.constantFrom('-', '/'), digits(2), fc.constant('-'), digits(2), fc.constantFrom('T', ' ', 't'), digits(2), fc.constant(':'), digits(2), fc.constantFrom(':', '.'), digits(2), fc.constantFrom('', '.', '.0'), digits(3), fc.constantFrom('Z', 'z', '', '+01:00')).map((parts) => parts.join(''));
    fc.assert(
      fc.property(fc.oneof(shaped, storedTime, fc.string({ unit: anyUnit, maxLength: 30 })), (stored) => {
        expect(viaWireTime(stored)).toBe(viaDate(stored));
      }),
      { numRuns: 20000 },
    );
  });

  it('take the text as it is when it is canonical, and the rest by the Date', () => {
    expect(storedWireTime('2026-11-24T10:11:12.345Z')).toBe('2026-11-24T10:11:12Z');
    expect(storedWireTime('2026-11-24T10:11:12Z')).toBe('2026-11-24T10:11:12Z');
    // wireTime keeps 19 characters: a 6-digit year loses its seconds. Kept as it was.
    expect(storedWireTime('+275760-09-13T00:00:00.000Z')).toBe('+275760-09-13T00:00Z');
    expect(storedWireTime('-000001-12-31T23:59:59.999Z')).toBe('-000001-12-31T23:59Z');
    expect(storedWireTime('2026-11-24T10:11:12+01:00')).toBe('2026-11-24T09:11:12Z');
  });
});
