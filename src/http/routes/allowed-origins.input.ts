import { AppError, fieldError } from '../../domain/errors.js';
import { MAX_ALLOWED_ORIGINS, normalizeOrigin } from '../../domain/origins.js';

/**
 * `allowed_origins` of `PUT environments/<key>`: a JSON array, an XML list
 * (`<allowed_origins><allowed_origin>…</allowed_origin></allowed_origins>`) or one text with
 * origins separated by spaces or commas. `[]` or "" clears the list (any origin); absent or
 * null leaves it as it is. Each entry must be exactly an http(s) origin.
 */
export function parseAllowedOriginsInput(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  const entries = listOf(value);
  if (entries === null) throw new AppError(fieldError.invalid('allowed_origins'));
  const origins: string[] = [];
  for (const entry of entries) {
    const origin = normalizeOrigin(entry);
    if (origin === null) throw new AppError({ ...fieldError.invalid('allowed_origins'), message: 'Allowed origins must be http(s) origins such as https://shop.example (no path).' });
    if (!origins.includes(origin)) origins.push(origin);
  }
  if (origins.length > MAX_ALLOWED_ORIGINS) {
    throw new AppError({ ...fieldError.tooLong('allowed_origins', MAX_ALLOWED_ORIGINS), message: `Allowed origins is too long (maximum is ${MAX_ALLOWED_ORIGINS} origins)` });
  }
  return origins;
}

function listOf(value: unknown): string[] | null {
  if (typeof value === 'string') return value.split(/[\s,]+/).filter((part) => part !== '');
  if (Array.isArray(value)) return value.every((item) => typeof item === 'string') ? (value as string[]) : null;
  // XML: the list element holds one child name, once (text) or repeated (array).
  if (typeof value === 'object') {
    const children = Object.values(value as Record<string, unknown>);
    if (children.length === 0) return [];
    if (children.length === 1) return listOf(children[0]);
  }
  return null;
}
