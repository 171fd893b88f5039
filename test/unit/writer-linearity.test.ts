import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeJson } from '../../src/http/format/json-codec.js';
import { encodeXml } from '../../src/http/format/xml-codec.js';
import type { Wire } from '../../src/http/format/wire.js';

/*
 * Issue 11 §3: the XML writer copied each element's text into its parent, so one read of a record
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
  object: fc.dictionary(fc.string({ minLength: 1, maxLength: 8 }), tie('tree'), { maxKeys: 3 }),
  array: fc.array(tie('tree'), { maxLength: 3 }),
}));

/** `sample` repeated at every level of a chain `levels` deep (objects and arrays alternating). */
function nestedChain(sample: unknown, levels: number): Wire {
  let value: unknown = sample;
  for (let level = 0; level < levels; level += 1) value = level % 2 === 0 ? { sample, next: value } : [sample, value];
  return value as Wire;
}

/** Fastest of `runs` renders, in nanoseconds per output byte. */
function costPerByte(render: () => string, runs = 5): number {
  let best = Number.POSITIVE_INFINITY;
  let length = 1;
  for (let run = 0; run < runs; run += 1) {
    const started = process.hrtime.bigint();
    length = render().length;
    best = Math.min(best, Number(process.hrtime.bigint() - started));
  }
  return best / length;
}

function growth(encode: (value: Wire) => string, sample: unknown): number {
  const shallow = costPerByte(() => encode(nestedChain(sample, 150)));
  const deep = costPerByte(() => encode(nestedChain(sample, 1200)));
  return deep / shallow;
}

describe('response writers are linear in their output (issue 11 §3)', () => {
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
