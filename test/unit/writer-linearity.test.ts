import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeJson } from '../../src/http/format/json-codec.js';
import { encodeXml } from '../../src/http/format/xml-codec.js';
import type { Wire } from '../../src/http/format/wire.js';

/*
 * The XML writer once copied each element's text into its parent, so one read of a record
 * 2,500 levels deep took 20 s. The writers must do work linear in what they write, however the
 * tree is shaped. A property over random trees, checked without wall-clock thresholds: the cost
 * per output byte of a tree nested 8 times deeper must stay within a generous factor (4) of the
 * shallower one's. The old XML writer's cost per byte grew with the depth (about 8x here; 28 s for
 * the deep case of a single sample); a linear writer's stays flat. Each cost is the fastest of
 * several runs, so a busy machine slows both sizes alike or not at all.
 */

const leaf = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.boolean(), fc.constant(null));
const { tree } = fc.letrec((tie) => ({
  tree: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, tie('object'), tie('array')),
  object: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }).filter((key) => key !== '__proto__'), tie('tree'), { maxKeys: 3 }),
  array: fc.array(tie('tree'), { maxLength: 3 }),
}));

/**
 * `sample` repeated at every level of a chain `levels` deep (objects and arrays alternating), with
 * some text at each level so that a tiny sample still gives each level a size worth timing.
 */
function nestedChain(sample: unknown, levels: number): Wire {
  let value: unknown = sample;
  const pad = 'p'.repeat(48);
  for (let level = 0; level < levels; level += 1) value = level % 2 === 0 ? { sample, pad, next: value } : [sample, pad, value];
  return value as Wire;
}

/**
 * Cost per output byte (ns) of the shallow and the deep tree: the fastest of several runs each,
 * taken in turns (after a warm-up), so a busy machine or the JIT affects both alike.
 */
function growth(encode: (value: Wire) => string, sample: unknown): number {
  const trees = [nestedChain(sample, 200), nestedChain(sample, 1600)] as const;
  const best = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  const lengths = trees.map((tree) => encode(tree).length);
  for (let run = 0; run < 7; run += 1) {
    for (const [index, tree] of trees.entries()) {
      const started = process.hrtime.bigint();
      encode(tree);
      best[index] = Math.min(best[index] as number, Number(process.hrtime.bigint() - started));
    }
  }
  return (best[1] as number) / (lengths[1] as number) / ((best[0] as number) / (lengths[0] as number));
}

describe('response writers are linear in their output, however deep the tree', () => {
  it('XML: nesting 8 times deeper does not make a byte dearer', () => {
    fc.assert(
      fc.property(tree, (sample) => {
        expect(growth((value) => encodeXml('payment_method', value), sample)).toBeLessThan(4);
      }),
      { numRuns: 8 },
    );
  });

  it('JSON: nesting 8 times deeper does not make a byte dearer', () => {
    fc.assert(
      fc.property(tree, (sample) => {
        expect(growth((value) => encodeJson('payment_method', value), sample)).toBeLessThan(4);
      }),
      { numRuns: 8 },
    );
  });
});

describe('the JSON writer for deep trees', () => {
  it('prints exactly what JSON.stringify prints, past the depth where it takes over', () => {
    fc.assert(
      fc.property(tree, fc.integer({ min: 60, max: 200 }), (sample, levels) => {
        const value = nestedChain(sample, levels);
        expect(encodeJson('payment_method', value)).toBe(JSON.stringify({ payment_method: value }));
      }),
      { numRuns: 200 },
    );
  });

  it('writes the 2,500-level tree of the report (a record stored before input was bounded)', () => {
    const text = encodeJson('payment_method', nestedChain('leaf', 2_500));
    expect(text.startsWith(`{"payment_method":["leaf","${'p'.repeat(48)}",{"sample":"leaf"`)).toBe(true);
    expect(text.length).toBeGreaterThan(2_500 * 50);
  });
});
