import { z } from 'zod';
import { AppError, fieldError, humanize, type ErrorEntry } from '../domain/errors.js';
import { freeFormError } from './format/input-bounds.js';

function valueAt(input: unknown, path: readonly PropertyKey[]): unknown {
  let current = input;
  for (const step of path) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<PropertyKey, unknown>)[step];
  }
  return current;
}

/** Maps a Zod failure onto Spreedly-style field errors (`errors.blank`, `errors.too_long`, `errors.invalid`). */
function toFieldErrors(error: z.ZodError, input: unknown): ErrorEntry[] {
  return error.issues.map((issue) => {
    // Spreedly names the field itself ("month"), not its place ("credit_card.month").
    const attribute = String(issue.path.filter((step) => typeof step === 'string').at(-1) ?? 'base');
    if (issue.code === 'invalid_type' && absent(valueAt(input, issue.path))) return fieldError.blank(attribute);
    if (issue.code === 'too_big' && issue.origin === 'string') return fieldError.tooLong(attribute, Number(issue.maximum));
    if (issue.code === 'invalid_value') return fieldError.inclusion(attribute);
    // Our own refinements carry the rest of the sentence ("cannot have more than 1000 keys").
    if (issue.code === 'custom') return { key: 'errors.invalid', attribute, message: `${humanize(attribute)} ${issue.message}` };
    return fieldError.invalid(attribute);
  });
}

/** Validates decoded request fields; 422 with field errors when they do not fit. */
export function parseInput<S extends z.ZodType>(schema: S, fields: unknown): z.output<S> {
  const result = schema.safeParse(fields);
  if (!result.success) throw new AppError(toFieldErrors(result.error, fields));
  return result.data;
}

/*
 * Coercions shared by every schema: XML sends every value as text and JSON clients send
 * numbers or strings, so both spellings are accepted for scalars.
 */

/** JSON null and empty text mean "not given", as an empty XML element does. */
function absent(value: unknown): boolean {
  return value === null || value === undefined || (typeof value === 'string' && value.trim() === '');
}

/** An optional text field; numbers become text. */
export function text(max = 1000) {
  return z.preprocess((v) => (absent(v) ? undefined : typeof v === 'number' || typeof v === 'boolean' ? String(v) : v), z.string().max(max).optional());
}

/** An optional boolean given as true/false, "true"/"false", 1/0. */
export function flag() {
  return z.preprocess((v) => {
    if (absent(v)) return undefined;
    if (v === 'true' || v === '1' || v === 1) return true;
    if (v === 'false' || v === '0' || v === 0) return false;
    return v;
  }, z.boolean().optional());
}

/** An optional integer given as a number or as decimal text. */
export function integer() {
  return z.preprocess((v) => (absent(v) ? undefined : typeof v === 'string' && /^-?\d+$/.test(v.trim()) ? Number(v) : v), z.number().int().optional());
}

/**
 * An optional free-form value (`data`, `metadata`, `gateway_specific_fields`): anything JSON can
 * hold, within the size caps of docs/security.md, "Limits on input and templates" (its depth and characters are checked for every body).
 */
export function freeForm() {
  return z.unknown().superRefine((value, context) => {
    const problem = freeFormError(value);
    if (problem !== null) context.addIssue({ code: 'custom', message: problem });
  });
}
