import { storedWireTime } from './wire-time.js';

/**
 * The format-neutral response model. Views build a `Wire` tree with fields in the order the
 * wire reference gives; the JSON and XML encoders render the same tree, so both formats
 * always carry the same fields in the same order.
 *
 * - string, boolean, integer number, Date or `WireTime` (second-precision UTC), null → scalars;
 * - plain object → nested element / object (key order kept);
 * - `WireList` → a named list (XML: repeated `<itemName>` children; JSON: array);
 * - `WireMessage` → XML `<message key="…">text</message>`, JSON `message_key` + `message`.
 */
export type Wire = string | number | boolean | Date | WireTime | null | WireObject | WireList | WireMessage | WireErrors | Wire[];

export interface WireObject {
  [field: string]: Wire;
}

export class WireList {
  constructor(
    readonly itemName: string,
    readonly items: Wire[],
  ) {}
}

export class WireMessage {
  constructor(
    readonly key: string | null,
    readonly text: string | null,
  ) {}
}

/**
 * Validation errors nested in a resource: XML `<errors><error attribute=".." key="..">message</error></errors>`
 * (attribute style, as clients parse them), JSON `[{"attribute","key","message"}]`.
 */
export class WireErrors {
  constructor(readonly entries: ReadonlyArray<{ key: string; message: string; attribute?: string | undefined }>) {}
}

/**
 * A stored timestamp (ISO text) on the wire: printed as `wireTime(new Date(stored))` would print
 * it, but only when a response is encoded, and without the Date when the text is canonical (see
 * storedWireTime). Views of stored rows use it (`storedDate`); a Date still works anywhere.
 */
export class WireTime {
  constructor(readonly stored: string) {}

  /** The wire text; throws RangeError for text that is no date, as `Date#toISOString` does. */
  text(): string {
    return storedWireTime(this.stored);
  }

  /** The instant as a Date, parsed as the views parsed it before (for the portal's own format). */
  toDate(): Date {
    return new Date(this.stored);
  }
}

/** The response formats; selected by the path suffix. */
export type Format = 'json' | 'xml';
