import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The Global Payments (Realex) XML API's request and response signatures: a SHA-1 hex digest of
 * the dot-joined fields, then a SHA-1 hex digest of that digest, a dot and the shared secret. Empty
 * fields keep their dot ("…orderid..." for a void), as Global Payments' "Request hash" pages show.
 */

function sha1Hex(text: string): string {
  return createHash('sha1').update(text, 'utf8').digest('hex');
}

/** `sha1hash` over `fields` (in the documented order) with the shared secret. */
export function realexHash(fields: ReadonlyArray<string | null | undefined>, sharedSecret: string): string {
  return sha1Hex(`${sha1Hex(fields.map((field) => field ?? '').join('.'))}.${sharedSecret}`);
}

/** `refundhash` of a rebate: the SHA-1 of the rebate password set in Global Payments' portal. */
export function refundHash(rebatePassword: string): string {
  return sha1Hex(rebatePassword);
}

/** A YYYYMMDDhhmmss timestamp (UTC) for the request's `timestamp` attribute. */
export function realexTimestamp(now: Date = new Date()): string {
  return now.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/** Whether `given` (the answer's sha1hash) is the hash of the answer's fields: compared in constant time. */
export function hashMatches(given: string, expected: string): boolean {
  const a = Buffer.from(given.toLowerCase(), 'utf8');
  const b = Buffer.from(expected, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}
