import { createHash, timingSafeEqual } from 'node:crypto';

const BEARER = /^Bearer +([\x21-\x7e]+) *$/i;

function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * Checks `Authorization: Bearer <token>` against the metrics token in constant time: both sides
 * are hashed first, so neither the comparison nor its length check says how much matched.
 * Anything else (no header, Basic credentials, another scheme) is refused.
 */
export function bearerChecker(token: string): (authorization: string | undefined) => boolean {
  const expected = digest(token);
  return (authorization) => {
    const match = authorization === undefined ? null : BEARER.exec(authorization);
    const matches = timingSafeEqual(digest(match?.[1] ?? ''), expected);
    return match !== null && matches;
  };
}
