import type { Secret } from '../../domain/secret.js';
import type { StandardErrorCode } from './error-codes.js';
import type { ShippingAddress } from '../../domain/transaction-details.js';

/** Operations a gateway may support; each maps to one `supports_*` characteristic. */
export type GatewayOperation = 'purchase' | 'authorize' | 'capture' | 'void' | 'credit' | 'verify' | 'store' | 'general_credit' | 'complete';


/** A payment method as an adapter sees it: opened by the service, sensitive parts in `Secret`s. */
export type AdapterPaymentMethod =
  | {
      type: 'credit_card';
      number: Secret;
      verificationValue: Secret | null;
      month: number | null;
      year: number | null;
      firstName: string | null;
      lastName: string | null;
      cardType: string | null;
      address: Record<string, string | null>;
      email: string | null;
    }
  | { type: 'bank_account'; routingNumber: Secret; accountNumber: Secret; accountType: string | null; holderType: string | null; firstName: string | null; lastName: string | null }
  | { type: 'third_party_token'; token: string }
  /** Spreedly's test offsite method: nothing to send, the test gateway redirects. */
  | { type: 'sprel' }
  | WalletPaymentMethod;

/**
 * A decrypted Apple Pay or Google Pay token (docs/wallets.md). `networkToken`: the number is a
 * device account number (DPAN) sent with its `cryptogram` and `eci`, and the adapter marks the
 * source wallet. Otherwise (Google Pay `PAN_ONLY`) the number is a plain card number and there is no
 * cryptogram. The cryptogram is single-use: null once a transaction has used it (a later
 * merchant-initiated charge sends the DPAN alone, with the stored-credential fields).
 */
export interface WalletPaymentMethod {
  type: 'apple_pay' | 'google_pay';
  networkToken: boolean;
  number: Secret;
  cryptogram: Secret | null;
  /** Electronic commerce indicator as the wallet gave it ("05", "7"…), or null. */
  eci: string | null;
  month: number | null;
  year: number | null;
  firstName: string | null;
  lastName: string | null;
  cardType: string | null;
  email: string | null;
}

/** A shipping address is a domain fact (a transaction records it); adapters send it. */
export type { ShippingAddress };

/**
 * Stored-credential data of a purchase, authorize or verify (Spreedly's `stored_credential_initiator`
 * and `stored_credential_reason_type`, both sent). On a merchant-initiated one, the network
 * transaction id of the cardholder-initiated transaction that stored the credential, when Coffer
 * kept one for this payment method (from whichever gateway returned it).
 */
export interface StoredCredential {
  initiator: 'merchant' | 'cardholder';
  reasonType: 'recurring' | 'unscheduled' | 'installment';
  networkTransactionId: string | null;
}

/** What the cardholder's browser must do before a pending transaction can be completed (3-D Secure, offsite). */
export interface PendingAction {
  requiredAction: 'device_fingerprint' | 'challenge' | 'none';
  /** Opaque to the client; handed back to the gateway on `complete` (GatewayRequest.reference.context). */
  threeDsContext: string | null;
  deviceFingerprintForm: string | null;
  challengeForm: string | null;
  challengeUrl: string | null;
  /** Offsite (and 3DS1): where to send the cardholder. */
  checkoutUrl: string | null;
}

/** Everything an adapter needs for one call; built by the transaction service. */
export interface GatewayRequest {
  operation: GatewayOperation;
  /** Coffer's transaction token: sent as the gateway's idempotency key where it has one. */
  transactionToken: string;
  /** The gateway was created with `sandbox: true`: use the gateway's test endpoint and test credentials. */
  testMode: boolean;
  credentials: Record<string, Secret>;
  /** Minor units; null for verify/void. */
  amount: number | null;
  currencyCode: string | null;
  paymentMethod: AdapterPaymentMethod | null;
  /** For capture, void and credit: the gateway's id of the reference transaction. */
  reference: {
    gatewayTransactionId: string | null;
    transactionType: string;
    amount: number | null;
    /** On `complete`: the three_ds_context the gateway gave when it left the transaction pending. */
    context?: string | null;
  } | null;
  orderId: string | null;
  description: string | null;
  ip: string | null;
  email: string | null;
  shippingAddress: ShippingAddress | null;
  /** `gateway_specific_fields[<gateway_type>]`, as sent. */
  gatewaySpecificFields: Record<string, unknown>;
  /** 3-D Secure was asked for (`attempt_3dsecure`). */
  attempt3dsecure: boolean;
  /** `three_ds_version` and `browser_info` (base64) as sent, for 3-D Secure 2. */
  threeDsVersion?: string | null;
  browserInfo?: string | null;
  /** Where the cardholder's browser returns, and where the result is posted (3-D Secure, offsite). */
  redirectUrl?: string | null;
  callbackUrl?: string | null;
  /** Present only when both stored-credential fields were sent (Spreedly's rule). */
  storedCredential?: StoredCredential | null;
}

/** The gateway's answer. A decline is a normal answer (`success: false`), never an exception. */
export interface GatewayResponse {
  success: boolean;
  message: string;
  gatewayTransactionId: string | null;
  errorCode: StandardErrorCode | null;
  errorDetail: string | null;
  avsCode: string | null;
  avsMessage: string | null;
  cvvCode: string | null;
  cvvMessage: string | null;
  /** Waiting on the cardholder (3-D Secure) or the gateway; finished by `complete`. */
  pending: boolean;
  fraudReview: boolean | null;
  /** The issuer reports the account closed: the payment method becomes `closed`. */
  accountClosed: boolean;
  /** For `store`: the gateway's own token for the card. */
  thirdPartyToken: string | null;
  specificResponseFields: Record<string, unknown>;
  /** The card network's id of this transaction (kept from a cardholder-initiated one for later MITs). */
  networkTransactionId: string | null;
  /** With `pending` (or a frictionless 3-D Secure answer): what the cardholder must do next. */
  pendingAction: PendingAction | null;
}

/**
 * The gateway could not be reached or did not answer usefully (5xx, garbage, refused connection).
 * Counts toward the circuit breaker. `notTaken` is true only when the payment provably was not
 * taken (nothing was sent, or the gateway said it did not handle the request: HTTP 503); only such
 * a fault lets a retry chain move on to a backup gateway (docs/routing-retry.md). Garbage, a 500 or an answer
 * after an earlier request of the same operation went out stay false: the gateway may have acted.
 */
export class GatewayFaultError extends Error {
  constructor(
    message: string,
    readonly detail: string,
    readonly notTaken = false,
  ) {
    super(message);
    this.name = 'GatewayFaultError';
  }
}

/**
 * The request may have reached the gateway but no answer came (timeout, connection lost after
 * sending): the outcome is unknown. Never retried automatically. Counts toward the breaker.
 */
export class GatewayResultUnknownError extends Error {
  constructor(
    message: string,
    readonly detail: string,
  ) {
    super(message);
    this.name = 'GatewayResultUnknownError';
  }
}

/** One exchange as recorded for the transcript, already scrubbed by the adapter's rules. */
export interface TranscriptEntry {
  text: string;
}

/**
 * The request cannot be put into the gateway's terms (an amount its currency unit cannot hold, a
 * payment method it does not take): nothing is sent, and the transaction fails with `code`.
 */
export class GatewayInputError extends Error {
  constructor(
    message: string,
    readonly code: StandardErrorCode,
  ) {
    super(message);
    this.name = 'GatewayInputError';
  }
}

/** A response with every optional field empty, for adapters to spread and fill in. */
export function blankResponse(success: boolean, message: string): GatewayResponse {
  return {
    success,
    message,
    gatewayTransactionId: null,
    errorCode: null,
    errorDetail: null,
    avsCode: null,
    avsMessage: null,
    cvvCode: null,
    cvvMessage: null,
    pending: false,
    fraudReview: null,
    accountClosed: false,
    thirdPartyToken: null,
    specificResponseFields: {},
    networkTransactionId: null,
    pendingAction: null,
  };
}
