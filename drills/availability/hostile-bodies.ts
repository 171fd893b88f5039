/**
 * The 1 MiB bodies of the CPU attack (docs/wire-compatibility.md, "Request body limits"): each
 * shape was the most expensive of its kind to decode or bound-check before the limits and the
 * one-pass decoders. Every body is built once per attack and sent as it is, over and over.
 */

export const ATTACK_BODY_BYTES = 1024 * 1024;

/** A body and the Content-Type it goes with. */
export interface HostileBody {
  contentType: string;
  bytes: Buffer;
}

/** Items `unit(0)`, `unit(1)`, … joined by `separator`, as many as fit in `room` characters. */
function fill(unit: (index: number) => string, separator: string, room: number): string {
  const parts: string[] = [];
  let used = 0;
  for (let index = 0; ; index += 1) {
    const part = unit(index);
    if (used + part.length + separator.length > room) break;
    parts.push(part);
    used += part.length + separator.length;
  }
  return parts.join(separator);
}

function json(text: string): HostileBody {
  return { contentType: 'application/json', bytes: Buffer.from(text) };
}

/** The shapes, by name. */
export const BODY_SHAPES = {
  /** Arrays inside arrays, half a million levels. */
  'json-deep': () => {
    const levels = (ATTACK_BODY_BYTES - 40) / 2;
    return json(`{"payment_method":{"data":${'['.repeat(levels)}${']'.repeat(levels)}}}`);
  },
  /** `{"payment_method":{"metadata":[1,1,1,…]}}`: half a million numbers. */
  'json-wide': () => json(`{"payment_method":{"metadata":[${fill(() => '1', ',', ATTACK_BODY_BYTES - 40)}]}}`),
  /** One object with some 90,000 keys. */
  'json-keys': () => json(`{"payment_method":{"metadata":{${fill((index) => `"k${index}":1`, ',', ATTACK_BODY_BYTES - 40)}}}}`),
  /** One element with some 95,000 attributes. */
  'xml-attributes': () => ({
    contentType: 'application/xml',
    bytes: Buffer.from(`<payment_method><metadata ${fill((index) => `a${index}="1"`, ' ', ATTACK_BODY_BYTES - 60)}/></payment_method>`),
  }),
  /** A form of some 48,000 fields. */
  form: () => ({ contentType: 'application/x-www-form-urlencoded', bytes: Buffer.from(fill((index) => `credit_card[f${index}]=1`, '&', ATTACK_BODY_BYTES)) }),
} as const satisfies Record<string, () => HostileBody>;

export type BodyShape = keyof typeof BODY_SHAPES;
