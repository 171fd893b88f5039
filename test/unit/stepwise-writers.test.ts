import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { listItems, type BodyWriter, type WriteBudget } from '../../src/http/format/body-writer.js';
import { encodeJson, jsonBodyWriter, jsonListWriter } from '../../src/http/format/json-writer.js';
import { LONG_TEXT } from '../../src/http/format/long-text.js';
import { WireErrors, WireList, WireMessage, WireTime, type Wire } from '../../src/http/format/wire.js';
import { encodeXml, heldBetweenEncodes, xmlBodyWriter, xmlListWriter } from '../../src/http/format/xml-writer.js';

/*
 * Bodies written in steps (src/http/format/body-writer.ts; docs/wire-compatibility.md, "Large
 * pages") must print exactly what the one-call encoders print (those are pinned against the
 * writers they replaced: xml-writer-oracle.test.ts, json-writer.test.ts), and throw alike, however
 * small the steps: every value a step, text cut at any length, long texts in pieces.
 */

/** What a write printed, or the kind of error it threw. */
function outcome(write: () => string): string {
  try {
    return write();
  } catch (error) {
    return `throws ${(error as Error).name}`;
  }
}

/** The body `writer` writes, each step with the next of `budgets` (repeated), taking the text after each. */
function stepwise(writer: BodyWriter, budgets: readonly WriteBudget[]): string {
  let text = '';
  try {
    for (let step = 0; ; step += 1) {
      const budget = budgets[step % budgets.length] as WriteBudget;
      const done = writer.advance({ ...budget });
      text += writer.take();
      if (done) return text;
    }
  } finally {
    writer.close();
  }
}

const budget = fc.record({ values: fc.integer({ min: 1, max: 40 }), chars: fc.integer({ min: 1, max: 4000 }) });
const budgets = fc.array(budget, { minLength: 1, maxLength: 5 });

/** Texts around the long-text length, with what each writer escapes, and surrogate pairs where a piece may end. */
const longText = fc
  .tuple(fc.integer({ min: LONG_TEXT - 3, max: 3 * LONG_TEXT + 3 }), fc.constantFrom('a', '&', '<', '"', '\\', '😀', '\ud800', 'é', '\n'), fc.constantFrom('b', '😀', '>', '\udc00'))
  .map(([length, fill, other]) => {
    const text = fill.repeat(Math.ceil(length / fill.length)).slice(0, length);
    // A pair straddling where the first piece ends, and another character in the middle.
    return `${text.slice(0, LONG_TEXT - 1)}😀${text.slice(LONG_TEXT + 1, 2 * LONG_TEXT)}${other}${text.slice(2 * LONG_TEXT)}`;
  });

const key = fc.oneof(
  fc.constantFrom('token', 'data', 'a b', 'a_b', '1st', '__proto__', 'message', 'x-y', 'é'),
  fc.string({ unit: fc.constantFrom('a', ' ', '_', '1', '.'), minLength: 1, maxLength: 3 }),
);

const scalar: fc.Arbitrary<Wire> = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.constantFrom('', '&<>"\'', 'can\'t', '4111 only digits 4242'),
  fc.integer(),
  fc.constantFrom(-0, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 1e21),
  fc.boolean(),
  fc.constant(null),
  fc.constantFrom('2026-11-24T10:11:12Z', '2026-11-24T10:11:12.345Z', 'not a date').map((stored) => new WireTime(stored)),
  fc.constant(new Date(Date.UTC(2026, 10, 24, 10, 11, 12))),
  fc.record({ key: fc.option(fc.string({ maxLength: 4 })), text: fc.option(fc.string({ maxLength: 6 })) }).map(({ key: k, text }) => new WireMessage(k, text)),
  fc.array(fc.record({ key: fc.string({ maxLength: 4 }), message: fc.string({ maxLength: 4 }) }), { maxLength: 2 }).map((entries) => new WireErrors(entries)),
);

const tree: fc.Arbitrary<Wire> = fc.letrec<{ node: Wire }>((tie) => ({
  node: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { arbitrary: scalar, weight: 6 },
    { arbitrary: longText, weight: 1 },
    { arbitrary: fc.array(tie('node'), { maxLength: 5 }), weight: 2 },
    { arbitrary: fc.tuple(fc.constantFrom('item', 'payment_method'), fc.array(tie('node'), { maxLength: 4 })).map(([name, items]) => new WireList(name, items)), weight: 1 },
    { arbitrary: fc.dictionary(key, tie('node'), { maxKeys: 5 }), weight: 3 },
  ),
})).node;

/** A chain `levels` deep, objects and arrays in turn (deeper than the recursive JSON writer goes). */
function deepChain(levels: number): Wire {
  let value: Wire = { leaf: new WireMessage('k', 'v'), text: 'x' };
  for (let level = 0; level < levels; level += 1) value = level % 2 === 0 ? [value, level] : { 'odd key': level, odd_key: 'last', next: value };
  return value;
}

describe('bodies written in steps print what the one-call encoders print', () => {
  it('XML: any tree, any steps', () => {
    fc.assert(
      fc.property(tree, budgets, (body, steps) => {
        expect(outcome(() => stepwise(xmlBodyWriter('payment_method', body), steps))).toBe(outcome(() => encodeXml('payment_method', body)));
      }),
      { numRuns: 600 },
    );
  });

  it('JSON: any tree, any steps', () => {
    fc.assert(
      fc.property(tree, budgets, (body, steps) => {
        expect(outcome(() => stepwise(jsonBodyWriter('payment_method', body), steps))).toBe(outcome(() => encodeJson('payment_method', body)));
      }),
      { numRuns: 600 },
    );
  });

  it('lists: each item made when it is written, the same text as the list in one call (XML and JSON)', () => {
    fc.assert(
      fc.property(fc.array(tree, { maxLength: 6 }), budgets, (items, steps) => {
        const list = listItems(items, (item) => item);
        expect(outcome(() => stepwise(xmlListWriter('payment_methods', 'payment_method', list), steps))).toBe(outcome(() => encodeXml('payment_methods', new WireList('payment_method', items))));
        expect(outcome(() => stepwise(jsonListWriter('payment_methods', list), steps))).toBe(outcome(() => encodeJson('payment_methods', new WireList('payment_method', items))));
      }),
      { numRuns: 400 },
    );
  });

  it('makes each item when it comes to it, once: one view of a stored row held at a time', () => {
    const rows = Array.from({ length: 5 }, (_, index) => ({ index, data: 'x'.repeat(10) }));
    for (const makeWriter of [(items: ReturnType<typeof listItems>) => xmlListWriter('rows', 'row', items), (items: ReturnType<typeof listItems>) => jsonListWriter('rows', items)]) {
      const made: number[] = [];
      const writer = makeWriter(listItems(rows, (row) => (made.push(row.index), row)));
      const madeAfterStep: number[] = [];
      for (;;) {
        const done = writer.advance({ values: 1, chars: 1 });
        writer.take();
        madeAfterStep.push(made.length);
        if (done) break;
      }
      writer.close();
      expect(made).toEqual([0, 1, 2, 3, 4]);
      // Rows are made one by one as the steps reach them, not all at the start.
      expect(madeAfterStep[0]).toBe(1);
      expect(new Set(madeAfterStep).size).toBe(5);
    }
  });

  it('an empty list, an undefined body, a list of undefined items print as before', () => {
    const none = listItems([], (item: Wire) => item);
    const one = [{ x: 1 }];
    expect(stepwise(xmlListWriter('payment_methods', 'payment_method', none), [{ values: 1, chars: 1 }])).toBe(encodeXml('payment_methods', new WireList('payment_method', [])));
    expect(stepwise(jsonListWriter('payment_methods', none), [{ values: 1, chars: 1 }])).toBe(encodeJson('payment_methods', new WireList('payment_method', [])));
    expect(stepwise(jsonBodyWriter('thing', undefined as unknown as Wire), [{ values: 1, chars: 1 }])).toBe('{}');
    const holes = listItems([undefined, ...one, undefined] as unknown as Wire[], (item) => item);
    expect(stepwise(jsonListWriter('things', holes), [{ values: 1, chars: 1 }])).toBe(encodeJson('things', new WireList('thing', [undefined, ...one, undefined] as unknown as Wire[])));
  });

  it('trees deeper than the recursive JSON writer goes, and long texts of every kind, in any steps', () => {
    for (const levels of [3, 70, 900]) {
      const body = { data: deepChain(levels), long: `${'&'.repeat(LONG_TEXT)}😀${'"'.repeat(LONG_TEXT)}` };
      for (const steps of [[{ values: 1, chars: 1 }], [{ values: 7, chars: 100 }], [{ values: 10_000, chars: 1_000_000 }]]) {
        expect(stepwise(xmlBodyWriter('r', body), steps)).toBe(encodeXml('r', body));
        expect(stepwise(jsonBodyWriter('r', body), steps)).toBe(encodeJson('r', body));
      }
    }
  });

  it('a long text is written in pieces: a step holds one piece, never the whole text', () => {
    const long = '&'.repeat(5 * LONG_TEXT);
    for (const writer of [xmlBodyWriter('r', { long }), jsonBodyWriter('r', { long })]) {
      const pieces: string[] = [];
      for (;;) {
        const done = writer.advance({ values: 1, chars: Number.POSITIVE_INFINITY });
        pieces.push(writer.take());
        if (done) break;
      }
      writer.close();
      // `&` is five characters in XML, one in JSON: no step wrote more than one piece's worth.
      expect(pieces.length).toBeGreaterThanOrEqual(5);
      expect(Math.max(...pieces.map((piece) => piece.length))).toBeLessThanOrEqual(5 * LONG_TEXT + 64);
    }
  });

  it('an object whose cleaned names collide (its other values written only for what they throw) gives its text only when final', () => {
    const body = { data: { 'a b': { deep: ['x', 'y', 'z'] }, a_b: 'kept', c: 1 } };
    const writer = xmlBodyWriter('r', body);
    const taken: string[] = [];
    for (;;) {
      const done = writer.advance({ values: 1, chars: 1 });
      taken.push(writer.take());
      if (done) break;
    }
    writer.close();
    expect(taken.join('')).toBe(encodeXml('r', body));
    expect(taken.join('')).not.toContain('<deep');
  });

  it('throws what the one-call encoder throws, at the step that meets it, and a closed writer holds nothing', () => {
    const broken = { fine: 'x'.repeat(100), at: new WireTime('not a date') } as Wire;
    expect(() => stepwise(xmlBodyWriter('r', broken), [{ values: 1, chars: 10 }])).toThrow(RangeError);
    expect(() => stepwise(jsonBodyWriter('r', broken), [{ values: 1, chars: 10 }])).toThrow(RangeError);
    // The one-call writer's state is its own: untouched by a body written in steps that threw.
    expect(heldBetweenEncodes()).toBe(0);
    expect(encodeXml('r', { ok: 1 })).toBe('<?xml version="1.0" encoding="UTF-8"?>\n<r>\n  <ok type="integer">1</ok>\n</r>\n');
  });

  it('two bodies written in steps at once, in turns, each print their own text', () => {
    const first = { a: { b: [1, 2, { c: 'd' }] }, e: 'f' };
    const second = new WireList('item', [{ x: 'y' }, [1, [2]], 'z']);
    for (const [make, encode] of [
      [xmlBodyWriter, encodeXml],
      [jsonBodyWriter, encodeJson],
    ] as const) {
      const writers = [make('one', first), make('two', second)];
      const texts = ['', ''];
      const done = [false, false];
      while (!done[0] || !done[1]) {
        for (const index of [0, 1]) {
          if (done[index]) continue;
          const writer = writers[index] as BodyWriter;
          done[index] = writer.advance({ values: 1, chars: 5 });
          texts[index] += writer.take();
        }
      }
      expect(texts).toEqual([encode('one', first), encode('two', second)]);
    }
  });
});
