import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { containsCardLike, luhn, replaceCardLike } from '../../src/domain/scrubbing/card-like.js';
import { FILTERED, Scrubber } from '../../src/domain/scrubbing/scrubber.js';
import { digitCharacters, exactValuesPattern, mayHold, valueProbe } from '../../src/domain/scrubbing/exact-values.js';
import { HiddenValues } from '../../src/domain/scrubbing/hidden-values.js';
import { replaceSpans } from '../../src/domain/scrubbing/spans.js';

/** The one scrubber (src/domain/scrubbing): exact values of a call in every encoding, and card-like numbers. */

const PAN = '4242424242424242';
const CVV = '531';
const OTHER_PAN = '5555555555554444';

const scrub = Scrubber.of([PAN, CVV, 'sk_live_secret&key']);

describe('Scrubber: a decline message that echoes the card', () => {
  it('removes the dotted and plain PAN and the CVV', () => {
    const text = scrub.text('Your card 4242.4242.4242.4242 (cvc 531) was declined. raw=4242424242424242');
    expect(text).toBe(`Your card ${FILTERED} (cvc ${FILTERED}) was declined. raw=${FILTERED}`);
  });
});

describe('Scrubber: exact values in every encoding', () => {
  const digits = (map: (digit: string) => string, gap = '') => [...PAN].map(map).join(gap);
  const forms: Array<[string, string]> = [
    ['plain', PAN],
    ['dots', '4242.4242.4242.4242'],
    ['slashes', '4242/4242/4242/4242'],
    ['double spaces', '4242  4242  4242  4242'],
    ['NBSP', '4242\u00a04242\u00a04242\u00a04242'],
    ['mixed separators', '4242 -4242./4242\u202f4242'],
    ['every digit apart', digits((d) => d, ' ')],
    ['JSON \\u00XX escapes', digits((d) => `\\u003${d}`)],
    ['HTML decimal references', digits((d) => `&#${d.charCodeAt(0)};`)],
    ['HTML hex references', digits((d) => `&#x3${d};`)],
    ['full-width digits', digits((d) => String.fromCharCode(0xff10 + Number(d)))],
    ['full-width with &nbsp;', digits((d) => String.fromCharCode(0xff10 + Number(d)), '&nbsp;')],
    ['percent-encoded digits', digits((d) => `%3${d}`)],
    ['base64', Buffer.from(PAN).toString('base64')],
  ];
  it.each(forms)('%s', (_name, form) => {
    const text = scrub.text(`before ${form} after`);
    expect(text).toBe(`before ${FILTERED} after`);
  });

  it('base64 of the PAN inside a longer base64 text, at each alignment', () => {
    for (const prefix of ['', 'a', 'ab', 'abc']) {
      const blob = Buffer.from(`${prefix}card=${PAN};`).toString('base64');
      expect(scrub.text(blob)).toContain(FILTERED);
    }
  });

  it('credentials in URL, form, JSON and HTML forms; a short CVV only as a whole token', () => {
    for (const form of ['sk_live_secret&key', 'sk_live_secret%26key', 'sk_live_secret&amp;key', Buffer.from('u:sk_live_secret&key').toString('base64')]) {
      expect(scrub.text(`x ${form} y`)).not.toContain(form);
    }
    expect(scrub.text('total 5310 and 1531')).toBe('total 5310 and 1531');
    expect(scrub.text('cvc=531')).toBe(`cvc=${FILTERED}`);
  });

  it('bytes: UTF-16 and UTF-8 forms, other bytes intact', () => {
    const raw = Buffer.concat([Buffer.from([0, 0xff]), Buffer.from(`n=${PAN}`, 'utf16le'), Buffer.from([0x80])]);
    const out = Scrubber.of([PAN]).bytes(raw);
    expect(out.includes(Buffer.from(PAN, 'utf16le'))).toBe(false);
    expect(out.subarray(0, 2).equals(Buffer.from([0, 0xff]))).toBe(true);
    expect(out.at(-1)).toBe(0x80);
  });

  it('deep: strings, integers and keys of nested values', () => {
    const value = scrub.deep({ a: [`x ${PAN}`, 4242424242424242, 7], [PAN]: { note: 'ok', n: 1718000000000 } });
    expect(value).toEqual({ a: [`x ${FILTERED}`, FILTERED, 7], [FILTERED]: { note: 'ok', n: 1718000000000 } });
  });
});

describe('card-like numbers (not this call’s)', () => {
  it('finds any Luhn-valid 12–19 digit number with separators', () => {
    for (const text of [OTHER_PAN, '5555 5555 5555 4444', '5555.5555.5555.4444', '5555-5555-5555-4444', '5555 / 5555 / 5555 / 4444', '5555\u00a05555\u00a05555\u00a04444', '3782 822463 10005', '6011-0009-9013-9424']) {
      expect(replaceCardLike(`card ${text}.`, FILTERED)).toBe(`card ${FILTERED}.`);
    }
  });

  it('finds a card inside a longer chain of groups', () => {
    expect(replaceCardLike('ref 77 5555 5555 5555 4444 12/34', FILTERED)).toBe(`ref 77 ${FILTERED} 12/34`);
    // A last group that runs into a word belongs to it; the card before it is still found.
    expect(replaceCardLike('5555 5555 5555 4444 2x', FILTERED)).toBe(`${FILTERED} 2x`);
  });

  it('leaves alone: Luhn failures, short runs, numbers starting with 0, epoch timestamps, ids, amounts, dates', () => {
    const kept = [
      '4242424242424241',
      '12345678901',
      '0000000000000000',
      '"time":1718000000000',
      'pi_3Pabc4242424242424242x',
      'a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6',
      'amount 1000.00 USD',
      '2024-06-10T12:30:45Z',
      '123456789012345678901234567890',
    ];
    for (const text of kept) expect(replaceCardLike(text, FILTERED)).toBe(text);
  });

  it('property: any Luhn-valid 16-digit number, grouped by any separators, is found', () => {
    const separator = fc.constantFrom(' ', '.', '-', '/', '\u00a0', '  ', ' - ', '');
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 15, maxLength: 15 }), fc.integer({ min: 2, max: 9 }), separator, (body, first, sep) => {
        const partial = `${first}${body.slice(1).join('')}`;
        const check = [...'0123456789'].find((digit) => luhn(partial + digit)) as string;
        const pan = partial + check;
        const grouped = (pan.match(/.{4}/g) as string[]).join(sep);
        expect(containsCardLike(`x ${grouped} y`)).toBe(true);
      }),
    );
  });
});

describe('Scrubber: a text is matched only against the values it may hold', () => {
  const values = [PAN, CVV, 'sk_live_secret&key', '000123456789'];
  const digitForms = (digit: string): string[] => [digit, String.fromCharCode(0xff10 + Number(digit)), `&#${digit.charCodeAt(0)};`, `&#x3${digit};`, `\\u003${digit}`, `%3${digit}`];
  /** One value written in a random mix of digit forms and separators, or one of its literal forms. */
  const written = (value: string) =>
    /^[0-9]+$/.test(value)
      ? fc.array(fc.tuple(fc.nat(5), fc.constantFrom('', '', ' ', '.', '-', '&nbsp;', '\u00a0', '%20')), { minLength: value.length, maxLength: value.length }).map((choices) =>
          [...value].map((digit, index) => `${digitForms(digit)[choices[index]?.[0] ?? 0]}${index < value.length - 1 ? (choices[index]?.[1] ?? '') : ''}`).join(''),
        )
      : fc.constantFrom(value, encodeURIComponent(value), value.replace('&', '&amp;'), Buffer.from(`u:${value}`).toString('base64'));
  const piece = fc.oneof(fc.constantFrom(...values).chain(written), fc.string({ maxLength: 12 }), fc.constantFrom('1', '42', '2024-11-24', '４２', 'cvc=', '&#', '%3', ' '));
  const text = fc.array(piece, { maxLength: 8 }).map((pieces) => pieces.join(''));

  it('scrubs exactly what the pattern of every value scrubs', () => {
    const scrubber = Scrubber.of(values);
    const everyValue = exactValuesPattern(values) as RegExp;
    const hidden = new HiddenValues(values.filter((value) => /^[0-9]+$/.test(value)));
    fc.assert(
      fc.property(text, (sample) => {
        const patterned = replaceCardLike(sample.replace(everyValue, FILTERED), FILTERED);
        // Then what only a projection or a decoding finds (hidden-values.ts), the same either way.
        expect(scrubber.text(sample)).toBe(replaceSpans(patterned, hidden.find(patterned), FILTERED));
      }),
      { numRuns: 3000 },
    );
  });

  it('never rules out a value whose pattern matches the text', () => {
    fc.assert(
      fc.property(fc.constantFrom(...values), text, (value, sample) => {
        const probe = valueProbe(value);
        if ((exactValuesPattern([value]) as RegExp).test(sample)) expect(mayHold(sample, probe, digitCharacters(sample, probe.digits))).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it('rules out the PAN in a text of fewer digits than it has and none of its literal forms', () => {
    const probe = valueProbe(PAN);
    for (const sample of ['Successful purchase', 'order 2024-11-24 #1234', 'cvc 531']) expect(mayHold(sample, probe, digitCharacters(sample, probe.digits))).toBe(false);
    const spread = '4 2 4 2 4 2 4 2 4 2 4 2 4 2 4 2';
    expect(mayHold(spread, probe, digitCharacters(spread, probe.digits))).toBe(true);
  });
});
