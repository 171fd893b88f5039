import type { StandardErrorCode } from '../../gateways/kit/index.js';

/**
 * The standard error codes (ActiveMerchant's STANDARD_ERROR_CODE vocabulary, which every
 * Coffer adapter maps onto) that count as a **soft** decline: another gateway may well approve the
 * same card. Spreedly's Recover documentation classes as soft "general error codes like do not
 * honor, card or currency not supported", and as hard those "tied to fraud suspicion, an incorrect
 * card number, lost/stolen card, or insufficient funds". docs/routing-retry.md gives the reason for
 * every code, soft or hard.
 */
export const SOFT_DECLINE_CODES: ReadonlySet<StandardErrorCode> = new Set<StandardErrorCode>([
  // The generic decline ("do not honor", Adyen "Refused", Stripe `generic_decline`): Spreedly's first soft example.
  'card_declined',
  // An error at the processor or acquirer ("try again"): the next gateway has its own acquirer.
  'processing_error',
  // This gateway account is misconfigured (merchant account, credentials): another account is not.
  'config_error',
  // This gateway cannot do it (card brand, currency, feature): Spreedly's "card or currency not supported".
  'unsupported_feature',
]);
