import type { FastifyReply, FastifyRequest } from 'fastify';

/** The session cookie: HttpOnly, Secure, SameSite=Strict, scoped to the portal. */
export const SESSION_COOKIE = 'coffer_session';
/** The sign-in form's double-submit token (there is no session yet to hold one). */
export const SIGN_IN_COOKIE = 'coffer_sign_in';

/** The value of one cookie of the request, or null. */
export function cookieOf(request: FastifyRequest, name: string): string | null {
  const header = request.headers.cookie;
  if (header === undefined) return null;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at === -1) continue;
    if (part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return null;
}

/** Sets a portal cookie; `maxAgeSeconds` 0 deletes it. Values are base64url, never quoted. */
export function setCookie(reply: FastifyReply, name: string, value: string, maxAgeSeconds: number | null): void {
  const parts = [`${name}=${value}`, 'Path=/portal', 'HttpOnly', 'Secure', 'SameSite=Strict'];
  if (maxAgeSeconds !== null) parts.push(`Max-Age=${maxAgeSeconds}`);
  // Fastify appends Set-Cookie values instead of replacing them.
  reply.header('Set-Cookie', parts.join('; '));
}
