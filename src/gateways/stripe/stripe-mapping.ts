import { blankResponse, type GatewayResponse, type StandardErrorCode } from '../kit/index.js';

/** Stripe's error object (https://docs.stripe.com/api/errors). */
export interface StripeError {
  type?: string;
  code?: string;
  decline_code?: string;
  message?: string;
  param?: string;
  payment_intent?: { id?: string };
  setup_intent?: { id?: string };
  payment_method?: { id?: string };
  charge?: string;
}

/** Stripe `code` / `decline_code` → our standard error codes. */
const CODE_MAP: Record<string, StandardErrorCode> = {
  card_declined: 'card_declined',
  generic_decline: 'card_declined',
  do_not_honor: 'card_declined',
  insufficient_funds: 'insufficient_funds',
  incorrect_number: 'incorrect_number',
  invalid_number: 'invalid_number',
  invalid_expiry_month: 'invalid_expiry_date',
  invalid_expiry_year: 'invalid_expiry_date',
  invalid_cvc: 'invalid_cvc',
  incorrect_cvc: 'incorrect_cvc',
  expired_card: 'expired_card',
  incorrect_zip: 'incorrect_zip',
  incorrect_address: 'incorrect_address',
  processing_error: 'processing_error',
  call_issuer: 'call_issuer',
  pickup_card: 'pickup_card',
  lost_card: 'pickup_card',
  stolen_card: 'pickup_card',
  amount_too_small: 'invalid_amount',
  amount_too_large: 'invalid_amount',
  testmode_charges_only: 'test_mode_live_card',
  account_closed: 'account_closed',
  authentication_error: 'config_error',
};

export function standardCode(error: StripeError): StandardErrorCode {
  return CODE_MAP[error.decline_code ?? ''] ?? CODE_MAP[error.code ?? ''] ?? (error.type === 'card_error' ? 'card_declined' : 'processing_error');
}

/** Stripe's AVS/CVC check words → ActiveMerchant-style single-letter codes. */
function cvvCode(check: string | null | undefined): string | null {
  if (check === 'pass') return 'M';
  if (check === 'fail') return 'N';
  if (check === 'unavailable' || check === 'unchecked') return 'P';
  return null;
}

function avsCode(line1: string | null | undefined, zip: string | null | undefined): string | null {
  // Stripe sends null for checks it did not run.
  if ((line1 === undefined || line1 === null) && (zip === undefined || zip === null)) return null;
  if (line1 === 'pass' && zip === 'pass') return 'Y';
  if (line1 === 'pass') return 'A';
  if (zip === 'pass') return 'Z';
  if (line1 === 'fail' && zip === 'fail') return 'N';
  return 'U';
}

interface ChargeLike {
  payment_method_details?: {
    card?: { checks?: { address_line1_check?: string | null; address_postal_code_check?: string | null; cvc_check?: string | null }; network_transaction_id?: string | null };
  };
  outcome?: { type?: string };
}

/** A declined request (Stripe answers 402 with an error object). */
export function declineResponse(error: StripeError): GatewayResponse {
  const code = standardCode(error);
  return {
    ...blankResponse(false, error.message ?? 'Your card was declined.'),
    gatewayTransactionId: error.payment_intent?.id ?? error.setup_intent?.id ?? null,
    errorCode: code,
    errorDetail: [error.code, error.decline_code].filter((part) => part !== undefined).join(': ') || null,
    accountClosed: code === 'account_closed',
    specificResponseFields: { stripe: { error_type: error.type ?? null, code: error.code ?? null, decline_code: error.decline_code ?? null } },
  };
}

/** A PaymentIntent (or SetupIntent) as Stripe returns it. */
export interface IntentLike {
  id: string;
  status: string;
  latest_charge?: string | ChargeLike | null;
  last_payment_error?: { message?: string } | null;
  last_setup_error?: { message?: string } | null;
}

/**
 * An intent after create/confirm/capture/cancel/retrieve. `successStatuses` are the statuses
 * that mean this operation worked (a `canceled` intent is a success for a void only).
 */
export function paymentIntentResponse(intent: IntentLike, successMessage: string, successStatuses: readonly string[]): GatewayResponse {
  const charge = typeof intent.latest_charge === 'object' && intent.latest_charge !== null ? intent.latest_charge : null;
  const checks = charge?.payment_method_details?.card?.checks;
  const ok = successStatuses.includes(intent.status);
  const pending = intent.status === 'requires_action' || intent.status === 'processing';
  const failure = intent.last_payment_error?.message ?? intent.last_setup_error?.message ?? `Stripe reports the intent as ${intent.status}`;
  const base = blankResponse(ok, ok ? successMessage : pending ? 'Pending' : failure);
  return {
    ...base,
    gatewayTransactionId: intent.id,
    pending,
    errorCode: ok || pending ? null : 'processing_error',
    avsCode: avsCode(checks?.address_line1_check, checks?.address_postal_code_check),
    cvvCode: cvvCode(checks?.cvc_check),
    fraudReview: charge?.outcome?.type === 'manual_review' ? true : null,
    // Kept with the payment method after a cardholder-initiated charge, for later MITs.
    networkTransactionId: charge?.payment_method_details?.card?.network_transaction_id ?? null,
    specificResponseFields: { stripe: { status: intent.status } },
  };
}
