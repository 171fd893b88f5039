import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ExactMatcher } from '../../src/domain/scrubbing/exact-matcher.js';
import { exactValuesPattern } from '../../src/domain/scrubbing/exact-values.js';
import { FILTERED, Scrubber } from '../../src/domain/scrubbing/scrubber.js';
import { replaceSpans } from '../../src/domain/scrubbing/spans.js';

/**
 * The matcher that replaced the per-call regex of a call's exact values must find exactly what
 * that regex found: same spans, leftmost first, the pattern's order of forms at one position.
 */

const PAN = '4111111111111111';
const OTHER_PAN = '5555555555554444';
const CVV = '123';
const ROUTING = '021000021';
const KEY = 'sk_live_Secret+Key/0123';
const SHORT_KEY = 'ab12';

/** Every digit form the pattern knows (digit-forms.ts), including the rarer spellings. */
function digitForms(digit: string): string[] {
  const code = digit.charCodeAt(0);
  const hex = (code - 0x30).toString(16);
  return [digit, String.fromCharCode(0xff10 + code - 0x30), `&#${code};`, `&#00${code};`, `&#x3${hex};`, `&#X003${hex};`, `\\u003${hex}`, `\\U003${hex}`, `\\uFF1${hex}`, `\\uff1${hex}`, `%3${hex}`];
}

const SEPARATORS = ['', '', ' ', '.', '-', '/', '+', '\u00a0', '\u2010', '\uff0d', '&nbsp;', '&#32;', '&#045;', '&#x20;', '&#XA0;', '\\u0020', '\\u002D', '%20', '%2d', '%C2%A0', '  ', ' - ', '. .', '    '];

/** A value written as its digits in a mix of forms and separators, or one of its literal forms. */
function written(value: string): fc.Arbitrary<string> {
  if (!/^[0-9]+$/.test(value)) return fc.constantFrom(value, encodeURIComponent(value), JSON.stringify(value).slice(1, -1), Buffer.from(`u:${value}`).toString('base64'), value.toUpperCase());
  return fc
    .array(fc.tuple(fc.nat(10), fc.nat(SEPARATORS.length - 1)), { minLength: value.length, maxLength: value.length })
    .map((choices) => [...value].map((digit, index) => `${digitForms(digit)[choices[index]?.[0] ?? 0] ?? digit}${index < value.length - 1 ? SEPARATORS[choices[index]?.[1] ?? 0] : ''}`).join(''));
}

const values = [PAN, CVV, ROUTING, KEY, SHORT_KEY];
const noise = fc.constantFrom('1', '42', '2024-11-24', '４２', 'cvc=', '&#', '%3', '%', '\\u00', '&#x', ' ', 'x', '0', ';', 'ab', '12', '3');
const piece = fc.oneof(fc.constantFrom(...values, OTHER_PAN).chain(written), fc.string({ maxLength: 10 }), noise);
const text = fc.array(piece, { maxLength: 10 }).map((pieces) => pieces.join(''));

describe('ExactMatcher', () => {
  it('property: replaces exactly what the pattern of the same values replaces', () => {
    const pattern = exactValuesPattern(values) as RegExp;
    const matcher = new ExactMatcher(values);
    let found = 0;
    fc.assert(
      fc.property(text, (sample) => {
        const spans = matcher.spans(sample);
        if (spans.length > 0) found += 1;
        expect(replaceSpans(sample, spans, FILTERED)).toBe(sample.replace(pattern, FILTERED));
      }),
      { numRuns: 5000 },
    );
    // Not vacuous: some 40 % of the samples hold a value in some form.
    expect(found).toBeGreaterThan(1500);
  });

  it('property: the same for any single value, digits or not', () => {
    fc.assert(
      fc.property(fc.constantFrom(...values, OTHER_PAN, '0000', '9876543'), text, (value, sample) => {
        const pattern = exactValuesPattern([value]) as RegExp;
        expect(replaceSpans(sample, new ExactMatcher([value]).spans(sample), FILTERED)).toBe(sample.replace(pattern, FILTERED));
      }),
      { numRuns: 3000 },
    );
  });

  it('finds a card number written with escapes and separators, and a CVV only as a whole token', () => {
    const matcher = new ExactMatcher([PAN, CVV]);
    const text = 'card &#52;111 1111%2D1111\\u00201111 cvc 123 order 1234';
    expect(replaceSpans(text, matcher.spans(text), FILTERED)).toBe(`card ${FILTERED} cvc ${FILTERED} order 1234`);
  });

  it('finds nothing in a text without the values', () => {
    expect(new ExactMatcher([PAN, CVV]).spans('Succeeded! 4111 1111 1111 1112, cvc 1234')).toEqual([]);
  });
});

describe('Scrubber: nothing is shared between calls', () => {
  // Not Luhn-valid, so the card-like rules leave them alone: only each call's exact values decide.
  const cardA = '4111111111111112';
  const cardB = '5555555555554445';
  const textA = 'x &#52;111%201111 1111 1112 cvv 123 and 987';
  const textB = 'x &#53;555%205555 5555 4445 cvv 987 and 123';

  it('two different cards in a row: each call finds its own card and only its own', () => {
    const first = Scrubber.of([cardA, '123']);
    const second = Scrubber.of([cardB, '987']);
    expect(first.text(textA)).toBe(`x ${FILTERED} cvv ${FILTERED} and 987`);
    expect(second.text(textA)).toBe(`x &#52;111%201111 1111 1112 cvv 123 and ${FILTERED}`);
    expect(second.text(textB)).toBe(`x ${FILTERED} cvv ${FILTERED} and 123`);
    expect(first.text(textB)).toBe(`x &#53;555%205555 5555 4445 cvv 987 and ${FILTERED}`);
  });

  it('a call after another with the same texts still finds its own card (no matcher outlives its call)', () => {
    for (const [card, text] of [[cardA, textA], [cardB, textB], [cardA, textA]] as const) {
      const scrubbed = Scrubber.of([card]).text(text);
      expect(scrubbed.startsWith(`x ${FILTERED} cvv`)).toBe(true);
    }
  });
});
