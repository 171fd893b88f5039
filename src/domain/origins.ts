/**
 * Web origins (scheme://host[:port]) as the card form and browser tokenization compare them:
 * exactly, after the URL parser's normalisation (lower-case host, default port dropped).
 */

/** The most origins one environment may list (a CSP header carries them all). */
export const MAX_ALLOWED_ORIGINS = 50;

/**
 * The canonical form of an http(s) origin, or null when `text` is not exactly one: a path,
 * query, fragment, credentials or a wildcard make it something else.
 */
export function normalizeOrigin(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return null;
  if (url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') return null;
  if (url.pathname !== '/') return null;
  return url.origin;
}

/** Whether `origin` may use the card form: listed exactly, or the list is empty. */
export function originAllowed(allowed: readonly string[], origin: string | null): boolean {
  if (allowed.length === 0) return true;
  if (origin === null) return false;
  const normalized = normalizeOrigin(origin);
  return normalized !== null && allowed.includes(normalized);
}
