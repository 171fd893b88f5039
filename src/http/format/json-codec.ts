import { AppError } from '../../domain/errors.js';

// The response writer has its own module; its callers import it from here, with the reader.
export { encodeJson, encodeJsonValue, memberNameCached } from './json-writer.js';
export { wireTime } from './wire-time.js';

/** Result of decoding a request body: its root name and the fields under it. */
export interface DecodedBody {
  root: string | null;
  fields: Record<string, unknown>;
  /**
   * XML only: names of the root's child elements (and of its children's children, as
   * `credit_card.first_name`) that were sent empty. `fields` leaves them out (an empty element
   * is "absent" for almost every field); the few fields where empty means "blank it" read this.
   */
  emptyElements?: string[];
}

function malformed(detail: string): AppError {
  return new AppError({ key: 'errors.malformed_request', message: `The request body could not be parsed: ${detail}.` });
}

/** Parses a JSON request body; prototype-polluting keys are dropped. */
export function decodeJson(text: string): DecodedBody {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text, (key, value: unknown) => (key === '__proto__' ? undefined : value));
  } catch {
    throw malformed('invalid JSON');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw malformed('expected a JSON object');
  const keys = Object.keys(parsed);
  if (keys.length === 0) return { root: null, fields: {} };
  if (keys.length !== 1) throw malformed('expected exactly one root key');
  const root = keys[0] as string;
  const inner = (parsed as Record<string, unknown>)[root];
  if (inner === null) return { root, fields: {} };
  if (typeof inner !== 'object' || Array.isArray(inner)) throw malformed(`"${root}" must be an object`);
  return { root, fields: inner as Record<string, unknown> };
}
