import { createHash } from 'node:crypto';
import { scrubJsonKeys, scrubWith, type ScrubRule } from '../kit/index.js';

/** Ds_MerchantParameters on the wire: the JSON of the DS_MERCHANT_* fields, Base64 without line breaks. */
export function encodeParameters(fields: Record<string, unknown>): string {
  return Buffer.from(JSON.stringify(fields), 'utf8').toString('base64');
}

/** The JSON object inside an answer's Ds_MerchantParameters (Base64 or Base64url), or null when it is not one. */
export function decodeParameters(encoded: string): Record<string, unknown> | null {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(encoded)) return null;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(encoded, 'base64').toString('utf8'));
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/**
 * Redsys's order number (Ds_Merchant_Order): 4 to 12 characters, the first 4 digits, the rest
 * letters or digits. The client's order_id is used when it already is one; otherwise it is made
 * from the transaction token (4 digits from its SHA-256, then its last 8 characters, which are
 * random), so the same transaction always sends the same order and Redsys's refusal of a repeated
 * order (SIS0051) guards against charging twice.
 */
export function orderNumber(orderId: string | null, transactionToken: string): string {
  if (orderId !== null && /^\d{4}[A-Za-z0-9]{0,8}$/.test(orderId)) return orderId;
  const digits = String(createHash('sha256').update(transactionToken).digest().readUInt32BE(0) % 10_000).padStart(4, '0');
  return `${digits}${transactionToken.replace(/[^A-Za-z0-9]/g, '').slice(-8)}`;
}

/** Card fields inside the parameters, whatever the case Redsys or the merchant spelled them in. */
const CARD_FIELDS = scrubJsonKeys('DS_MERCHANT_PAN', 'DS_MERCHANT_CVV2', 'DS_MERCHANT_EXPIRYDATE', 'Ds_CardNumber', 'Ds_Card_Number');

/**
 * The transcript rule: each Ds_MerchantParameters (JSON body of a request or an answer) is decoded,
 * its card fields replaced by [FILTERED], and encoded again, so the transcript keeps the shape of
 * what went over the wire without the PAN, CVV2 or expiry hidden in the Base64. The card fields are
 * also filtered where they appear in clear.
 */
export const scrubRedsys: ScrubRule = scrubWith((text) =>
  text.replace(/("Ds_MerchantParameters"\s*:\s*")([A-Za-z0-9+/_=-]+)(")/gi, (_whole, head: string, encoded: string, tail: string) => {
    const fields = decodeParameters(encoded);
    if (fields === null) return `${head}[FILTERED]${tail}`;
    return `${head}${encodeParameters(JSON.parse(CARD_FIELDS(JSON.stringify(fields))) as Record<string, unknown>)}${tail}`;
  }),
  CARD_FIELDS,
);
