/** ISO-8601 UTC at second precision, as Spreedly emits. */
export function wireTime(date: Date): string {
  return `${date.toISOString().slice(0, 19)}Z`;
}

const ZERO = 0x30;

/** The decimal number in `text[start, start + count)`, or -1 when one of those is no ASCII digit. */
function digitsAt(text: string, start: number, count: number): number {
  let out = 0;
  for (let index = start; index < start + count; index += 1) {
    const digit = text.charCodeAt(index) - ZERO;
    if (digit < 0 || digit > 9) return -1;
    out = out * 10 + digit;
  }
  return out;
}

function daysIn(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** Whether `text` has the separators of `YYYY-MM-DDTHH:MM:SS` where they belong. */
function hasSeparators(text: string): boolean {
  return text[4] === '-' && text[7] === '-' && text[10] === 'T' && text[13] === ':' && text[16] === ':';
}

/**
 * The wire text of `stored` when it is what `Date#toISOString` writes (`YYYY-MM-DDTHH:MM:SS.sssZ`,
 * or without the milliseconds) for a real instant: then the Date round trip only cuts the
 * milliseconds. Anything else (another offset, a 6-digit year, 24:00, 30 February, a space for the
 * T) gives null, and its caller takes the round trip.
 */
function canonicalWireText(stored: string): string | null {
  const length = stored.length;
  if (length !== 20 && length !== 24) return null;
  if (stored[length - 1] !== 'Z' || !hasSeparators(stored)) return null;
  if (length === 24 && (stored[19] !== '.' || digitsAt(stored, 20, 3) < 0)) return null;
  const year = digitsAt(stored, 0, 4);
  const month = digitsAt(stored, 5, 2);
  const day = digitsAt(stored, 8, 2);
  const hour = digitsAt(stored, 11, 2);
  const minute = digitsAt(stored, 14, 2);
  const second = digitsAt(stored, 17, 2);
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return null;
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) return null;
  return length === 20 ? stored : `${stored.slice(0, 19)}Z`;
}

/**
 * `wireTime(new Date(stored))`, without the Date when the stored text is canonical (every
 * timestamp Coffer writes is `toISOString()` output): a list page of 20 transactions formats 120
 * of them, and the parse and format cost more than writing the rest of the page. Other text takes
 * the round trip, so an odd value prints, or throws (RangeError, an invalid date), as before.
 */
export function storedWireTime(stored: string): string {
  return canonicalWireText(stored) ?? wireTime(new Date(stored));
}
