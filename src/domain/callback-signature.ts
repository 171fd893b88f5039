import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The two signatures of a callback (docs/events.md, "Verifying a callback").
 *
 * 1. Spreedly's `signed` element: the hex HMAC, under the environment's signing secret, of the
 *    values of the listed fields joined by `|`, each value as the text the payload carries (XML
 *    element text; in JSON the same: true/false, numbers in decimal, null as the empty string).
 * 2. The header `X-Coffer-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`.
 */

/** Coffer signs with SHA-256; the algorithm is named in every `signed` element, as Spreedly does. */
export const SIGNED_ALGORITHM = 'sha256';

/** A field's value as a receiver reads it back from the payload. */
export type SignedValue = string | number | boolean | null;

export function signedText(value: SignedValue): string {
  return value === null ? '' : String(value);
}

/** Spreedly's `signed` element for `values` (field → value as rendered), signing `fields` in order. */
export function signedElement(secret: string, fields: readonly string[], values: Record<string, SignedValue>): { signature: string; fields: string; algorithm: string } {
  const data = fields.map((field) => signedText(values[field] ?? null)).join('|');
  return { signature: createHmac(SIGNED_ALGORITHM, secret).update(data, 'utf8').digest('hex'), fields: fields.join(' '), algorithm: SIGNED_ALGORITHM };
}

/** The X-Coffer-Signature header of `body` sent at `unixSeconds`. */
export function headerSignature(secret: string, body: string, unixSeconds: number): string {
  const digest = createHmac('sha256', secret).update(`${unixSeconds}.${body}`, 'utf8').digest('hex');
  return `t=${unixSeconds},v1=${digest}`;
}

/** Checks an X-Coffer-Signature header (what a receiver does; used by Coffer's own tests and docs). */
export function verifyHeaderSignature(secret: string, body: string, header: string, nowSeconds: number, toleranceSeconds = 300): boolean {
  const parts = new Map(header.split(',').map((part) => part.split('=', 2) as [string, string]));
  const t = Number(parts.get('t'));
  const v1 = parts.get('v1') ?? '';
  if (!Number.isInteger(t) || Math.abs(nowSeconds - t) > toleranceSeconds) return false;
  const expected = Buffer.from(headerSignature(secret, body, t).split('v1=')[1] ?? '', 'hex');
  const given = Buffer.from(v1, 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
