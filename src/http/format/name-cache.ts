/** View names hold a digit or two (`address1`); a card number needs 12 or more. */
const MAX_CACHED_DIGITS = 3;

/** How many names a cache keeps before it starts over. */
const NAME_LIMIT = 4096;

const DIGIT = /\p{Nd}/u;

/**
 * Whether `text` has more than `max` digits. Digits of any script count: full-width ones write a
 * card number as well as ASCII ones. ASCII is told by its code, the rest by the pattern, and it
 * stops at the first digit too many: names from stored data (up to 1,000 a record) miss the
 * cache on every page, and a pattern test per character cost ~5 µs a name.
 */
function moreDigitsThan(text: string, max: number): boolean {
  let count = 0;
  for (let index = 0; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    let digit: boolean;
    if (code < 0x80) digit = code >= 0x30 && code <= 0x39;
    else {
      const point = text.codePointAt(index) as number;
      if (point > 0xffff) index += 1;
      digit = DIGIT.test(String.fromCodePoint(point));
    }
    if (digit) {
      count += 1;
      if (count > max) return true;
    }
  }
  return false;
}

/**
 * What a response writer makes of a field name once (the JSON writer's quoted `"name":`, the XML
 * writer's tags), by name. Views repeat the same few hundred names on every row, and making them
 * again cost more than the values. Names from stored data (metadata, gateway fields) are
 * unbounded: the cache starts over when full, and a name with enough digits to be part of a card
 * number (MAX_CACHED_DIGITS) is never kept: merchant data must not outlive its request in memory.
 * Checked on a miss only.
 */
export class NameCache<T> {
  private readonly made = new Map<string, T>();

  constructor(private readonly make: (name: string) => T) {}

  get(name: string): T {
    let value = this.made.get(name);
    if (value === undefined) {
      value = this.make(name);
      if (!moreDigitsThan(name, MAX_CACHED_DIGITS)) {
        if (this.made.size >= NAME_LIMIT) this.made.clear();
        this.made.set(name, value);
      }
    }
    return value;
  }

  /** Test seam: whether `name` is kept across encodes. */
  has(name: string): boolean {
    return this.made.has(name);
  }
}
