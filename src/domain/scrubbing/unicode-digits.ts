/**
 * The value of any Unicode decimal digit (general category Nd: ASCII, Arabic-Indic, Devanagari,
 * full-width, mathematical digits, …), so a card number written in any script reads as the
 * ASCII digits it stands for (docs/security.md, "Scrubbing").
 *
 * Unicode encodes every set of decimal digits as contiguous code points in ascending order from
 * 0 (its stability policy guarantees it), so a digit's value is its distance from the first code
 * point of its run, modulo 10 (the mathematical digits are five sets of ten in one run).
 */

const DECIMAL_DIGIT = /^\p{Nd}$/u;

/**
 * What is known of each code point: 0 not yet looked up, -1 not a decimal digit, else its value
 * plus one. A fixed table (1.1 MB, made on first use), so text full of distinct characters
 * cannot grow it.
 */
let known: Int8Array | undefined;

function isDecimalDigit(codePoint: number): boolean {
  return DECIMAL_DIGIT.test(String.fromCodePoint(codePoint));
}

function lookUp(codePoint: number): number {
  if (!isDecimalDigit(codePoint)) return -1;
  let first = codePoint;
  while (isDecimalDigit(first - 1)) first -= 1;
  return (codePoint - first) % 10;
}

/** 0–9 for a decimal digit of any script, -1 for any other code point. */
export function decimalDigitValue(codePoint: number): number {
  if (codePoint >= 0x30 && codePoint <= 0x39) return codePoint - 0x30;
  // No script's digits come before Arabic-Indic (U+0660): most text is decided here.
  if (codePoint < 0x660) return -1;
  known ??= new Int8Array(0x110000);
  let entry = known[codePoint] as number;
  if (entry === 0) {
    const value = lookUp(codePoint);
    entry = value === -1 ? -1 : value + 1;
    known[codePoint] = entry;
  }
  return entry === -1 ? -1 : entry - 1;
}
