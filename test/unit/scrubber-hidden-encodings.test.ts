import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FILTERED, Scrubber } from '../../src/domain/scrubbing/scrubber.js';
import { hiddenCvvArbitrary, hiddenPanArbitrary, showsCvv, showsPan, wordsArbitrary } from '../helpers/card-encodings.js';

/**
 * This call's card number and CVV in the encodings only a projection or a decoding finds
 * (docs/security.md, "Scrubbing"): each form once found stored in clear, then generated
 * mixes of them, read back by an oracle that shares no code with the scrubber.
 */

const PAN = '4242424242424242';
const CVV = '531';
const scrub = Scrubber.of([PAN, CVV, 'sk_live_secretkey123']);
const groups = (separator: string): string => (PAN.match(/.{4}/g) as string[]).join(separator);
const each = (form: (digit: string) => string): string => [...PAN].map(form).join('');
const base64 = (text: string): string => Buffer.from(text).toString('base64');
const hex = (text: string): string => Buffer.from(text).toString('hex');

describe('Scrubber: the forms found stored in clear', () => {
  const forms: Array<[string, string]> = [
    ['tab', groups('\t')],
    ['line feed', groups('\n')],
    ['CRLF', groups('\r\n')],
    ['underscore', groups('_')],
    ['comma', groups(',')],
    ['colon', groups(':')],
    ['zero-width spaces', [...PAN].join('\u200b')],
    ['five spaces', groups('     ')],
    ['Arabic-Indic digits', each((digit) => String.fromCharCode(0x660 + Number(digit)))],
    ['Devanagari digits', each((digit) => String.fromCharCode(0x966 + Number(digit)))],
    ['mathematical bold digits', each((digit) => String.fromCodePoint(0x1d7ce + Number(digit)))],
    ['hex-encoded ASCII', hex(PAN)],
    ['hex-encoded ASCII, upper case', hex(PAN).toUpperCase()],
    ['base32', 'GQZDIMRUGI2DENBSGQZDIMRUGI2DENBS'],
    ['\\x escapes', each((digit) => `\\x3${digit}`)],
    ['octal escapes', each((digit) => `\\0${(0x30 + Number(digit)).toString(8)}`)],
    ['CSS escapes', each((digit) => `\\3${digit} `)],
    ['CSS escapes of six digits', each((digit) => `\\00003${digit}`)],
    ['&#52 without the semicolon', groups(' ').replace(/[0-9]/g, (digit) => `&#${digit.charCodeAt(0)}`)],
    ['base64 broken by a line wrap', `${base64(PAN).slice(0, 10)}\n${base64(PAN).slice(10)}`],
    ['base64 broken by spaces', (base64(PAN).match(/.{1,4}/g) as string[]).join(' ')],
    ['base64 line-wrapped inside a JSON string', JSON.stringify(`${base64(PAN).slice(0, 10)}\n${base64(PAN).slice(10)}`)],
    ['base64 of base64', base64(base64(PAN))],
    ['URL-encoded twice', encodeURIComponent(encodeURIComponent(groups(' ')))],
  ];

  it.each(forms)('%s', (_name, form) => {
    const text = scrub.text(`before ${form} after`);
    expect(text).toContain(FILTERED);
    expect(text.startsWith('before ')).toBe(true);
    expect(text.endsWith(' after') || text.endsWith('after')).toBe(true);
    expect(showsPan(text, PAN), text).toBe(false);
  });

  it.each([
    ['base64', `cvc ${base64(CVV)}`],
    ['hex', `cvc ${hex(CVV)}`],
    ['base64 of base64', `cvc ${base64(base64(CVV))}`],
  ])('the CVV in %s', (_name, form) => {
    const text = scrub.text(form);
    expect(text).toBe(`cvc ${FILTERED}`);
  });

  it('keeps ordinary text, numbers that are not this call’s, and words that merely decode', () => {
    for (const text of ['Transaction approved', 'order 1234 at 12:30:45, total 100.00', 'id 7f3a9c2e-5b1d', 'total 5310 and 1531', 'MTIzNDU2', 'deadbeef cafe', 'ref\t4242\t4242']) {
      expect(scrub.text(text)).toBe(text);
    }
  });

  it('bytes: a base64 body wrapped by lines', () => {
    const body = Buffer.from(`{"echo":"${(base64(`card=${PAN}`).match(/.{1,8}/g) as string[]).join('\\n')}"}`);
    const out = scrub.bytes(body).toString('latin1');
    expect(out).toContain(FILTERED);
    expect(showsPan(out, PAN)).toBe(false);
  });
});

describe('Scrubber: property, generated encodings', () => {
  it('no card number survives, in any mix of digit forms and separators, in any outer encoding', () => {
    fc.assert(
      fc.property(hiddenPanArbitrary, wordsArbitrary, wordsArbitrary, ({ pan, name, encoded }, before, after) => {
        const text = Scrubber.of([pan, '123']).text(`${before} ${encoded} ${after}`);
        expect(showsPan(text, pan), `${name}: ${JSON.stringify(encoded)} → ${JSON.stringify(text)}`).toBe(false);
        expect(text.startsWith(`${before} `), name).toBe(true);
      }),
      { numRuns: 600 },
    );
  });

  it('no CVV survives in base64, hex or base64 of base64', () => {
    fc.assert(
      fc.property(hiddenCvvArbitrary, wordsArbitrary, ({ cvv, name, encoded }, before) => {
        const text = Scrubber.of(['4242424242424242', cvv]).text(`${before} ${encoded}`);
        expect(showsCvv(text, cvv), `${name}: ${encoded} → ${text}`).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
});
