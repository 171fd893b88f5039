import { replaceCardLike } from './card-like.js';
import { ExactMatcher } from './exact-matcher.js';
import { digitCharacters, exactValuesPattern, literalForms, mayHold, valueProbe, type ValueProbe } from './exact-values.js';
import { HiddenValues } from './hidden-values.js';
import { replaceSpans } from './spans.js';

/** Each value's probe, and the most digits any of them needs a text to hold. */
function probesOf(values: readonly string[]): { each: ValueProbe[]; mostDigits: number } {
  const each = values.map(valueProbe);
  return { each, mostDigits: Math.max(0, ...each.map((probe) => probe.digits)) };
}

/** What replaces a sensitive value. */
export const FILTERED = '[FILTERED]';

/**
 * The one scrubber every value from a gateway or a receiver passes through before it is stored
 * or returned (messages, `response.*`, `gateway_specific_response_fields`, headers, bodies,
 * transcripts). It knows the exact sensitive values of its call (exact-values.ts) and finds any
 * other card-like number (card-like.ts). Built per call; cheap to apply.
 */
export class Scrubber {
  // Built on first use (building both per call was 4 % of a purchase, and most calls
  // never scrub bytes).
  private exactBytes: RegExp | null | undefined;
  /**
   * Matchers by the values a text may hold, built on first need (most texts of a call, a
   * message or an id, cannot hold any of them). A matcher of only the values a text may hold
   * replaces exactly what one of all of them would: the others cannot match anywhere in that
   * text. Text is matched without a regex of the values (exact-matcher.ts): compiling one for
   * each new card number cost a gateway call 0.5 ms or more.
   */
  private probes: { each: ValueProbe[]; mostDigits: number } | undefined;
  private readonly exactTexts = new Map<string, ExactMatcher>();
  /** This call's numbers where the patterns cannot see them (hidden-values.ts); built on first use. */
  private hiddenNumbers: HiddenValues | null | undefined;

  private constructor(readonly values: readonly string[]) {}

  /** The matcher of the values `text` may hold; null when it can hold none. */
  private exactFor(text: string): ExactMatcher | null {
    if (this.values.length === 0) return null;
    this.probes ??= probesOf(this.values);
    const { each, mostDigits } = this.probes;
    const digits = digitCharacters(text, mostDigits);
    const candidates: string[] = [];
    let key = '';
    each.forEach((probe, index) => {
      if (!mayHold(text, probe, digits)) return;
      candidates.push(this.values[index] as string);
      key += `${index},`;
    });
    if (candidates.length === 0) return null;
    let matcher = this.exactTexts.get(key);
    if (matcher === undefined) {
      // The probes already hold each value's literal forms: they are not computed again.
      const literals = new Map(this.values.map((value, index) => [value, (each[index] as ValueProbe).literals]));
      matcher = new ExactMatcher(candidates, (value) => literals.get(value) ?? literalForms(value));
      this.exactTexts.set(key, matcher);
    }
    return matcher;
  }

  private get hidden(): HiddenValues | null {
    if (this.hiddenNumbers === undefined) {
      const numbers = [...new Set(this.values.filter((value) => /^[0-9]+$/.test(value)))];
      this.hiddenNumbers = numbers.length === 0 ? null : new HiddenValues(numbers);
    }
    return this.hiddenNumbers;
  }

  /** `text` without this call's numbers in the encodings only a decoding or projection finds. */
  private withoutHidden(text: string, bytes = false): string {
    const hidden = this.hidden;
    if (hidden === null) return text;
    const spans = hidden.find(text, bytes);
    return spans.length === 0 ? text : replaceSpans(text, spans, FILTERED);
  }

  private get exactBinary(): RegExp | null {
    if (this.exactBytes === undefined) this.exactBytes = exactValuesPattern(this.values, true);
    return this.exactBytes;
  }

  /** A scrubber for these values (null, undefined and empty ones are ignored). */
  static of(values: Iterable<string | null | undefined>): Scrubber {
    return new Scrubber([...values].filter((value): value is string => typeof value === 'string' && value !== ''));
  }

  /** Card-like numbers only: for text with no call behind it (a request id, a path token). */
  static readonly cardsOnly = Scrubber.of([]);

  /** The same scrubber knowing more values. */
  with(values: Iterable<string | null | undefined>): Scrubber {
    return Scrubber.of([...this.values, ...values]);
  }

  text(text: string): string {
    const spans = this.exactFor(text)?.spans(text) ?? [];
    const exact = spans.length === 0 ? text : replaceSpans(text, spans, FILTERED);
    return this.withoutHidden(replaceCardLike(exact, FILTERED));
  }

  /** True when scrubbing would change `text`. */
  finds(text: string): boolean {
    return this.text(text) !== text;
  }

  /**
   * Bytes of unknown encoding, scanned through their latin1 view so every other byte survives:
   * exact values in UTF-8, UTF-16 and base64, and ASCII card-like numbers.
   */
  bytes(raw: Buffer): Buffer {
    const view = raw.toString('latin1');
    const exact = this.exactBinary === null ? view : view.replace(this.exactBinary, FILTERED);
    const scrubbed = this.withoutHidden(replaceCardLike(exact, FILTERED), true);
    return scrubbed === view ? raw : Buffer.from(scrubbed, 'latin1');
  }

  /** Every string and integer in a JSON-like value (object keys included), scrubbed; other values kept. */
  deep<T>(value: T): T {
    if (typeof value === 'string') return this.text(value) as T;
    // A number can carry a card too (`"card": 4242424242424242`).
    if (typeof value === 'number' && Number.isInteger(value)) return (this.finds(String(value)) ? FILTERED : value) as T;
    if (Array.isArray(value)) return value.map((item: unknown) => this.deep(item)) as T;
    if (value !== null && typeof value === 'object') {
      return Object.fromEntries(Object.entries(value as Record<string, unknown>).map(([key, item]) => [this.text(key), this.deep(item)])) as T;
    }
    return value;
  }
}
