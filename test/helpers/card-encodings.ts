import fc from 'fast-check';

/**
 * Ways a gateway or receiver may echo a card number or CVV that the scrubber must see through
 * (docs/security.md, "Scrubbing"), as fast-check arbitraries, with an independent way to read a
 * text back (reveal) that the tests use as their oracle: it shares no code with src/.
 */

export function luhnCheckDigit(partial: string): string {
  return [...'0123456789'].find((digit) => {
    const digits = partial + digit;
    let sum = 0;
    for (let index = 0; index < digits.length; index += 1) {
      let value = Number(digits[digits.length - 1 - index]);
      if (index % 2 === 1) value = value * 2 > 9 ? value * 2 - 9 : value * 2;
      sum += value;
    }
    return sum % 10 === 0;
  }) as string;
}

/** A Luhn-valid card number of 13 to 19 digits, starting 2–6 as brands do. */
export const panArbitrary = fc
  .tuple(fc.integer({ min: 2, max: 6 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 11, maxLength: 17 }))
  .map(([first, rest]) => {
    const partial = `${first}${rest.join('')}`;
    return partial + luhnCheckDigit(partial);
  });

export const cvvArbitrary = fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 3, maxLength: 4 }).map((digits) => `${2 + (digits[0] as number) % 8}${digits.slice(1).join('')}`);

/** First code points of sets of decimal digits in other scripts. */
const SCRIPT_ZEROS = [0x660, 0x6f0, 0x966, 0x9e6, 0xe50, 0xff10, 0x1d7ce, 0x1d7ec];

/** One digit, written in one of the forms a gateway or receiver was seen to echo (docs/security.md, "Scrubbing"). */
const digitForm = (digit: string): fc.Arbitrary<string> => {
  const code = digit.charCodeAt(0);
  const hex = code.toString(16);
  return fc.oneof(
    fc.constant(digit),
    fc.constantFrom(...SCRIPT_ZEROS).map((zero) => String.fromCodePoint(zero + Number(digit))),
    fc.constantFrom(`\\x${hex}`, `\\0${code.toString(8)}`, `\\${hex} `, `\\0000${hex}`, `&#${code}`, `&#${code};`, `&#x${hex}`, `%25${hex}`, `%2525${hex}`, `\\u00${hex}`),
  );
};

const SEPARATORS = ['', '', '', ' ', '\t', '\n', '\r\n', '_', ',', ':', '\u200b', '\u2060', '     ', ' \t ', '&nbsp;', '%2520', '&#8203;', '-', '.'];

/** The digits of `number`, each in some form, with some separator between any two. */
export function spelled(number: string): fc.Arbitrary<string> {
  return fc.tuple(fc.tuple(...[...number].map(digitForm)), fc.array(fc.constantFrom(...SEPARATORS), { minLength: number.length, maxLength: number.length })).map(([forms, separators]) =>
    forms
      .map((form, index) => {
        const separator = index < forms.length - 1 ? (separators[index] as string) : '';
        // Without its semicolon, `&#52` runs into a digit or hex letter after it (`&#524`), as it would in HTML.
        const closed = /^&#x?[0-9a-f]+$/i.test(form) && /^[0-9a-fA-F;]/.test(separator + (forms[index + 1] ?? ' ')) ? `${form};` : form;
        return closed + separator;
      })
      .join(''),
  );
}

const base64 = (text: string, alphabet: 'base64' | 'base64url' = 'base64'): string => Buffer.from(text, 'utf8').toString(alphabet);
const hex = (text: string): string => Buffer.from(text, 'utf8').toString('hex');

function base32(text: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of Buffer.from(text, 'utf8')) bits += byte.toString(2).padStart(8, '0');
  return (bits.match(/.{1,5}/g) ?? []).map((chunk) => alphabet[Number.parseInt(chunk.padEnd(5, '0'), 2)]).join('');
}

/** Wrapped every `width` characters by `wrap`. */
const wrapped = (text: string, width: number, wrap: string): string => (text.match(new RegExp(`.{1,${width}}`, 'g')) ?? []).join(wrap);

/** An outer encoding applied to an already spelled number, with its name. */
export interface Encoding {
  name: string;
  encode: (text: string) => string;
}

export const OUTER_ENCODINGS: Encoding[] = [
  { name: 'as is', encode: (text) => text },
  { name: 'hex', encode: hex },
  { name: 'HEX', encode: (text) => hex(text).toUpperCase() },
  { name: 'hex bytes apart', encode: (text) => wrapped(hex(text), 2, ' ') },
  { name: 'base64', encode: (text) => base64(text) },
  { name: 'base64url', encode: (text) => base64(text, 'base64url') },
  { name: 'base64 wrapped at 76 by CRLF', encode: (text) => wrapped(base64(text), 76, '\r\n') },
  { name: 'base64 wrapped at 8 by LF', encode: (text) => wrapped(base64(text), 8, '\n') },
  { name: 'base64 in groups of 4', encode: (text) => wrapped(base64(text), 4, ' ') },
  { name: 'base64 of base64', encode: (text) => base64(base64(text)) },
  { name: 'base64 of hex', encode: (text) => base64(hex(text)) },
];

/**
 * Encodings of the number written with ASCII digits and separators only: percent-encoding is read
 * as one layer over those, however many times it was applied (docs/security.md).
 */
export const ASCII_ONLY_ENCODINGS: Encoding[] = [
  { name: 'URL-encoded twice', encode: (text) => encodeURIComponent(encodeURIComponent(text)) },
  { name: 'URL-encoded three times', encode: (text) => encodeURIComponent(encodeURIComponent(encodeURIComponent(text))) },
];

/** The digits of `number` as they are, with some plain separator between any two. */
function separated(number: string): fc.Arbitrary<string> {
  const plain = SEPARATORS.filter((separator) => !/[&%]/.test(separator));
  return fc.array(fc.constantFrom(...plain), { minLength: number.length, maxLength: number.length }).map((separators) => [...number].map((digit, index) => digit + (index < number.length - 1 ? separators[index] : '')).join(''));
}

/** Encodings of the plain number only (what the scrubber promises for them, docs/security.md). */
export const PLAIN_ONLY_ENCODINGS: Encoding[] = [
  { name: 'base32', encode: base32 },
  { name: 'base32 lower case', encode: (text) => base32(text).toLowerCase() },
];

export const CVV_ENCODINGS: Encoding[] = [
  { name: 'base64', encode: (text) => base64(text) },
  { name: 'hex', encode: hex },
  { name: 'base64 of base64', encode: (text) => base64(base64(text)) },
  { name: 'base64 of "cvc=…"', encode: (text) => base64(`cvc=${text}`) },
];

/** A card number hidden: spelled in any forms, then in one outer encoding. */
export const hiddenPanArbitrary = panArbitrary.chain((pan) => hiddenFormsOf(pan).map((form) => ({ pan, ...form })));

export const hiddenCvvArbitrary = cvvArbitrary.chain((cvv) => fc.constantFrom(...CVV_ENCODINGS).map((outer) => ({ cvv, name: outer.name, encoded: outer.encode(cvv) })));

/** Plain words around the hidden value, none of them digits. */
export const wordsArbitrary = fc.array(fc.constantFrom('card', 'was', 'declined', 'reason', 'ref', 'echo', 'see', 'below', 'Payment', 'failed:'), { minLength: 1, maxLength: 4 }).map((words) => words.join(' '));

// ---- The oracle: read a text back as a person decoding it would, independently of src/.

const decimal = /\p{Nd}/gu;

/** Every decimal digit of any script as ASCII, everything else dropped. */
function digitsOf(text: string): string {
  return (text.match(decimal) ?? [])
    .map((digit) => {
      const code = digit.codePointAt(0) as number;
      let zero = code;
      while (/\p{Nd}/u.test(String.fromCodePoint(zero - 1)) && code - zero < 49) zero -= 1;
      return String((code - zero) % 10);
    })
    .join('');
}

/** Character escapes undone: HTML references, percent (repeatedly), backslash hex, octal, CSS, JSON. */
function unescaped(text: string): string {
  let out = text;
  for (let round = 0; round < 3; round += 1) out = out.replace(/%([0-9a-fA-F]{2})/g, (_match, code: string) => String.fromCharCode(Number.parseInt(code, 16)));
  return out
    .replace(/&nbsp;/g, ' ')
    .replace(/&#[xX]([0-9a-fA-F]+);?/g, (_match, code: string) => String.fromCodePoint(Math.min(0x10ffff, Number.parseInt(code, 16))))
    .replace(/&#([0-9]+);?/g, (_match, code: string) => String.fromCodePoint(Math.min(0x10ffff, Number(code))))
    .replace(/\\u([0-9a-fA-F]{4})/g, (_match, code: string) => String.fromCharCode(Number.parseInt(code, 16)))
    .replace(/\\x([0-9a-fA-F]{2})/g, (_match, code: string) => String.fromCharCode(Number.parseInt(code, 16)))
    .replace(/\\(0[67][0-7]|0?7[01]|0?6[0-7])/g, (_match, code: string) => String.fromCharCode(Number.parseInt(code, 8)))
    .replace(/\\([0-9a-fA-F]{1,6}) ?/g, (_match, code: string) => String.fromCodePoint(Math.min(0x10ffff, Number.parseInt(code, 16))));
}

/** Base64 (either alphabet) and hex decodings of the text without white space, at every alignment. */
function decodings(text: string): string[] {
  const joined = text.replace(/\s|\\[rnt]|[\u200b\u2060]/g, '');
  const out: string[] = [];
  for (const run of joined.match(/[A-Za-z0-9+/_-]{4,}/g) ?? []) {
    for (let align = 0; align < 4; align += 1) out.push(Buffer.from(run.slice(align), 'base64').toString('utf8'));
  }
  for (const run of joined.match(/[0-9a-fA-F]{6,}/g) ?? []) {
    for (let align = 0; align < 2; align += 1) out.push(Buffer.from(run.slice(align), 'hex').toString('utf8'));
  }
  return out;
}

/** True when `text` still shows `pan`: as digits, unescaped, or decoded up to twice. */
export function showsPan(text: string, pan: string): boolean {
  const readings = [text, unescaped(text)];
  for (const reading of [...readings]) for (const once of decodings(reading)) readings.push(once, unescaped(once), ...decodings(once));
  return readings.some((reading) => digitsOf(reading).includes(pan) || digitsOf(unescaped(reading)).includes(pan));
}

/** True when `text` still shows `cvv` as a whole token, plain or decoded up to twice. */
export function showsCvv(text: string, cvv: string): boolean {
  const token = new RegExp(`(?<![A-Za-z0-9])${cvv}(?![A-Za-z0-9])`);
  const readings = [text];
  for (const once of decodings(text)) readings.push(once, ...decodings(once));
  return readings.some((reading) => token.test(reading));
}

/** `count` hidden forms of a given card number, the same ones for the same seed. */
export function sampleHiddenForms(pan: string, count: number, seed: number): Array<{ name: string; encoded: string }> {
  return fc.sample(hiddenFormsOf(pan), { numRuns: count, seed });
}

/** The card number spelled in any forms, then in one outer encoding; or plain, in base32. */
function hiddenFormsOf(pan: string): fc.Arbitrary<{ name: string; encoded: string }> {
  return fc.oneof(
    { arbitrary: fc.tuple(spelled(pan), fc.constantFrom(...OUTER_ENCODINGS)).map(([text, outer]) => ({ name: outer.name, encoded: outer.encode(text) })), weight: 6 },
    { arbitrary: fc.tuple(separated(pan), fc.constantFrom(...ASCII_ONLY_ENCODINGS)).map(([text, outer]) => ({ name: outer.name, encoded: outer.encode(text) })), weight: 1 },
    { arbitrary: fc.constantFrom(...PLAIN_ONLY_ENCODINGS).map((outer) => ({ name: outer.name, encoded: outer.encode(pan) })), weight: 1 },
  );
}
