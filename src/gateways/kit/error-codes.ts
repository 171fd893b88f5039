/**
 * The closed list of standard error codes a decline is mapped onto (ActiveMerchant's
 * STANDARD_ERROR_CODE vocabulary); each gateway maps its own codes onto it.
 */
export const STANDARD_ERROR_CODES = [
  'incorrect_number',
  'invalid_number',
  'invalid_expiry_date',
  'invalid_cvc',
  'expired_card',
  'incorrect_cvc',
  'incorrect_zip',
  'incorrect_address',
  'card_declined',
  'insufficient_funds',
  'processing_error',
  'call_issuer',
  'pickup_card',
  'config_error',
  'test_mode_live_card',
  'unsupported_feature',
  'invalid_amount',
  'account_closed',
] as const;
export type StandardErrorCode = (typeof STANDARD_ERROR_CODES)[number];

/**
 * The standard code for the first of `keys` the gateway's table knows (most specific first, e.g.
 * a decline code before a generic error code), else `fallback`. Keys are compared as given.
 */
export function mapErrorCode(table: Readonly<Record<string, StandardErrorCode>>, keys: ReadonlyArray<string | number | null | undefined>, fallback: StandardErrorCode): StandardErrorCode {
  for (const key of keys) {
    if (key === null || key === undefined) continue;
    const text = String(key);
    if (Object.hasOwn(table, text)) return table[text] as StandardErrorCode;
  }
  return fallback;
}
