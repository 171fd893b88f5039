import { createHmac } from 'node:crypto';

/**
 * Commerce Hub's HMAC request signature ("Generate Authentication Header", Commerce Hub developer
 * docs): HMAC-SHA256 under the API secret of `Api-Key + Client-Request-Id + Timestamp + body`,
 * concatenated without separators, sent Base64-encoded in `Authorization` with
 * `Auth-Token-Type: HMAC`. The digest's raw bytes are Base64-encoded, as ActiveMerchant's adapter
 * (in production through Spreedly) does; see docs/gateways/commerce_hub.md for the docs' example
 * that encodes the hex text instead.
 */
export function commerceHubSignature(apiSecret: string, apiKey: string, clientRequestId: string, timestamp: string, body: string): string {
  return createHmac('sha256', apiSecret).update(`${apiKey}${clientRequestId}${timestamp}${body}`, 'utf8').digest('base64');
}
