import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { AppError } from '../../src/domain/errors.js';
import { checkInputBounds } from '../../src/http/format/input-bounds.js';
import { decodeJson, requestBodyOf } from '../../src/http/format/json-codec.js';
import { bodyArb, seedBodies } from '../../drills/fuzz-inputs.js';

/**
 * The one-pass JSON decoder (json-decoder.ts) against the decoder it replaced: `JSON.parse` with
 * a reviver dropping `__proto__`, then the walk of input-bounds.ts. Every valid body decodes to
 * the same fields, key order and -0 included; every refused body is refused with the same key
 * (and, where one bound is broken, the same attribute and message).
 */

type Outcome = { ok: true; root: string | null; fields: string } | { ok: false; key: string; entries: unknown };

class StackExhausted extends Error {}

/** The decoder as it was: JSON.parse with a reviver, then the bounds walk. */
function previousDecoder(text: string): { root: string | null; fields: Record<string, unknown> } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value));
  } catch (error) {
    // The reviver recurses: thousands of levels exhausted the stack, and a valid body read as malformed.
    if (error instanceof RangeError) throw new StackExhausted();
    throw new AppError({ key: 'errors.malformed_request', message: 'The request body could not be parsed: invalid JSON.' });
  }
  const body = requestBodyOf(parsed);
  checkInputBounds(body.fields);
  return body;
}

/** A tree as text that keeps what toEqual glosses over: key order, -0, own `__proto__` keys, prototypes. */
function canonical(value: unknown): string {
  if (Object.is(value, -0)) return '-0';
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? String(value);
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const prototype = Object.getPrototypeOf(value) === Object.prototype ? '' : '<odd prototype>';
  return `${prototype}{${Object.getOwnPropertyNames(value)
    .map((key) => `${JSON.stringify(key)}:${canonical((value as Record<string, unknown>)[key])}`)
    .join(',')}}`;
}

function outcome(decode: (text: string) => { root: string | null; fields: Record<string, unknown> }, text: string): Outcome | 'stack exhausted' {
  try {
    const decoded = decode(text);
    return { ok: true, root: decoded.root, fields: canonical(decoded.fields) };
  } catch (error) {
    if (error instanceof StackExhausted) return 'stack exhausted';
    if (!(error instanceof AppError)) throw error;
    return { ok: false, key: error.entries[0]?.key ?? '', entries: error.entries };
  }
}

/** Same outcome; refusals by the same key, and the same entries unless `anyFault` (several bounds broken at once). */
function expectSameOutcome(text: string, anyFault = false): void {
  const before = outcome(previousDecoder, text);
  const now = outcome(decodeJson, text);
  const shown = text.slice(0, 300);
  if (now === 'stack exhausted') throw new Error('the one-pass decoder recursed');
  // Where the old reviver ran out of stack (valid JSON read as malformed), the body is now refused
  // for what it is: nested too deep, or not shaped as a request.
  if (before === 'stack exhausted') {
    expect(now.ok, shown).toBe(false);
    expect(JSON.stringify(now), shown).toMatch(/nested more than 32 levels|expected a JSON object|exactly one root key|must be an object/);
  }
  else if (before.ok || now.ok || !anyFault) expect(now, shown).toEqual(before);
  else expect(now.key, shown).toBe(before.key);
}

const under = (fields: string) => `{"payment_method":${fields}}`;

describe('the one-pass JSON decoder decodes what JSON.parse with the old reviver decoded', () => {
  it.each([
    ['numbers', under('{"a":0,"b":-0,"c":-0.0,"d":1e400,"e":-1e400,"f":12345678901234567890,"g":0.1,"h":1E+2,"i":5e-324,"j":-123456789,"k":999999999,"l":1000000000,"m":9007199254740993,"n":-2147483649}')],
    ['literals and nesting', under('{"t":true,"f":false,"n":null,"a":[[],{},[{}],[[1,[2,[3]]]]],"o":{"x":{"y":{"z":"w"}}}}')],
    ['whitespace everywhere', ` \t\n\r{ "payment_method" :\n{ "a" : [ 1 , 2 ] , "b" : { } } } \r\n`],
    ['escapes', under('{"s":"\\"\\\\\\/\\n\\r\\t\\u00e9\\u20AC\\ud83d\\ude00\\ud800 lone","u":"plain","\\u0061key":"x"}')],
    ['raw non-ASCII, U+2028 and lone surrogates', under('{"s":"caf\u00e9 \u2028 \ud800 \u{1F600}"}')],
    ['duplicate keys: last wins in the first place', under('{"a":1,"b":2,"a":3,"c":{"x":1,"x":{"y":2}}}')],
    ['duplicate root keys', '{"payment_method":{"a":1},"payment_method":{"b":2}}'],
    ['__proto__ dropped at every level', under('{"a":1,"__proto__":{"polluted":true},"b":{"__proto__":[1],"c":2},"d":[{"__proto__":1}]}')],
    ['escaped __proto__ key', under('{"\\u005f_proto__":{"x":1},"a":1}')],
    ['keys named like Object.prototype members', under('{"constructor":1,"toString":"x","hasOwnProperty":null,"valueOf":{"a":1},"__defineGetter__":2}')],
    ['integer-like keys', under('{"b":1,"2":2,"a":3,"1":4,"-1":5,"01":6}')],
    ['root __proto__ only', '{"__proto__":{"payment_method":{"a":1}}}'],
    ['empty root', '{}'],
    ['null fields', '{"payment_method":null}'],
    ['tabs, CR and LF are allowed', under('{"s":"a\\tb\\nc\\rd","k\\t":1}')],
  ])('%s', (_name, text) => expectSameOutcome(text));

  it.each([
    ['not JSON', '{"payment_method":'],
    ['trailing comma', under('{"a":1,}')],
    ['single quotes', "{'payment_method':{}}"],
    ['leading zero', under('{"a":01}')],
    ['bare fraction', under('{"a":.5}')],
    ['plus sign', under('{"a":+1}')],
    ['trailing dot', under('{"a":1.}')],
    ['bad escape', under('{"a":"\\x"}')],
    ['short unicode escape', under('{"a":"\\u12"}')],
    ['raw control character in a string', under('{"a":"x\u0001"}')],
    ['raw line feed in a string', under('{"a":"x\ny"}')],
    ['unterminated string', under('{"a":"x')],
    ['trailing text', `${under('{}')} x`],
    ['byte order mark', `\uFEFF${under('{}')}`],
    ['NaN', under('{"a":NaN}')],
    ['comment', under('{"a":1 /* x */}')],
    ['an array', '[]'],
    ['a string', '"x"'],
    ['two roots', '{"a":{},"b":{}}'],
    ['a root that is not an object', '{"payment_method":[1]}'],
    ['a root that is a string', '{"payment_method":"x"}'],
    ['deep but malformed', `{"payment_method":{"data":${'['.repeat(5000)}}}`],
  ])('refuses %s the same way', (_name, text) => expectSameOutcome(text));

  it.each([
    ['32 levels', 32, true],
    ['33 levels', 33, false],
    ['2,500 levels', 2500, false],
  ])('nesting: %s', (_name, levels) => {
    const deep = `${'{"a":'.repeat(levels)}"leaf"${'}'.repeat(levels)}`;
    expectSameOutcome(under(`{"email":"x","data":${deep}}`));
    expectSameOutcome(under(`{"metadata":${'['.repeat(levels)}1${']'.repeat(levels)}}`));
  });

  it('never hands the body to JSON.parse with a reviver (the cost the attack used)', () => {
    const parse = vi.spyOn(JSON, 'parse');
    try {
      decodeJson(under('{"metadata":[1,2,3],"s":"escaped \\u00e9","o":{"k":"v"}}'));
      expect(parse.mock.calls.every((call) => call.length < 2 || call[1] === undefined)).toBe(true);
    } finally {
      parse.mockRestore();
    }
  });

  it('nesting far past what the old walk survived is the same 422, not a parse failure', () => {
    const levels = 200_000;
    const refused = outcome(decodeJson, under(`{"data":${'['.repeat(levels)}${']'.repeat(levels)}}`));
    expect(refused).toMatchObject({ ok: false, key: 'errors.invalid', entries: [{ attribute: 'data', message: 'Data is nested more than 32 levels deep' }] });
  });

  it.each([
    ['a value', under('{"first_name":"Ada\\u0001"}')],
    ['\\b', under('{"a":{"b":"x\\by"}}')],
    ['\\f in an array', under('{"a":["ok","x\\f"]}')],
    ['a key', under('{"metadata":{"k\\u001f":"v"}}')],
    ['a top-level key', under('{"k\\u0000":"v"}')],
    ['a key inside an array', under('{"metadata":[{"k\\u0002":1}]}')],
    ['NUL', under('{"email":"a\\u0000@example.com"}')],
  ])('control character in %s: the same 422', (_name, text) => expectSameOutcome(text));

  it.each([
    ['overwritten by a duplicate key', under('{"a":"x\\u0001","a":"fine"}')],
    ['inside a dropped __proto__', under('{"__proto__":{"k\\u0001":"\\u0002"},"a":1}')],
    ['too deep but overwritten', under(`{"data":${'['.repeat(40)}${']'.repeat(40)},"data":1}`)],
    ['too deep inside __proto__', under(`{"a":{"__proto__":${'['.repeat(40)}${']'.repeat(40)}}}`)],
    ['at the root, outside the fields', '{"payment_method\\u0001":{"a":1}}'],
  ])('a broken bound that does not survive decoding is no fault: %s', (_name, text) => expectSameOutcome(text));

  it('agrees on random JSON documents under a root', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.constantFrom('payment_method', 'transaction', '__proto__'), (value, root) => {
        expectSameOutcome(JSON.stringify({ [root]: value }), true);
        expectSameOutcome(JSON.stringify({ [root]: value }, null, 2), true);
      }),
      { numRuns: 400, seed: 11 },
    );
  });

  it('agrees on random unicode strings, keys and escapes', () => {
    const text = fc.string({ unit: 'binary', maxLength: 30 });
    fc.assert(
      fc.property(fc.dictionary(text, fc.oneof(text, fc.array(text, { maxLength: 3 }))), (fields) => {
        const json = JSON.stringify({ payment_method: fields });
        expectSameOutcome(json, true);
        // The same text with every character but the structural ones written as \uXXXX.
        expectSameOutcome(json.replace(/[^"\\{}[\]:,]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`), true);
      }),
      { numRuns: 300, seed: 12 },
    );
  });

  it('agrees on texts cut and spliced at random (valid or not)', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), fc.nat(), fc.constantFrom('', ',', '}', ']', '"', '\\', '-', '0', 'e', ' ', '\u0001', 'tru', '{', '['), (value, at, insert) => {
        const json = JSON.stringify({ payment_method: value });
        const position = at % (json.length + 1);
        expectSameOutcome(json.slice(0, position) + insert + json.slice(position), true);
      }),
      { numRuns: 600, seed: 13 },
    );
  });

  it("agrees on the fuzz drill's bodies", () => {
    fc.assert(
      fc.property(bodyArb(seedBodies('pm-token'), 'pm-token'), (body) => {
        if (body.format === 'json' || body.format === 'raw') expectSameOutcome(body.text, true);
      }),
      { numRuns: 500, seed: 14 },
    );
  });
});
