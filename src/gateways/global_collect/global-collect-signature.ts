import { createHmac } from 'node:crypto';

/**
 * Worldline Connect's (GlobalCollect's) v1HMAC request signature ("Authentication" in the Connect
 * server API reference): HMAC-SHA256 under the secret API key of
 *
 *   <HTTP method>\n<Content-Type>\n<Date>\n<canonical X-GCS headers><path>\n
 *
 * where each `X-GCS-*` header is written `name:value\n` (name in lower case, value trimmed, inner
 * whitespace collapsed, headers sorted by name) and the path is the resource path with its query.
 * Sent as `Authorization: GCS v1HMAC:<API key id>:<Base64 signature>`.
 */
export function stringToSign(method: string, contentType: string, date: string, gcsHeaders: Readonly<Record<string, string>>, path: string): string {
  const canonical = Object.entries(gcsHeaders)
    .map(([name, value]) => [name.toLowerCase(), value.trim().replace(/\s+/g, ' ')] as const)
    .filter(([name]) => name.startsWith('x-gcs-'))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => `${name}:${value}\n`)
    .join('');
  return `${method.toUpperCase()}\n${contentType}\n${date}\n${canonical}${path}\n`;
}

/** The Authorization header value of one request. */
export function authorizationHeader(apiKeyId: string, secretApiKey: string, data: string): string {
  return `GCS v1HMAC:${apiKeyId}:${createHmac('sha256', secretApiKey).update(data, 'utf8').digest('base64')}`;
}
