import type { SignedRequest } from './signature.js';

/** The enhanced-security fields of a tokenization body (absent ones stay absent). */
export function signedFields(fields: Record<string, unknown>): Partial<SignedRequest> {
  const textOf = (value: unknown): string | undefined =>
    typeof value === 'string' ? value : typeof value === 'number' ? String(value) : undefined;
  const signed: Partial<SignedRequest> = {};
  const nonce = textOf(fields.nonce);
  const timestamp = textOf(fields.timestamp);
  const certificateToken = textOf(fields.certificate_token);
  const signature = textOf(fields.signature);
  if (nonce !== undefined) signed.nonce = nonce;
  if (timestamp !== undefined) signed.timestamp = timestamp;
  if (certificateToken !== undefined) signed.certificateToken = certificateToken;
  if (signature !== undefined) signed.signature = signature;
  return signed;
}
