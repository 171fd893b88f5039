import { x509 } from './x509.js';

/** The subject fields of a certificate or request, as the API names them (wire-reference §3.5). */
export interface CertificateSubject {
  cn: string | null;
  o: string | null;
  ou: string | null;
  c: string | null;
  st: string | null;
  l: string | null;
  email_address: string | null;
}

export type SubjectField = keyof CertificateSubject;

/** Each API field with its X.520 / PKCS#9 attribute OID, in the order a subject is written. */
export const SUBJECT_ATTRIBUTES: ReadonlyArray<readonly [SubjectField, string]> = [
  ['c', '2.5.4.6'],
  ['st', '2.5.4.8'],
  ['l', '2.5.4.7'],
  ['o', '2.5.4.10'],
  ['ou', '2.5.4.11'],
  ['cn', '2.5.4.3'],
  ['email_address', '1.2.840.113549.1.9.1'],
];

/**
 * Upper bounds of RFC 5280 (appendix A, `ub-*`); CAs refuse longer values, so Coffer does too.
 * `c` is not held to its two letters: Spreedly's own example sends "United States".
 */
export const SUBJECT_MAX_LENGTH: Record<SubjectField, number> = {
  cn: 64,
  o: 64,
  ou: 64,
  c: 64,
  st: 128,
  l: 128,
  email_address: 255,
};

/**
 * The subject as an X.509 Name. String types are chosen here, never by the library's text
 * parser (which would read a leading `#` as hex or strip quotes): PrintableString where the
 * value allows it (what CAs expect of a country), UTF8String otherwise, IA5String for the email.
 */
export function subjectName(subject: CertificateSubject): x509.Name {
  const rdns: x509.JsonNameParams = [];
  for (const [field, oid] of SUBJECT_ATTRIBUTES) {
    const value = subject[field];
    if (value === null) continue;
    if (field === 'email_address') rdns.push({ [oid]: [{ ia5String: value }] });
    else if (x509.Name.isPrintableString(value)) rdns.push({ [oid]: [{ printableString: value }] });
    else rdns.push({ [oid]: [{ utf8String: value }] });
  }
  return new x509.Name(rdns);
}

/** The API's subject fields of a Name; a repeated attribute (two OUs) is joined with ", ". */
export function subjectOf(name: x509.Name): CertificateSubject {
  const out: CertificateSubject = { cn: null, o: null, ou: null, c: null, st: null, l: null, email_address: null };
  for (const [field, oid] of SUBJECT_ATTRIBUTES) {
    const values = name.getField(oid);
    if (values.length > 0) out[field] = values.join(', ');
  }
  return out;
}
