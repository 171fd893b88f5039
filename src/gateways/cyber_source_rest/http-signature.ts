import { createHash, createHmac } from 'node:crypto';

/**
 * CyberSource's HTTP Signature authentication with a shared secret key (REST API, "HTTP Signature
 * Authentication"): every request carries `v-c-merchant-id`, `Date` (RFC 1123), `Host`, for a body
 * `Digest: SHA-256=<base64 of the body's SHA-256>`, and a `Signature` header whose `signature` is
 * the base64 HMAC-SHA256, under the base64-decoded shared secret, of the signing string: one
 * `name: value` line per signed header, in the order `headers` lists them, joined by "\n".
 */

export interface SigningInput {
  method: 'GET' | 'POST';
  /** The request path as sent (`/pts/v2/payments`). */
  path: string;
  /** The Host header as sent (`apitest.cybersource.com`, or an override's host:port). */
  host: string;
  /** RFC 1123 date, e.g. `Thu, 18 Jul 2019 00:18:03 GMT`. */
  date: string;
  merchantId: string;
  /** The key id of the shared secret key (Spreedly's `public_key`). */
  keyId: string;
  /** The shared secret key as the Business Center shows it, base64 (Spreedly's `private_key`). */
  sharedSecret: string;
  /** The exact body bytes sent; absent for GET (no digest is signed then). */
  body?: string;
}

/** `SHA-256=<base64>` of the body. */
export function bodyDigest(body: string): string {
  return `SHA-256=${createHash('sha256').update(body, 'utf8').digest('base64')}`;
}

/** The signed header names, in signing order: GET requests carry no digest. */
export function signedHeaderNames(hasBody: boolean): string[] {
  return hasBody ? ['host', 'date', 'request-target', 'digest', 'v-c-merchant-id'] : ['host', 'date', 'request-target', 'v-c-merchant-id'];
}

/** The headers of one signed request: the values the signature covers, and the signature itself. */
export function signedHeaders(input: SigningInput): Record<string, string> {
  const digest = input.body === undefined ? undefined : bodyDigest(input.body);
  const values: Record<string, string | undefined> = {
    host: input.host,
    date: input.date,
    'request-target': `${input.method.toLowerCase()} ${input.path}`,
    digest,
    'v-c-merchant-id': input.merchantId,
  };
  const names = signedHeaderNames(digest !== undefined);
  const signingString = names.map((name) => `${name}: ${values[name] ?? ''}`).join('\n');
  const signature = createHmac('sha256', Buffer.from(input.sharedSecret, 'base64')).update(signingString, 'utf8').digest('base64');
  return {
    'v-c-merchant-id': input.merchantId,
    date: input.date,
    host: input.host,
    ...(digest === undefined ? {} : { digest }),
    signature: `keyid="${input.keyId}", algorithm="HmacSHA256", headers="${names.join(' ')}", signature="${signature}"`,
  };
}
