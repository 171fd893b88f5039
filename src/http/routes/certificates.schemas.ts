import { z } from 'zod';
import { CERTIFICATE_ALGORITHMS, DEFAULT_CERTIFICATE_ALGORITHM } from '../../certificates/certificate-request.js';
import { SUBJECT_MAX_LENGTH } from '../../certificates/subject.js';
import { CERTIFICATE_LEVELS } from '../../services/certificate.service.js';
import { text } from '../validation.js';

/** One of `values`, or absent (an unknown value is 422 `errors.inclusion`). */
function choice<T extends readonly [string, ...string[]]>(values: T) {
  return text(100).pipe(z.enum(values).optional());
}

/** A text field that must be present (absent or blank is 422 `errors.blank`). */
function required(max: number) {
  return text(max).pipe(z.string());
}

/** A chain of up to ten certificates fits comfortably; the body limit (1 MiB) bounds the rest. */
const PEM_MAX = 64 * 1024;
/** An RSA-8192 key in PKCS#1 PEM is about 6.5 KB. */
const PRIVATE_KEY_MAX = 16 * 1024;
/** ASCII only (the attribute is an IA5String) and shaped like an address. */
const EMAIL = /^[\x21-\x3f\x41-\x7e]+@[\x21-\x3f\x41-\x7e]+$/;

/** `POST certificates`: `pem` + `private_key` (+ `level`). */
export const uploadSchema = z.object({
  pem: required(PEM_MAX),
  private_key: required(PRIVATE_KEY_MAX),
  level: choice(CERTIFICATE_LEVELS),
});

/** `POST certificates/generate`: the subject of the CSR and the key algorithm. */
export const generateSchema = z.object({
  algorithm: choice(CERTIFICATE_ALGORITHMS).transform((value) => value ?? DEFAULT_CERTIFICATE_ALGORITHM),
  level: choice(CERTIFICATE_LEVELS),
  cn: required(SUBJECT_MAX_LENGTH.cn),
  o: text(SUBJECT_MAX_LENGTH.o),
  ou: text(SUBJECT_MAX_LENGTH.ou),
  c: text(SUBJECT_MAX_LENGTH.c),
  st: text(SUBJECT_MAX_LENGTH.st),
  l: text(SUBJECT_MAX_LENGTH.l),
  email_address: text(SUBJECT_MAX_LENGTH.email_address).pipe(z.string().regex(EMAIL).optional()),
});

/**
 * The fields a client actually gave: JSON null, "" and blank text mean "not given", as an empty
 * XML element does. Dropped before validation so that a required field sent as "" reports
 * `errors.blank` ("Cn can't be blank"), as it does when left out, rather than `errors.invalid`.
 */
export function givenFields(fields: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null && !(typeof value === 'string' && value.trim() === '')));
}

/** `PUT certificates/<token>`: the signed certificate. */
export const updateSchema = z.object({
  pem: required(PEM_MAX),
});
