import { createHash } from 'node:crypto';

/**
 * Nuvei's REST API 1.0 request checksum: the hex SHA-256 of the values of named request fields,
 * concatenated in the order the API reference gives for each method, then the merchant secret key.
 * A field the request does not carry contributes nothing (the reference's "if sent"). Sources:
 * Nuvei API reference (`getSessionToken`, `payment`, `payout`, `settleTransaction`,
 * `refundTransaction`, `voidTransaction`: "checksum" rows) and Nuvei's server SDK, which lists the same orders.
 */

/** The checksum fields of each method, in order (the secret key follows them). */
export const CHECKSUM_FIELDS = {
  getSessionToken: ['merchantId', 'merchantSiteId', 'clientRequestId', 'timeStamp'],
  payment: ['merchantId', 'merchantSiteId', 'clientRequestId', 'amount', 'currency', 'timeStamp'],
  payout: ['merchantId', 'merchantSiteId', 'clientRequestId', 'amount', 'currency', 'timeStamp'],
  settleTransaction: ['merchantId', 'merchantSiteId', 'clientRequestId', 'clientUniqueId', 'amount', 'currency', 'relatedTransactionId', 'authCode', 'descriptorMerchantName', 'descriptorMerchantPhone', 'comment', 'urlDetails', 'timeStamp'],
  refundTransaction: ['merchantId', 'merchantSiteId', 'clientRequestId', 'clientUniqueId', 'amount', 'currency', 'relatedTransactionId', 'authCode', 'comment', 'urlDetails', 'timeStamp'],
  voidTransaction: ['merchantId', 'merchantSiteId', 'clientRequestId', 'clientUniqueId', 'amount', 'currency', 'relatedTransactionId', 'authCode', 'comment', 'urlDetails', 'timeStamp'],
} as const;

export type NuveiMethod = keyof typeof CHECKSUM_FIELDS;

/** The checksum of `body` for `method` under `secretKey`. Only string fields are concatenated (Coffer sends no nested checksum field). */
export function nuveiChecksum(method: NuveiMethod, body: Readonly<Record<string, unknown>>, secretKey: string): string {
  const joined = CHECKSUM_FIELDS[method].map((field) => {
    const value = body[field];
    return typeof value === 'string' || typeof value === 'number' ? String(value) : '';
  });
  return createHash('sha256').update(`${joined.join('')}${secretKey}`, 'utf8').digest('hex');
}

/** Nuvei's `timeStamp`: the UTC time of the request as YYYYMMDDHHmmss. */
export function nuveiTimeStamp(at: Date = new Date()): string {
  return at.toISOString().replace(/[-:T]/g, '').slice(0, 14);
}
