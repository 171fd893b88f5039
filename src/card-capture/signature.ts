import crypto from 'node:crypto';

/**
 * Enhanced iFrame security as Spreedly documents it: the merchant's server signs
 * `nonce + timestamp + certificate_token` with the private key of a certificate it uploaded,
 * as HMAC-SHA256 keyed with the key's PEM text, base64-encoded. Spreedly's first reference
 * scripts signed the same text with the key itself (RSA/ECDSA over SHA-256): both are accepted.
 */

/** How old a signed timestamp may be, in seconds (and how far ahead a clock may run: 60 s). */
export const SIGNATURE_MAX_AGE_SECONDS = 600;
export const SIGNATURE_MAX_SKEW_SECONDS = 60;

/** What the merchant's server produced for one tokenization. */
export interface SignedRequest {
  nonce: string;
  timestamp: string;
  certificateToken: string;
  signature: string;
}

/** The text that is signed. */
export function signedText(request: Pick<SignedRequest, 'nonce' | 'timestamp' | 'certificateToken'>): string {
  return `${request.nonce}${request.timestamp}${request.certificateToken}`;
}

/**
 * Whether a timestamp is spelled the one way a merchant's server spells Unix seconds: exactly 10
 * ASCII digits, nothing around them. The signed text is the bare concatenation
 * `nonce + timestamp + certificate_token` (docs/card-capture.md), so any other spelling lets
 * characters move across the nonce/timestamp boundary without changing the text: a leading `0`
 * taken from the end of a spent nonce (`abc0` + `1700000000` = `abc` + `01700000000`) would sign
 * a "new" nonce, and so would a sign or a space. With the timestamp's length fixed (10 digits
 * until the year 2286) and the certificate token known, the text splits one way only.
 */
export function isCanonicalTimestamp(timestamp: string): boolean {
  return /^[0-9]{10}$/.test(timestamp);
}

/** Unix seconds of a canonical timestamp that is fresh at `now`, or null (malformed, stale or in the future). */
export function freshTimestamp(timestamp: string, now: Date): number | null {
  if (!isCanonicalTimestamp(timestamp)) return null;
  const seconds = Number(timestamp);
  const age = now.getTime() / 1000 - seconds;
  return age <= SIGNATURE_MAX_AGE_SECONDS && age >= -SIGNATURE_MAX_SKEW_SECONDS ? seconds : null;
}

/**
 * The PEM spellings a merchant may have keyed the HMAC with: the key as stored (PKCS#8) and in
 * its traditional form (PKCS#1 for RSA, SEC1 for EC), each with and without the final newline
 * (`$(cat key.pem)` drops it).
 */
function hmacKeys(privateKeyPem: string): string[] {
  const spellings = [privateKeyPem];
  try {
    const key = crypto.createPrivateKey(privateKeyPem);
    const traditional = key.asymmetricKeyType === 'rsa' ? 'pkcs1' : key.asymmetricKeyType === 'ec' ? 'sec1' : null;
    if (traditional !== null) spellings.push(key.export({ type: traditional, format: 'pem' }).toString());
  } catch {
    // An unreadable key only leaves the stored spelling.
  }
  return [...new Set(spellings.flatMap((pem) => [pem.trimEnd(), `${pem.trimEnd()}\n`]))];
}

function decodeSignature(signature: string): Buffer | null {
  const compact = signature.trim().replace(/-/g, '+').replace(/_/g, '/');
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(compact)) return null;
  return Buffer.from(compact, 'base64');
}

/** Whether `signature` signs `text` under the certificate's key (constant-time for the HMAC). */
export function signatureMatches(text: string, signature: string, keys: { privateKeyPem: string; publicKeyPem: string }): boolean {
  const given = decodeSignature(signature);
  if (given === null || given.length === 0) return false;
  let matched = false;
  for (const key of hmacKeys(keys.privateKeyPem)) {
    const expected = crypto.createHmac('sha256', key).update(text, 'utf8').digest();
    if (expected.length === given.length && crypto.timingSafeEqual(expected, given)) matched = true;
  }
  if (matched) return true;
  try {
    return crypto.verify('sha256', Buffer.from(text, 'utf8'), keys.publicKeyPem, given);
  } catch {
    return false;
  }
}
