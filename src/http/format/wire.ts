/**
 * The format-neutral response model. Views build a `Wire` tree with fields in the order the
 * wire reference gives; the JSON and XML encoders render the same tree, so both formats
 * always carry the same fields in the same order.
 *
 * - string, boolean, integer number, Date (second-precision UTC), null → scalars;
 * - plain object → nested element / object (key order kept);
 * - `WireList` → a named list (XML: repeated `<itemName>` children; JSON: array);
 * - `WireMessage` → XML `<message key="…">text</message>`, JSON `message_key` + `message`.
 */
export type Wire = string | number | boolean | Date | null | WireObject | WireList | WireMessage | WireErrors | Wire[];

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

/** The response formats; selected by the path suffix. */
export type Format = 'json' | 'xml';
