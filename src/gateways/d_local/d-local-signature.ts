import { createHmac, timingSafeEqual } from 'node:crypto';

/** The signature scheme dLocal's Payins API documents: version prefix, then the hex HMAC. */
export const SIGNATURE_PREFIX = 'V2-HMAC-SHA256, Signature: ';

/** Hex HMAC-SHA256 under the secret key of X-Login + X-Date + body (no separators), as dLocal signs. */
export function dLocalSignature(secretKey: string, login: string, date: string, body: string): string {
  return createHmac('sha256', secretKey).update(`${login}${date}${body}`, 'utf8').digest('hex');
}

/** The Authorization header value of a request. */
export function authorizationHeader(secretKey: string, login: string, date: string, body: string): string {
  return `${SIGNATURE_PREFIX}${dLocalSignature(secretKey, login, date, body)}`;
}

/**
 * Whether a signed message (a notification, or an answer that carries `Authorization` and `X-Date`)
 * was signed with this secret key: constant-time comparison of the hex signatures.
 */
export function signatureMatches(secretKey: string, login: string, date: string, body: string, authorization: string): boolean {
  const given = /^V2-HMAC-SHA256,\s*Signature:\s*([0-9a-fA-F]{64})\s*$/.exec(authorization)?.[1]?.toLowerCase();
  if (given === undefined) return false;
  const expected = dLocalSignature(secretKey, login, date, body);
  return timingSafeEqual(Buffer.from(given, 'utf8'), Buffer.from(expected, 'utf8'));
}
