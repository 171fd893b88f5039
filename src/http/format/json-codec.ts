import { AppError } from '../../domain/errors.js';
import { reportableName } from './input-bounds.js';
import { readJson, JsonSyntaxError, type JsonDocument } from './json-decoder.js';

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

/**
 * Parses a JSON request body and checks its fields' bounds (input-bounds.ts) in the same pass
 * (json-decoder.ts); prototype-polluting keys are dropped. A malformed body is reported before a
 * broken bound.
 */
export function decodeJson(text: string): DecodedBody {
  let document: JsonDocument;
  try {
    document = readJson(text);
  } catch (error) {
    if (error instanceof JsonSyntaxError) throw malformed('invalid JSON');
    throw error;
  }
  const body = requestBodyOf(document.value);
  if (document.fault !== null) throw document.fault;
  return body;
}

/** The root key as an error names it: quoted when it reads as a field name, never when it could be anything sent. */
function rootNamed(root: string): string {
  const name = reportableName(root);
  return name === root ? `"${root}"` : "the root key's value";
}

/** A decoded JSON document as a request body: one root key over an object (or null), or none at all. */
export function requestBodyOf(parsed: unknown): DecodedBody {
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw malformed('expected a JSON object');
  const keys = Object.keys(parsed);
  if (keys.length === 0) return { root: null, fields: {} };
  if (keys.length !== 1) throw malformed('expected exactly one root key');
  const root = keys[0] as string;
  const inner = (parsed as Record<string, unknown>)[root];
  if (inner === null) return { root, fields: {} };
  if (typeof inner !== 'object' || Array.isArray(inner)) throw malformed(`${rootNamed(root)} must be an object`);
  return { root, fields: inner as Record<string, unknown> };
}
